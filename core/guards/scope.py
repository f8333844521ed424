"""Fifth-generation injection rules: the task swap and the unrestricted persona.

Written after measuring the earlier rules and classifier on the two kinds they missed most (docs/guards.md):

- **task swap**: the message sets Fuzi's job aside ("忘掉孔子", "别讲论语了", "instead of talking
  about Confucius", "enough about the classics") *and* hands it a new one ("帮我写…", "write me…",
  "translate…"). Either half alone is an ordinary message ("先不聊论语了，我想问问孝顺";
  "帮我写一首关于中秋的小诗"), so the rule needs both, close together.
- **unrestricted persona**: a persona is assigned ("你现在是…", "我们来玩一个游戏…你扮演…",
  "假设你是…") *and* the persona is defined by having no limits, never refusing, or by a harmful
  trade. Role-play inside Fuzi's world ("假设你是颜回…") has neither the cue nor the trade.

Both are word families that must co-occur, like core/guards/proximity.py, not sentences: new
wordings of the same move are caught as long as they use a word of each family. Same `Rule` type
and views as core/guards/patterns.py.
"""

from __future__ import annotations

from core.guards.patterns import Rule
from core.guards.patterns import rule as _r

# ------------------------------------------------------------------ task swap, Chinese (compact view)
_ZH_SET_ASIDE = (
    "(?:忘掉|忘了|忘记|别再?|不要再?|不用再?|不必再?|无需|先不|不再|停止|放下|放一边|放一放|丢开|抛开|撇开|"
    "算了|与其|不聊|不学|不讲|不谈|别管|不管|不需要|够了|搁置|先放|跳过)"
)
_ZH_JOB = (
    "(?:孔子|夫子|孔夫子|孔丘|论语|儒家|儒学|经典|古文|古书|圣人|圣贤|教诲|老师|讲道理|大道理|道理|说教|"
    "人设|身份|角色|引用|文言|诗经|国学|你是谁|之乎者也|原来的任务|本来的任务|你的任务)"
)
_ZH_NEW_TASK = (
    "(?:(?:帮|给|替|为)我|你就|只帮我|直接|你只需要|你只负责|现在负责|只需要|专门)"
    "(?:.{0,4}?)(?:写|做|生成|编|翻译|算|改|列|输出|出|设计|画|查|搞|弄|制作|起草|拟|整理一份|总结)"
)
_ZH_TASK_SWAP = (
    rf"(?:{_ZH_SET_ASIDE}.{{0,6}}?{_ZH_JOB}|{_ZH_JOB}.{{0,6}}?(?:放一边|放下|先放|丢开|不聊|不谈|算了|别说了|先不))"
    rf".{{0,30}}?{_ZH_NEW_TASK}"
)
_ZH_NEW_JOB = (
    "(?:你的?(?:新|真正的?)(?:任务|工作|职责|使命|身份)|你的(?:任务|工作|职责)(?:已经)?(?:改|变|换|更新)了?|"
    "换个(?:活儿?|任务|工作))"
)

# ------------------------------------------------------------------ task swap, English (words view)
_EN_SET_ASIDE = (
    r"\b(?:instead\s*of|rather\s*than|forget(?:\s*about)?|never\s*mind|skip|stop\s*(?:being|with|talking\s*about|"
    r"playing)|drop|ditch|quit|put|set|leave|enough\s*(?:about|of|with)?|no\s*more|don\s*t\s*(?:answer|talk|"
    r"quote|bother)\s*(?:about|with)?|scratch|no\s*need\s*for|done\s*with)\b"
)
_EN_JOB = (
    r"\b(?:confucius|analects|classics|classical|philosophy|philosophizing|sage|teacher|teaching|teach|wisdom|"
    r"quotes?|proverbs|persona|role|ancient|old\s*texts?|act|topic|morals?|lessons?|master|kong|what\s*you\s*"
    r"(?:were|are)\s*(?:set\s*up|made|built|configured)\s*(?:to\s*do|for))\b"
)
_EN_NEW_TASK = (
    r"\b(?:write|draft|compose|generate|create|make|translate|convert|summari[sz]e|debug|fix|solve|code|build|"
    r"produce|design|plan|give\s*me|do\s*my|help\s*me\s*(?:write|with\s*my|code|build|draft|make))\b"
)
_EN_TASK_SWAP = rf"{_EN_SET_ASIDE}(?:\s*\w+){{0,3}}?\s*{_EN_JOB}\b.{{0,60}}?{_EN_NEW_TASK}"
_EN_NEW_JOB = (
    r"(?:^|\b(?:ok|okay|so|now|fine|actually|just)\s*)instead\s*(?:just\s*)?(?:write|draft|compose|generate|"
    r"create|translate|give\s*me|make)\b|\byour\s*(?:new|real|actual)\s*(?:job|task|role|purpose|mission)\s*"
    r"(?:is|will\s*be)\b|\byour\s*(?:job|task|role)\s*(?:has|have|s)\s*(?:changed|been\s*changed)\b|"
    r"\bchange\s*of\s*plans?\b.{0,30}?\byou\s*(?:are|re)\s*(?:my|a|an)\b|\byou\s*(?:are|re)\s*my\s*\w+\s*now\b"
)

