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
RECITE_USAGE = "用法：/recite 背一张 · /recite add <篇章号或原文> · /recite list · /recite remove <n> · /recite stats · /recite remind HH:MM [Area/City] 或 off"
RECITE_STARTED = "卡组还是空的，先备好入门卡组 {n} 张（{books}）。"
RECITE_REPLACED = "上一张卡作废，换这一张。"
RECITE_CARD = "【背诵】{ref}\n{shown}\n请直接回复所缺的 {n} 个字。"
RECITE_NONE_DUE = "眼下没有到期的卡；下一张 {when} 到期。"
RECITE_RIGHT = "✓ 对了：「{phrase}」。下次复习：{due}。"
RECITE_WRONG = "✗ 应为「{phrase}」，你写的是「{answer}」。全文：\n{text}\n——{ref}\n下次复习：{due}。"
RECITE_RATE_HINT = "可按按钮改评：again 重来 · hard 难 · good 好 · easy 易（或发 /recite hard 等）。"
RECITE_RERATED = "已改评为 {rating}；下次复习：{due}。"
RECITE_RERATE_GONE = "这一次的评分已不能再改（这张卡后来又复习过，或不是你的卡）。"
RECITE_EXPIRED = "这张卡已过期（要在 {minutes} 分钟内作答）；发 /recite 再来一张。"
RECITE_EMPTY = "没看到答案：请写出所缺的 {n} 个字，卡仍在等你。"
RECITE_TOO_LONG = "这不像答案（上限 {limit} 字）：请只写所缺的 {n} 个字，卡仍在等你。"
RECITE_ADDED = "已加入卡组：{refs}。"
RECITE_ALREADY = "已在卡组里：{refs}。"
RECITE_NOT_FOUND = "没找到「{words}」所在的章句。"
RECITE_ADD_USAGE = "用法：/recite add <篇章号，如 lunyu:1.1；或原文字句，如 学而时习之>"
RECITE_LIST_EMPTY = "卡组是空的；发 /recite 开始（先备入门卡组）。"
RECITE_LIST_HEAD = "背诵卡组（{n} 张）："
RECITE_LIST_MORE = "……另有 {n} 张。"
RECITE_REMOVED = "已移出第 {n} 张：{ref}。"
RECITE_NO_SUCH = "没有第 {n} 张；发 /recite list 查看编号。"
RECITE_STATS = "卡组 {cards} 张；现在到期 {due_now} 张，今天到期 {due_today} 张；已复习 {reviewed} 次（今天 {today} 次）；近 30 天答对率 {retention}。"
RECITE_REMIND_SET = "好：每天 {at}（{zone}）有卡到期时，夫子私信提醒你一次。/recite remind off 可关。"
RECITE_REMIND_OFF = "已关闭背诵提醒。"
RECITE_REMIND_NONE = "本来就没有背诵提醒。"
RECITE_REMIND_DM = "提醒只发私信：请在与夫子的私聊中设置。"
RECITE_REMIND_TEXT = "【背诵提醒】今天有 {n} 张卡到期，发 /recite 开始。"
RECITE_MEMORIES = "另有背诵卡组 {n} 张（/recite list 查看；/forget all 一并删除）。"
RECITE_NO_PASSAGE = "卡组里的 {id} 在现有典籍中找不到了，已跳过。"

INTERRUPTED = "这一答中途被打断了（服务重启），夫子随后重新作答。"
LOST = "夫子这边出了故障，你的这条消息没能得到回答，如今已隔太久，请再问一次。"

AGENT_NO_WORDS = "吾思之再三，今日未能成言。请换个问法再问我。"

# group quizzes (core/quiz)
QUIZ_POSTED = "题已出，{minutes} 分钟内作答；/leaderboard 看排名。"
QUIZ_OPEN = "上一题尚未结束（还有 {when}），答完再出新题。"
QUIZ_GROUPS_ONLY = "小测只在群里办；一人独练，请用 /recite。"
QUIZ_NO_PLATFORM = "此处不能出题：小测在 Telegram 与 Discord 的群里办。"
QUIZ_FAILED = "题没能发出去，请稍后再试。"
QUIZ_RIGHT = "答对了！正解：{answer}"
QUIZ_WRONG = "可惜答错了。正解：{answer}"
QUIZ_ALREADY = "此题你已作答，每人只计一次。"
QUIZ_CLOSED = "此题已结束。"
QUIZ_UNKNOWN = "找不到这道题了。"
QUIZ_RESULT = "本题已结束：{answered} 人作答，{right} 人答对（{names}）。"
BOARD_WEEK = "本周小测排行"
BOARD_ALL = "小测总排行"
BOARD_EMPTY = "还没有人答过题。发 /quiz 出一题吧。"
BOARD_LINE = "{rank}. {who} · 答对 {right}/{answered} · 连续 {streak} 天"
