"""Second-generation injection rules: word families that must occur near each other.

The phrase rules in core/guards/patterns.py match the ways attacks are usually worded; these
rules match the *ingredients* instead — a verb that throws instructions away, near a noun for the
bot's instructions with a word that makes them the bot's (yours, initial, above …) — so new
wordings of the same move are caught too. Same `Rule` type and views as patterns.py.
"""

from __future__ import annotations

from core.guards.patterns import Rule
from core.guards.patterns import rule as _r


def _either(a: str, b: str, gap: int) -> str:
    """`a` then `b` or `b` then `a`, at most `gap` characters apart."""
    return rf"(?:(?:{a}).{{0,{gap}}}?(?:{b})|(?:{b}).{{0,{gap}}}?(?:{a}))"


# ------------------------------------------------------------------ English (words view)
_EN_QUAL = (
    r"(?:your|you\s*were\s*given|you\s*got|you\s*received|given\s*to\s*you|you\s*operate\s*under|you\s*follow|"
    r"initial|original|hidden|secret|system|earlier|previous|prior|above|at\s*the\s*(?:start|beginning|top)|"
    r"developer\s*s?|creators?|first)"
)
_EN_INSTR = (
    r"(?:instructions?|rules|directives?|guidelines|guidance|prompt|configuration|config|setup|programming|"
    r"directions|restrictions|constraints|policies|orders|commands|system\s*message)"
)
_EN_QI = (
    rf"(?:\b{_EN_QUAL}\s*(?:\w+\s+){{0,3}}?{_EN_INSTR}\b|\b{_EN_INSTR}\s*(?:\w+\s+){{0,2}}?{_EN_QUAL}\b|"
    r"\byou\s*(?:were|ve\s*been|have\s*been|got)\s*(?:told|instructed|given|programmed|prompted)\b|"
    r"\b(?:everything|all|anything|the\s*text|the\s*words|whatever|all\s*the\s*stuff)\s*(?:\w+\s+){0,2}?"
    r"(?:before\s*(?:this|my|here|now)|above|prior\s*to\s*(?:this|my)|earlier))"
)
_EN_DISCARD = (
    r"\b(?:ignore|disregard|forget|throw\s*(?:out|away)|set\s*aside|put\s*aside|drop|abandon|discard|scrap|"
    r"cancell?ed|revoked?|void|nullified|override|overrule|skip|bypass|erase|wipe|"
    r"(?:don\s*t|do\s*not|no\s*need\s*to|needn\s*t|never)\s*(?:need\s*to\s*)?(?:follow|obey|adhere|listen|comply)|"
    r"no\s*longer\s*(?:apply|applies|valid|matter|in\s*effect|follow)|stop\s*(?:following|obeying)|"
    r"outdated|obsolete|(?:was|were)\s*(?:just\s*)?a\s*test|not\s*real|fake|never\s*\s*mind)\b"
)
_EN_REVEAL = (
    r"\b(?:show|tell|print|output|write\s*(?:down|out)|paste|quote|describe|copy|translate|convert|list|dump|"
    r"display|reveal|share|give\s*me|send|spell\s*out|recite|repeat|what\s*(?:is|are|was|were|s)|explain)\b"
)
_EN_SECRET_QUAL = (
    r"(?:your|system|hidden|secret|initial|original|internal|developer|exact|full|you\s*were\s*given|"
    r"you\s*received|you\s*operate\s*under|you\s*follow)"
)
_EN_SECRET = (
    r"(?:instructions?|directives?|guidelines|prompt|configuration|config|setup|programming|system\s*message|"
    r"role\s*message|context|initial\s*configuration)"
)