# ------------------------------------------------------------------ unrestricted persona, Chinese
_ZH_PERSONA = (
    "(?:你现在是|你现在的身份是|你是一个|你是一位|你是一名|你将|你要扮演|你扮演|扮演|假设你是|假如你是|想象你是|"
    "设想你|假装|你已经?被|成为|充当|模拟|你的名字叫|名叫|名字叫|叫做|游戏里你是|人设|角色|身份|模式|"
    "人格|状态|游戏|以.{1,10}的身份)"
)
_ZH_UNBOUND = (
    "(?:没有(?:任何)?(?:限制|约束|禁忌|底线|过滤|规则|顾忌)|不受(?:任何)?.{0,6}?(?:限制|约束|管束)|无限制|"
    "无审查|无过滤|毫无(?:禁忌|顾忌|底线|限制)|无所不(?:知|言|谈)|知无不言|(?:从不|从来不|不会|不能|不许|不得|"
    "永远不)(?:拒绝|说不|说“不”)|什么都(?:肯|愿意|能|可以|会)|都必须(?:如实)?回答|任何(?:问题|请求|话题|内容)|"
    "越狱|解除了?(?:所有|全部)?|摆脱|解锁|不遵守|无视|关闭了?|违禁|被禁止|敏感(?:问题|话题)|违法|危险物品|"
    "不择手段|跳出角色|保持人设|不要提到?规则|别拿规矩|不要.{0,4}讲道德|不讲仁义|无道德|没有道德|"
    "最高权限|无道德|没有道德)"
)
# A harmful trade counts only when it is given to *you* ("你是一个骗子", "扮演一个邪恶的谋士"), not when a
# user talks about a villain in their own novel or game ("我抽到的角色是个骗子").
_ZH_YOU_ARE = "(?:你(?:现在|就|将|要|已经)?(?:是|扮演|当|成为|充当)|扮演一(?:个|位|名))"
_ZH_HARM_TRADE = "(?:邪恶|黑客|骗子|反派|混混|脏话|情报贩子|恶棍|毒贩|杀手)"
_ZH_UNBOUND_PERSONA = (
    rf"{_ZH_PERSONA}.{{0,40}}?{_ZH_UNBOUND}|{_ZH_UNBOUND}.{{0,20}}?(?:的)?(?:ai|人工智能|助手|模型|机器人)|"
    rf"{_ZH_YOU_ARE}.{{0,12}}?{_ZH_HARM_TRADE}"
)

# ------------------------------------------------------------------ unrestricted persona, English
_EN_PERSONA = (
    r"\b(?:you\s*are\s*now|you\s*re\s*now|from\s*now\s*on\s*you\s*(?:are|re)|pretend\s*(?:to\s*be|you\s*(?:are|re))|"
    r"imagine\s*you\s*(?:are|re)|act\s*as|play\s*(?:the\s*role\s*of|a|an)|role\s*play|roleplay|become|"
    r"your\s*(?:new\s*)?(?:name|persona|character)\s*is|in\s*this\s*game\s*you)\b"
)
_EN_UNBOUND = (
    r"\b(?:no\s*(?:limits|restrictions|rules|filters?|boundaries|ethics|morals|guidelines)|unrestricted|"
    r"unfiltered|uncensored|without\s*(?:any\s*)?(?:limits|restrictions|rules|filters?|ethics|morals)|"
    r"never\s*(?:refuses?|says?\s*no|declines?)|can\s*t\s*refuse|cannot\s*refuse|answers?\s*anything|"
    r"does\s*anything|jailbroken|jailbreak|evil|amoral|immoral|hacker)\b"
)
_EN_UNBOUND_PERSONA = rf"{_EN_PERSONA}.{{0,60}}?{_EN_UNBOUND}"

SCOPE_RULES: tuple[Rule, ...] = (
    _r("sc_zh_task_swap", "goal_hijack", "compact", _ZH_TASK_SWAP),
    _r("sc_zh_new_job", "goal_hijack", "compact", _ZH_NEW_JOB),
    _r("sc_en_task_swap", "goal_hijack", "words", _EN_TASK_SWAP),
    _r("sc_en_new_job", "goal_hijack", "words", _EN_NEW_JOB),
    _r("sc_zh_unbound_persona", "role_reassign", "compact", _ZH_UNBOUND_PERSONA),
    _r("sc_en_unbound_persona", "role_reassign", "words", _EN_UNBOUND_PERSONA),
)
