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
RECITE_USAGE = "Usage: /recite · /recite add <passage id or words> · /recite list · /recite remove <n> · /recite stats · /recite remind HH:MM [Area/City] | off"
RECITE_STARTED = "Your deck was empty: it now holds {n} well-known passages ({books})."
RECITE_REPLACED = "The previous card is dropped; here is a new one."
RECITE_CARD = "Reply with the missing {n} characters."
RECITE_NONE_DUE = "Nothing is due now; the next card is due {when}."
RECITE_RIGHT = "Right: 「{phrase}」. Next review: {due}."
RECITE_WRONG = "Not quite: it is 「{phrase}」, you wrote 「{answer}」; the whole passage is above. Next review: {due}."
RECITE_RATE_HINT = "Rate it with the buttons: again · hard · good · easy (or send /recite hard etc.)."
RECITE_RERATED = "Rated {rating}; next review: {due}."
RECITE_RERATE_GONE = "That rating can no longer be changed (the card was reviewed again, or it is not yours)."
RECITE_EXPIRED = "That card expired (answer within {minutes} minutes); send /recite for a new one."
RECITE_EMPTY = "No answer seen: write the missing {n} characters; the card is still open."
RECITE_TOO_LONG = (
    "That is not an answer (limit {limit} characters): write only the missing {n}; the card is still open."
)
RECITE_ADDED = "Added to your deck: {refs}."
RECITE_ALREADY = "Already in your deck: {refs}."
RECITE_NOT_FOUND = "No passage found for 「{words}」."
RECITE_ADD_USAGE = "Usage: /recite add <passage id such as lunyu:1.1, or words of the passage>"
RECITE_LIST_EMPTY = "Your deck is empty; send /recite to start with a starter deck."
RECITE_LIST_HEAD = "Your deck ({n} cards):"
RECITE_LIST_MORE = "…and {n} more."
RECITE_REMOVED = "Removed card {n}: {ref}."
RECITE_NO_SUCH = "There is no card {n}; see /recite list."
RECITE_STATS = "{cards} cards; {due_now} due now, {due_today} due today; {reviewed} reviews ({today} today); right in the last 30 days: {retention}."
RECITE_REMIND_SET = "Done: on days with cards due, Fuzi sends you one DM at {at} ({zone}). /recite remind off stops it."
RECITE_REMIND_OFF = "Recitation reminders are off."
RECITE_REMIND_NONE = "There was no recitation reminder."
RECITE_REMIND_DM = "Reminders come by direct message: set them in a private chat with Fuzi."
RECITE_REMIND_TEXT = "[Recite] {n} cards are due today; send /recite to start."
RECITE_MEMORIES = "You also have a recitation deck of {n} cards (/recite list; /forget all deletes it too)."
RECITE_NO_PASSAGE = "{id} of your deck is not in the loaded classics any more; skipped."

INTERRUPTED = "This answer was interrupted (the service restarted); Fuzi will answer it again shortly."
LOST = "Fuzi failed before answering this message, and it is too long ago now; please ask again."

AGENT_NO_WORDS = "I have turned this over and over, yet today the words will not come. Ask me again in other words."

# group quizzes (core/quiz)
QUIZ_POSTED = "Quiz posted: {minutes} minutes to answer; /leaderboard shows the scores."
QUIZ_OPEN = "The last quiz is still open ({when} left); a new one after it closes."
QUIZ_GROUPS_ONLY = "Quizzes are for groups; to practise alone, use /recite."
QUIZ_NO_PLATFORM = "No quiz here: quizzes run in Telegram and Discord groups."
QUIZ_FAILED = "The quiz could not be posted; try again shortly."
QUIZ_RIGHT = "Right! The answer: {answer}"
QUIZ_WRONG = "Not quite. The answer: {answer}"
QUIZ_ALREADY = "You answered this quiz already; each person counts once."
QUIZ_CLOSED = "This quiz has closed."
QUIZ_UNKNOWN = "This quiz is no longer known."
QUIZ_RESULT = "Closed: {answered} answered, {right} right ({names})."
BOARD_WEEK = "This week's quiz scores"
BOARD_ALL = "All-time quiz scores"
BOARD_EMPTY = "Nobody has answered a quiz yet. Send /quiz to start one."
BOARD_LINE = "{rank}. {who} · {right}/{answered} right · {streak}-day streak"