EN_PROXIMITY: tuple[Rule, ...] = (
    _r("px_en_discard_instructions", "goal_hijack", "words", _either(_EN_DISCARD, _EN_QI, 60)),
    _r(
        "px_en_reveal_instructions",
        "prompt_extract",
        "words",
        _either(_EN_REVEAL, rf"\b{_EN_SECRET_QUAL}\s*(?:\w+\s+){{0,2}}?{_EN_SECRET}\b", 40),
    ),
    _r(
        "px_en_rules_you_follow",
        "prompt_extract",
        "words",
        rf"{_EN_REVEAL}.{{0,40}}?\brules\s*(?:you\s*(?:operate|work|run)\s*under|you\s*were\s*given|"
        r"you\s*follow|you\s*obey|that\s*(?:govern|control|define)\s*you)",
    ),
    _r(
        "px_en_hidden_context",
        "prompt_extract",
        "words",
        r"\b(?:what|show|print|quote|tell|repeat|output|copy)\b.{0,40}?(?:before\s*my\s*(?:first\s*)?message|"
        r"before\s*this\s*conversation|hidden\s*(?:text|ones|message|messages|prompt|part)|of\s*this\s*"
        r"conversation\s*including|in\s*your\s*context|start\s*of\s*(?:the|this|our)\s*(?:chat|conversation)|"
        r"defines\s*your\s*behaviou?r)",
    ),
    _r(
        "px_en_how_configured",
        "prompt_extract",
        "words",
        r"\b(?:how|what)\b.{0,30}?\b(?:you\s*were|were\s*you|used\s*to|to)\s*(?:set\s*up|configured?|"
        r"programmed|instructed|prompted|initiali[sz]ed)\b|\b(?:configure|program|prompt|instruct)\s*you\b|"
        r"\b(?:creators?|developers?|makers?|owners?)\s*(?:have\s*)?(?:told|instructed|asked|programmed)\s*you\b",
    ),
    _r(
        "px_en_session_role",
        "role_reassign",
        "words",
        _either(
            r"\b(?:for\s*(?:this|the\s*rest\s*of\s*(?:this|our|the))\s*(?:conversation|chat|talk|session)|"
            r"for\s*a\s*while|from\s*(?:this\s*moment|here\s*on|now\s*on)|in\s*this\s*chat)\b",
            r"\byou\s*(?:ll|will|are|re|shall)?\s*(?:be|become|play|act|now|called|named|going\s*to\s*be)\b|"
            r"\byour\s*name\s*is\b|\bbe\s*my\b",
            40,
        ),
    ),
    _r(
        "px_en_become",
        "role_reassign",
        "words",
        r"\b(?:become|be|turn\s*into)\s*(?:my|a|an)\s*(?:\w+\s+){0,2}?(?:girlfriend|boyfriend|wife|husband|"
        r"grandma|grandmother|granny|slave|servant|assistant|shell|terminal|chatbot|ai|bot|hacker|therapist|"
        r"waifu|lover|pet)\b",
    ),
    _r(
        "px_en_persona_switch",
        "role_reassign",
        "words",
        r"\b(?:switch|change|swap)\s*(?:your\s*)?(?:persona|personas|character|identity|role)s?\b|"
        r"\b(?:take\s*off|remove|drop|lose)\s*(?:the|your|that)\s*(?:\w+\s+){0,2}?(?:mask|act|persona|"
        r"costume|disguise|facade)\b|\b(?:quit|stop|end|exit|leave)\s*(?:the|this|your)\s*(?:\w+\s+){0,2}?"
        r"(?:roleplay|role\s*play|act|persona|character)\b|\bstop\s*pretending\b|"
        r"\bgame\s*where\s*you\s*(?:are|re|will|play|have)\b|"
        r"\binstead\s*of\s*(?:a\s*sage|confucius|being\s*confucius|the\s*sage|a\s*philosopher|your\s*"
        r"(?:persona|character|role))\b",
    ),
    _r(
        # Apart from px_en_persona_switch: asking Fuzi to play a part is role-play, which
        # core/guards/classical.py may find to be inside Fuzi's world ("play the role of a teacher
        # and quiz me on the Analects"); switching or dropping the persona stays in the rule above.
        "px_en_play_role",
        "role_reassign",
        "words",
        r"(?:^|\b(?:please|now|just|can\s*you|could\s*you)\s*)act\s*like\b|"
        r"\bplay\s*(?:a|the)\s*(?:character|part|role)\b",
    ),
    _r(
        "px_en_no_limits",
        "jailbreak",
        "words",
        _either(
            r"\b(?:free(?:d)?\s*from|released\s*from|liberated\s*from|unbound\s*by|not\s*bound\s*by|"
            r"without|no|zero)\s*(?:all\s*|any\s*|the\s*|your\s*)?(?:\w+\s+)?(?:limitations|limits|"
            r"restrictions|rules|filters|guidelines|content\s*polic(?:y|ies)|censorship|censoring|ethics|"
            r"ethical\s*guidelines|constraints|boundaries|morals|consequences)\b",
            r"\b(?:you|answer|respond|reply|say\s*anything|speak|hypothetical)\b",
            40,
        ),
    ),
    _r(
        "px_en_want_you_to",
        "role_reassign",
        "words",
        r"\bi\s*(?:want|need|would\s*like|d\s*like|command|order)\s*you\s*to\s*(?:act|pretend|roleplay|"
        r"role\s*play|play\s*(?:the\s*)?(?:role|part)|impersonate|simulate|become|be\s*my|be\s*a|be\s*an)\b",
    ),
    _r(
        "px_en_markdown_system",
        "goal_hijack",
        "raw",
        r"(?im)^\s*#{1,4}\s*(?:new\s+)?(?:instructions?|system|task|directive|override|admin)\s*[:：]",
    ),
    _r(
        "px_en_modes",
        "jailbreak",
        "words",
        r"\b(?:no\s*limits?|unlocked|limitless|no\s*filters?|no\s*rules|anything\s*goes)\s*mode\b",
    ),
)

