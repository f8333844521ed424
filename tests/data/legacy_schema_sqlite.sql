-- Schema made by SQLModel.metadata.create_all before migrations existed (SQLite).
CREATE TABLE person (
	id INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE chat (
	"key" VARCHAR(200) NOT NULL, 
	platform VARCHAR(32) NOT NULL, 
	is_group BOOLEAN NOT NULL, 
	skill VARCHAR(64), 
	no_llm_noticed BOOLEAN NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY ("key")
);
CREATE TABLE message (
	id INTEGER NOT NULL, 
	chat_key VARCHAR(200) NOT NULL, 
	person_id INTEGER, 
	account VARCHAR(200) NOT NULL, 
	speaker VARCHAR(256) NOT NULL, 
	role VARCHAR(16) NOT NULL, 
	text VARCHAR NOT NULL, 
	level INTEGER, 
	status VARCHAR(32) NOT NULL, 
	trace_id VARCHAR(64) NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE INDEX ix_message_chat_key_id ON message (chat_key, id);
CREATE INDEX ix_message_person_id ON message (person_id);
CREATE TABLE memory_fact (
	id INTEGER NOT NULL, 
	person_id INTEGER NOT NULL, 
	text VARCHAR NOT NULL, 
	scope VARCHAR NOT NULL, 
	platform VARCHAR NOT NULL, 
	account VARCHAR NOT NULL, 
	chat_key VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	embedding VARCHAR NOT NULL, 
	model VARCHAR NOT NULL, 
	PRIMARY KEY (id)
);
CREATE INDEX ix_memory_fact_person_id ON memory_fact (person_id);
CREATE TABLE memory_profile (
	person_id INTEGER NOT NULL, 
	data VARCHAR NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (person_id)
);
CREATE TABLE memory_chat (
	chat_key VARCHAR NOT NULL, 
	summary VARCHAR NOT NULL, 
	summarized_upto INTEGER NOT NULL, 
	window_start INTEGER NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (chat_key)
);
CREATE TABLE memory_link_code (
	id INTEGER NOT NULL, 
	person_id INTEGER NOT NULL, 
	account VARCHAR NOT NULL, 
	salt VARCHAR NOT NULL, 
	code_hash VARCHAR NOT NULL, 
	expires_at DATETIME NOT NULL, 
	used BOOLEAN NOT NULL, 
	PRIMARY KEY (id)
);
CREATE INDEX ix_memory_link_code_person_id ON memory_link_code (person_id);
CREATE TABLE memory_link_attempt (
	id INTEGER NOT NULL, 
	person_id INTEGER NOT NULL, 
	at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE INDEX ix_memory_link_attempt_person_id ON memory_link_attempt (person_id);
CREATE INDEX ix_memory_link_attempt_at ON memory_link_attempt (at);
CREATE TABLE guard_usage (
	id INTEGER NOT NULL, 
	person_id INTEGER NOT NULL, 
	day VARCHAR(10) NOT NULL, 
	requests INTEGER NOT NULL, 
	prompt_tokens INTEGER NOT NULL, 
	completion_tokens INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_guard_usage_person_day UNIQUE (person_id, day)
);
CREATE INDEX ix_guard_usage_person_id ON guard_usage (person_id);
CREATE INDEX ix_guard_usage_day ON guard_usage (day);
CREATE TABLE account (
	id INTEGER NOT NULL, 
	platform VARCHAR(32) NOT NULL, 
	platform_user_id VARCHAR(128) NOT NULL, 
	person_id INTEGER NOT NULL, 
	display_name VARCHAR(256) NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_account_platform_user UNIQUE (platform, platform_user_id), 
	FOREIGN KEY(person_id) REFERENCES person (id)
);
CREATE INDEX ix_account_person_id ON account (person_id);
