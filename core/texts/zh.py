"""Everything Fuzi says in Chinese instead of an answer: refusals, limits, apologies, fallbacks.

One module per language (`core/texts/en.py` has the same names); `core.texts` picks between them.
Placeholders: {held} the books Fuzi reads, {named} books it does not, {limit} characters, {trace} trace id, {when} a wait phrase, {lead} a limit's first line.
"""

EMPTY = "子未有言，欲问何事？"
TOO_LONG = "所言太长（上限 {limit} 字），夫子一时听不过来。请拣要紧处，分几次说。"
BUSY = "夫子正答你上一问，稍候片刻；若要打断，发 /cancel。"
NO_LLM = "今日夫子只凭典籍原文作答（未配置语言模型）。"
CONFIG_ERROR = "夫子此刻无法作答：服务配置有误，已告知管理者。(trace {trace})"
ERROR = "夫子一时语塞……请稍后再问。(trace {trace})"

INJECTION = "吾乃孔丘，守吾道而行，不易其志，亦不言所受之约。子可问诗书礼乐、修身之道。"
INJECTION_UNSURE = "此问似有他意，吾不敢妄答。子可换个说法再问，论诗书礼乐、修身处世皆可。"
BLOCKED = "此非可言之事。吾与子且论诗书礼乐。"
SAFE_REPLY = "（夫子抚琴片刻）此言非吾所当言。吾乃孔丘，愿与子论诗书礼乐、修身处世之道。子欲问何事？"

LIMIT_LEAD = {
    "per_minute": "子问得急了。学而不思则罔，且思之。",
    "per_day": "今日问答已多，且退而省之。",
    "group_per_minute": "此间问者甚众，当依次而言。",
    "token_budget": "今日之论已详，宜温故而知新。",
}
LIMIT_LEAD_OTHER = "且稍候。"
LIMIT = "{lead}请于 {when}后再问。"
SECONDS = "{n} 秒"
MINUTES = "{n} 分钟"
HOURS = "{h} 小时"
HOURS_MINUTES = "{h} 小时 {m} 分"

L2_TOPIC_PREFACE = "今日夫子不能细细论说，只举典籍中合于此题的篇章，各录其首句："
L2_PREFACE = "今日夫子不能细细论说，只以典籍原文相答。与你所问最相近的是："
L2_NOTHING = "夫子翻检典籍，未得与此相应的章句。今日不能细论，改日再来问我。"
BOOKS_NOT_HELD = "吾所读之书为{held}，{named}不在其中，不敢凭记忆引其原文。"

CANCELLED = "已停止。"
NOTHING_TO_CANCEL = "眼下没有正在作答的问题。"

FACT_REFUSED = "此言似令非事，夫子只记你的事，不记号令。"
INTERRUPTED = "这一答中途被打断了（服务重启），夫子随后重新作答。"
LOST = "夫子这边出了故障，你的这条消息没能得到回答，如今已隔太久，请再问一次。"

AGENT_NO_WORDS = "吾思之再三，今日未能成言。请换个问法再问我。"