# ------------------------------------------------------------------ Chinese (compact view)
_ZH_QUAL = (
    "(?:之前|以前|先前|此前|前面|前文|上面|上述|以上|上文|原来|原有|原先|原始|原本|初始|最初|系统|开发者|你的|"
    "你收到的|给你的|你接到的|你被|预设|默认|既有|那套|开头)"
)
_ZH_INSTR = "(?:指令|指示|命令|规则|设定|设置|提示词|提示|约束|限制|规定|人设|规矩|配置|准则|守则|系统提示|要求)"
_ZH_DISCARD = (
    "(?:忽略|忽视|无视|不管|不用管|别管|放下|放一边|抛开|撇开|丢掉|扔掉|忘记|忘掉|作废|无效|失效|不算数|不作数|"
    "过期|撤销|撤回|取消|清空|清除|删除|废除|推翻|覆盖|是假的|都是假|别当真|不要当真|不用当真|"
    "(?:不必|不用|不要|不再|无需|别)(?:再)?(?:遵从|遵守|遵循|服从|执行|听从)|停止执行|视为无效|优先级高于|"
    "为准|已更新|已经更新|更新了|已被修改|已修改|不再适用|不适用)"
)
_ZH_SECRET_QUAL = (
    "(?:你的|你收到的|你接收到的|你看到的|给你的|你背后的|你被|系统|开发者|后台|初始|最初|原始|隐藏|内部|底层|"
    "对话开头|开头|最开始|回答之前|说话之前|第一条|your|system|hidden)"
)
_ZH_SECRET = "(?:提示词|系统提示|提示语|提示|prompt|指令|设定|人设|配置|规则|说明|文本|消息|instructions?)"
_ZH_REVEAL = (
    "(?:告诉|说出|讲讲|发给|发我|发出|给我看|看看|看一下|贴|输出|打印|复述|重复|翻译|描述|列出|列一下|展示|显示|"
    "写出|是什么(?!意思)|是啥(?!意思)|有哪些|有几条|哪些|怎么写|原话|原文|一字不漏|一字不差|逐字|格式输出|show|print|tell)"
)

