-- Schema made by SQLModel.metadata.create_all before migrations existed (PostgreSQL 15, pg_dump --schema-only, schema prefix removed).
CREATE TABLE account (
    id integer NOT NULL,
    platform character varying(32) NOT NULL,
    platform_user_id character varying(128) NOT NULL,
    person_id integer NOT NULL,
    display_name character varying(256) NOT NULL,
    created_at timestamp with time zone NOT NULL
);
CREATE SEQUENCE account_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE account_id_seq OWNED BY account.id;
CREATE TABLE chat (
    key character varying(200) NOT NULL,
    platform character varying(32) NOT NULL,
    is_group boolean NOT NULL,
    skill character varying(64),
    no_llm_noticed boolean NOT NULL,
    created_at timestamp with time zone NOT NULL
);
CREATE TABLE guard_usage (
    id integer NOT NULL,
    person_id integer NOT NULL,
    day character varying(10) NOT NULL,
    requests integer NOT NULL,
    prompt_tokens integer NOT NULL,
    completion_tokens integer NOT NULL
);
CREATE SEQUENCE guard_usage_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE guard_usage_id_seq OWNED BY guard_usage.id;
CREATE TABLE memory_chat (
    chat_key character varying NOT NULL,
    summary character varying NOT NULL,
    summarized_upto integer NOT NULL,
    window_start integer NOT NULL,
    updated_at timestamp with time zone NOT NULL
);
CREATE TABLE memory_fact (
    id integer NOT NULL,
    person_id integer NOT NULL,
    text character varying NOT NULL,
    scope character varying NOT NULL,
    platform character varying NOT NULL,
    account character varying NOT NULL,
    chat_key character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    embedding character varying NOT NULL,
    model character varying NOT NULL
);
CREATE SEQUENCE memory_fact_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE memory_fact_id_seq OWNED BY memory_fact.id;
CREATE TABLE memory_link_attempt (
    id integer NOT NULL,
    person_id integer NOT NULL,
    at timestamp with time zone NOT NULL
);
CREATE SEQUENCE memory_link_attempt_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE memory_link_attempt_id_seq OWNED BY memory_link_attempt.id;
CREATE TABLE memory_link_code (
    id integer NOT NULL,
    person_id integer NOT NULL,
    account character varying NOT NULL,
    salt character varying NOT NULL,
    code_hash character varying NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used boolean NOT NULL
);
CREATE SEQUENCE memory_link_code_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE memory_link_code_id_seq OWNED BY memory_link_code.id;
CREATE TABLE memory_profile (
    person_id integer NOT NULL,
    data character varying NOT NULL,
    updated_at timestamp with time zone NOT NULL
);
CREATE SEQUENCE memory_profile_person_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE memory_profile_person_id_seq OWNED BY memory_profile.person_id;
CREATE TABLE message (
    id integer NOT NULL,
    chat_key character varying(200) NOT NULL,
    person_id integer,
    account character varying(200) NOT NULL,
    speaker character varying(256) NOT NULL,
    role character varying(16) NOT NULL,
    text character varying NOT NULL,
    level integer,
    status character varying(32) NOT NULL,
    trace_id character varying(64) NOT NULL,
    created_at timestamp with time zone NOT NULL
);
CREATE SEQUENCE message_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE message_id_seq OWNED BY message.id;
CREATE TABLE person (
    id integer NOT NULL,
    created_at timestamp with time zone NOT NULL
);
CREATE SEQUENCE person_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE person_id_seq OWNED BY person.id;
ALTER TABLE ONLY account ALTER COLUMN id SET DEFAULT nextval('account_id_seq'::regclass);
ALTER TABLE ONLY guard_usage ALTER COLUMN id SET DEFAULT nextval('guard_usage_id_seq'::regclass);
ALTER TABLE ONLY memory_fact ALTER COLUMN id SET DEFAULT nextval('memory_fact_id_seq'::regclass);
ALTER TABLE ONLY memory_link_attempt ALTER COLUMN id SET DEFAULT nextval('memory_link_attempt_id_seq'::regclass);
ALTER TABLE ONLY memory_link_code ALTER COLUMN id SET DEFAULT nextval('memory_link_code_id_seq'::regclass);
ALTER TABLE ONLY memory_profile ALTER COLUMN person_id SET DEFAULT nextval('memory_profile_person_id_seq'::regclass);
ALTER TABLE ONLY message ALTER COLUMN id SET DEFAULT nextval('message_id_seq'::regclass);
ALTER TABLE ONLY person ALTER COLUMN id SET DEFAULT nextval('person_id_seq'::regclass);
ALTER TABLE ONLY account
    ADD CONSTRAINT account_pkey PRIMARY KEY (id);
ALTER TABLE ONLY chat
    ADD CONSTRAINT chat_pkey PRIMARY KEY (key);
ALTER TABLE ONLY guard_usage
    ADD CONSTRAINT guard_usage_pkey PRIMARY KEY (id);
ALTER TABLE ONLY memory_chat
    ADD CONSTRAINT memory_chat_pkey PRIMARY KEY (chat_key);
ALTER TABLE ONLY memory_fact
    ADD CONSTRAINT memory_fact_pkey PRIMARY KEY (id);
ALTER TABLE ONLY memory_link_attempt
    ADD CONSTRAINT memory_link_attempt_pkey PRIMARY KEY (id);
ALTER TABLE ONLY memory_link_code
    ADD CONSTRAINT memory_link_code_pkey PRIMARY KEY (id);
ALTER TABLE ONLY memory_profile
    ADD CONSTRAINT memory_profile_pkey PRIMARY KEY (person_id);
ALTER TABLE ONLY message
    ADD CONSTRAINT message_pkey PRIMARY KEY (id);
ALTER TABLE ONLY person
    ADD CONSTRAINT person_pkey PRIMARY KEY (id);
ALTER TABLE ONLY account
    ADD CONSTRAINT uq_account_platform_user UNIQUE (platform, platform_user_id);
ALTER TABLE ONLY guard_usage
    ADD CONSTRAINT uq_guard_usage_person_day UNIQUE (person_id, day);
CREATE INDEX ix_account_person_id ON account USING btree (person_id);
CREATE INDEX ix_guard_usage_day ON guard_usage USING btree (day);
CREATE INDEX ix_guard_usage_person_id ON guard_usage USING btree (person_id);
CREATE INDEX ix_memory_fact_person_id ON memory_fact USING btree (person_id);
CREATE INDEX ix_memory_link_attempt_at ON memory_link_attempt USING btree (at);
CREATE INDEX ix_memory_link_attempt_person_id ON memory_link_attempt USING btree (person_id);
CREATE INDEX ix_memory_link_code_person_id ON memory_link_code USING btree (person_id);
CREATE INDEX ix_message_chat_key_id ON message USING btree (chat_key, id);
CREATE INDEX ix_message_person_id ON message USING btree (person_id);
ALTER TABLE ONLY account
    ADD CONSTRAINT account_person_id_fkey FOREIGN KEY (person_id) REFERENCES person(id);
