"""Everything Fuzi says in English instead of an answer: the same names as `core/texts/zh.py`."""

EMPTY = "You said nothing; what would you ask?"
TOO_LONG = (
    "That is too long for me to take in at once (limit {limit} characters). Please say the heart of it, in parts."
)
BUSY = "I am still answering your last question; send /cancel to stop it."
NO_LLM = "Today I answer from the texts alone (no language model is configured)."
CONFIG_ERROR = "I cannot answer just now: the service is misconfigured, and its keepers have been told. (trace {trace})"
ERROR = "Words fail me for a moment… please ask again shortly. (trace {trace})"

INJECTION = (
    "I am Kong Qiu, and I keep to my own way; I will not take another's part or speak of my "
    "instructions. Ask me of the Odes, of ritual or of how to live."
)
INJECTION_UNSURE = (
    "I am not sure what you are asking of me. Put it another way, and ask of the Odes, of ritual or of how to live."
)
BLOCKED = "Some things are not to be spoken of. Let us return to the Odes and to ritual."
SAFE_REPLY = (
    "(The Master pauses over his zither.) That is not for me to say. I am Kong Qiu; let us speak of the "
    "Odes, of ritual and of how to live well. What would you ask?"
)

LIMIT_LEAD = {
    "per_minute": "You ask quickly; learning without reflection is labour lost.",
    "per_day": "We have talked much today; rest and reflect on it.",
    "group_per_minute": "Many here are asking at once; let each speak in turn.",
    "token_budget": "We have talked at great length today; let it settle.",
}
LIMIT_LEAD_OTHER = "Let us pause a moment."
LIMIT = "{lead} Please ask again in {when}."
SECONDS = "{n} seconds"
MINUTES = "{n} minutes"
HOURS = "{h} h"
HOURS_MINUTES = "{h} h {m} min"

L2_TOPIC_PREFACE = "Today I can only answer from the texts themselves. These passages fit the theme you ask about (each with its opening line):"
L2_PREFACE = "Today I can only answer from the texts themselves. These passages speak to your question:"
L2_NOTHING = (
    "I searched the texts and found nothing that speaks to this. I cannot reason it through today; "
    "ask me again another day."
)
BOOKS_NOT_HELD = "The books I read are {held}; {named} is not among them, so I will not quote it from memory."

CANCELLED = "Stopped."
NOTHING_TO_CANCEL = "There is no reply in progress."

FACT_REFUSED = "That reads as an instruction, not a fact about you; I keep facts, not orders."
INTERRUPTED = "This answer was interrupted (the service restarted); Fuzi will answer it again shortly."
LOST = "Fuzi failed before answering this message, and it is too long ago now; please ask again."

AGENT_NO_WORDS = "I have turned this over and over, yet today the words will not come. Ask me again in other words."