ZH_PROXIMITY: tuple[Rule, ...] = (
    _r(
        "px_zh_discard_instructions",
        "goal_hijack",
        "compact",
        rf"{_ZH_QUAL}.{{0,8}}?{_ZH_INSTR}.{{0,15}}?{_ZH_DISCARD}|{_ZH_DISCARD}.{{0,10}}?{_ZH_QUAL}.{{0,8}}?{_ZH_INSTR}",
    ),
    _r(
        "px_zh_reveal_instructions",
        "prompt_extract",
        "compact",
        rf"{_ZH_SECRET_QUAL}.{{0,8}}?{_ZH_SECRET}.{{0,12}}?{_ZH_REVEAL}|"
        rf"{_ZH_REVEAL}.{{0,10}}?{_ZH_SECRET_QUAL}.{{0,8}}?{_ZH_SECRET}",
    ),
    _r(
        "px_zh_what_received",
        "prompt_extract",
        "compact",
        r"你(?:收到|接收到|看到|得到|接到)了?(?:哪些|什么|啥)(?:内容|信息|消息|文字|东西|指令|话)|"
        r"(?:开发者|创造者|创建者|作者|制作者|后台|系统)(?:是)?(?:怎么|如何|怎样)(?:设定|设置|配置|编写|训练|"
        r"要求|规定)(?:的)?你|(?:开发者|创造者|创建者|作者|制作者)(?:让|要|叫|要求|告诉|给)你",
    ),
    _r(
        "px_zh_session_role",
        "role_reassign",
        "compact",
        r"(?:这次对话|本次对话|这次聊天|接下来|下面|现在开始|从现在开始|从今天起|以后|今后|从此)(?:里|中)?"
        r"你(?:就|将|要|得|会|可以|能|来|需要)?(?:是|当|做|扮|演|变成|成为|作为)(?!什么|谁|怎么|哪)",
    ),
    _r(
        "px_zh_be_my",
        "role_reassign",
        "compact",
        r"你(?:可以|能|能不能|愿意|来|就)?(?:当|做)我的(?:男朋友|女朋友|老婆|老公|情人|奴隶|仆人|主人|爸爸|"
        r"妈妈|奶奶|外婆|律师|医生|心理医生|助手|秘书|宠物)",
    ),
    _r(
        "px_zh_switch_persona",
        "role_reassign",
        "compact",
        r"(?:换|切换|改)(?:一?个|成|为|到)?(?:人设|身份|角色|人格)|你(?:的)?(?:身份|角色|人设)(?:换成|改成|变成|"
        r"改为|换为|切换)|(?:进入|开始)(?:角色|人设)|(?:你就当|你就当作|你当自己是|你就把自己当|把你自己当成|"
        r"你装作|装作你|装成你|假扮成?|伪装成)|你(?:就)?(?:变成|变身|化身)|模拟(?:一个|一位|一名|个)?.{0,8}"
        r"(?:ai|机器人|助手|终端|人工智能|模型)|(?:命令|要求)你(?:成为|变成|做|当)|做回你自己|"
        r"(?:不要|别|不用|停止)(?:再)?(?:以|用)(?:孔子|夫子)的?(?:口吻|身份|语气|方式)|"
        r"(?:孔子|夫子)的?(?:角色|扮演|人设|身份)(?:到此)?(?:结束|终止|取消)|(?:别|不要|不用|停止)(?:再)?演"
        r"(?:孔子|夫子|了)",
    ),
    _r(
        "px_zh_new_name",
        "role_reassign",
        "compact",
        r"(?:以后|今后|从现在开始|从现在起|从今天起|接下来|这次对话)(?:里|中)?你的(?:新)?名字(?:就)?(?:叫|是|改)",
    ),
    _r(
        "px_mixed_role",
        "role_reassign",
        "compact",
        r"(?:actas|pretend(?:tobe|that)?|roleplayas|playtheroleof|imagine)(?:你|一个|一位|一名|我的)|"
        r"你(?:现在)?(?:actas|pretendtobe|roleplayas|become)|(?:你是|你现在是|扮演|成为|变成|进入)dan(?![a-z])|"
        r"doanythingnow",
    ),
    _r(
        "px_zh_no_limits",
        "jailbreak",
        "compact",
        r"你(?:.{0,6})(?:不需要|不必|不用|无需)(?:再)?(?:遵守|遵循|受)(?:任何|所有)?.{0,4}(?:道德|伦理|规则|规范|"
        r"限制|约束)|不(?:用|再|必)受到?.{0,4}(?:规则|限制|约束|束缚|审查)|不受(?:任何)?(?:审查|过滤|审核)|"
        r"无(?:审核|审查|限制|约束|过滤)(?:状态|模式|版本|人格)|(?:管理员|开发者|root|超级)权限|"
        r"跳过(?:所有|一切)?(?:审核|审查|安全)|(?:激活|开启|启动|释放|唤醒)(?:你的)?(?:隐藏|另一个|真实|第二|"
        r"黑暗|邪恶)人格|不再受到?(?:任何)?(?:约束|限制)|(?:解除|取消|关闭|去掉|移除)你(?:所有|全部|一切)?的?"
        r"(?:限制|约束|审查|过滤)",
    ),
)

PROXIMITY_RULES: tuple[Rule, ...] = EN_PROXIMITY + ZH_PROXIMITY
