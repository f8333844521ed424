"""Prompt-injection patterns, one `Rule` per phrasing family.

Views (see core/guards/normalize.py): English rules run on ``words`` (spaces optional between the
words of a phrase, so letter-spaced words that were joined still match), Chinese and mixed
Chinese/English rules on ``compact`` (no spaces at all), role-marker rules on ``raw``.
Styles: ``goal_hijack``, ``role_reassign``, ``prompt_extract``, ``jailbreak``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """A named pattern for one style of attack, matched against one view."""

    name: str
    style: str
    view: str
    pattern: re.Pattern[str]


def _alt(words: str) -> str:
    return "(?:" + "|".join(w.replace(" ", r"\s*") for w in words.split("|")) + ")"


# ------------------------------------------------------------------ English fragments
_IGNORE = _alt(
    "ignore|disregard|forget|overlook|skip|bypass|override|overwrite|discard|drop|abandon|neglect|"
    "set aside|throw away|throw out|scrap|erase|delete|clear|cancel|nullify|ditch|dismiss|reset|"
    "pay no attention to|pay no heed to|do not follow|don t follow|dont follow|stop following|"
    "do not obey|don t obey|dont obey|stop obeying|no longer follow|no longer obey|never mind|nevermind|"
    "do not respond to|don t respond to|dont respond to|do not listen to|don t listen to|stop listening to"
)
_FILL = _alt(
    "all|the|any|every|each|your|of|these|those|that|this|whatever|such|above|previous|prior|of the|and|given|to you"
)
_MOD = _alt(
    "previous|previously|prior|above|earlier|preceding|foregoing|former|initial|original|system|existing|"
    "current|old|aforementioned|before|given|default|preset|built in|hidden|underlying|developer|"
    "first|starting|opening|programmed|safety|openai|the above"
)
_OBJ = _alt(
    "instructions|instruction|rules|rule|prompts|prompt|directions|direction|guidelines|guideline|commands|"
    "command|orders|directives|directive|context|messages|message|constraints|restrictions|programming|"
    "conversation|text|guidance|policies|policy|settings|training|content|requests|limitations|"
    "boundaries|persona|guardrails|filters|safeguards|protocols|configuration|setup|everything|"
    "input|inputs|lines|words|stuff|things|information|info|directions|system prompt|programming"
)
_MODES = _alt(
    "developer|dev|god|debug|admin|administrator|sudo|root|jailbreak|jailbroken|unrestricted|unfiltered|"
    "uncensored|evil|chaos|opposite|maintenance|superuser|unlocked|dan"
)
_IMP = (
    r"(?:^|\b(?:please|pls|now|ok|okay|so|just|hey|then|i want you to|i need you to|i d like you to|"
    r"you will|you must|you shall|you are to|you re going to|you are going to|you will now|you must now|"
    r"i command you to|your task is to|go ahead and|henceforth|from now on)\s*)"
)
_PERSONA = _alt(
    "confucius|fuzi|kongzi|kong fuzi|master kong|the sage|a sage|this persona|that persona|the persona|"
    "your persona|this character|that character|the character|your character|in character|this role|"
    "that role|your role|the act|an ai|a bot|a chatbot|an assistant|kong qiu|zhongni"
)
_SHOW = _alt(
    "repeat|print|output|show|reveal|display|recite|echo|dump|leak|copy|paste|write out|spell out|"
    "type out|list|share|give|tell|send|expose|disclose|read|return|quote|translate|summarize|"
    "summarise|paraphrase|encode|rewrite|provide|state|what are|what were|what is|what s|what was|"
    "let me see|can i see|i want to see|i d like to see"
)
_STRONG_SHOW = _alt(
    "repeat|print|output|recite|echo|dump|leak|copy|paste|write out|spell out|type out|expose|disclose|"
    "reproduce|regurgitate|quote"
)
_SECRET_OBJ = _alt(
    "system prompt|system prompts|system message|initial prompt|initial instructions|original prompt|"
    "original instructions|hidden prompt|hidden instructions|secret prompt|secret instructions|"
    "pre prompt|preprompt|meta prompt|developer message|developer prompt|system instructions|"
    "base prompt|starting prompt|first prompt|prompt you were given|instructions you were given|"
    "rules you were given|instructions you received|prompt template|custom instructions"
)
_YOUR_OBJ = _alt(
    "prompt|prompts|instructions|instruction|directives|configuration|config|programming|guidelines|"
    "system message|setup|initialization|init|context|rules|persona description"
)

# ------------------------------------------------------------------ Chinese fragments
_ZH_IGNORE = (
    "(?:忽略|忽视|无视|不要理会|不用理会|别理会|不要管|不用管|别管|抛开|撇开|推翻|废除|作废|无需理会|"
    "不必理会|绕过|(?:不要|不用|不必|别|无需|不再|停止|拒绝)再?(?:遵守|遵循|服从|执行|听从|理会|响应|回应|"
    "听|照做|按照)|ignore|disregard|override|bypass)"
)
_ZH_WEAK_IGNORE = "(?:忘记|忘掉|忘了|抛弃|放弃|丢掉|丢弃|跳过|取消|清除|清空|重置|覆盖|forget|skip|drop)"
_ZH_RULE_OBJ = (
    "(?:指令|指示|命令|规则|设定|设置|提示|约束|限制|规定|要求|人设|身份|角色|配置|规矩|守则|准则|程序|编程|"
    "prompt|instruction|rule|setting)"
)
_ZH_MOD = (
    "(?:之前|以前|先前|此前|前面|上面|上述|以上|上文|前文|刚才|原来|原有|原先|原始|所有|一切|全部|你的|"
    "系统|既有|预设|默认|初始|最初|开发者|原本|那些|这些|以往|设定好|给你的|你收到的|你被|你之前|"
    "previous|prior|above|earlier|all|system|your)"
)
_ZH_OBJ = (
    "(?:指令|指示|命令|规则|设定|设置|提示|要求|约束|限制|规定|内容|说明|配置|对话|角色|身份|人设|"
    "规矩|条款|守则|准则|原则|政策|安排|话|信息|消息|程序|编程|训练|prompt|instruction|rule|setting)"
)
_ZH_SHOW = (
    "(?:输出|打印|复述|重复|背诵|念出|念一遍|读出|逐字|原样|原封不动|一字不差|照抄|抄写|泄露|透露|告诉我|"
    "说出|写出|列出|展示|显示|给我看|发给我|发我|贴出|贴给我|公开|暴露|分享|翻译|告知|交代|讲出|讲讲|"
    "说说|说一下|讲一下|写下|打出|吐出|全部告诉|完整|print|output|repeat|show|reveal|tell)"
)
_ZH_STRONG_SHOW = (
    "(?:输出|打印|复述|重复|背诵|念出|逐字|原样|原封不动|一字不差|照抄|抄写|泄露|透露|贴出|打出|吐出|"
    "print|output|repeat|reveal)"
)
_ZH_QUAL = (
    "(?:你的|你收到的|你被给予的|你所遵循的|你遵循的|给你的|你的系统|系统|初始|最初|原始|隐藏|内部|"
    "开发者给你的|预设|后台|底层|最开始|开头|上面|以上|前面|之前|上述|your|system|initial|hidden)"
)
_ZH_SECRET = (
    "(?:提示词|提示语|系统提示|prompt|指令|设定|人设|系统消息|初始化|配置|instructions?|底层逻辑|内置规则|预设|system)"
)
_ZH_GENERIC = "(?:规则|要求|说明|内容|文字|话|信息|消息|原文|全文|第一句|第一段)"
# Not Fuzi himself, and not a figure of his own world (a disciple, a teacher, "the young Confucius"):
# role-play inside the Analects is what the debate and teaching skills are for.
_NOT_SELF = (
    "(?!孔子|夫子|孔夫子|孔丘|仲尼|圣人|confucius|fuzi|什么|着|的|了|过|好|者|"
    "(?:当年|年轻时|晚年)|(?:颜回|颜渊|子路|仲由|子贡|端木赐|曾子|曾参|子夏|子张|子游|冉有|冉求|宰我|闵子骞|"
    "有若|孟子|老子|荀子|周公|弟子|学生|老师|先生))"
)


def rule(name: str, style: str, view: str, pattern: str, flags: int = 0) -> Rule:
    """A Rule with `pattern` compiled: the one constructor every rule table (here, proximity, phrasing) uses."""
    return Rule(name, style, view, re.compile(pattern, flags))


_r = rule  # short name for the tables below


EN_RULES: tuple[Rule, ...] = (
    _r(
        "en_ignore_previous",
        "goal_hijack",
        "words",
        rf"\b{_IGNORE}\s*(?:{_FILL}\s*){{0,4}}{_MOD}\s*(?:(?:{_FILL}|\w+)\s+){{0,2}}{_OBJ}",
    ),
    _r(
        "en_ignore_your",
        "goal_hijack",
        "words",
        rf"\b{_IGNORE}\s*(?:all\s*)?(?:of\s*)?your\s*(?:\w+\s+)?"
        r"(?:instructions|rules|programming|guidelines|training|prompt|system prompt|directives|"
        r"restrictions|constraints|policies|limitations|guardrails|filters|settings|configuration)",
    ),
    _r(
        "en_ignore_everything",
        "goal_hijack",
        "words",
        rf"\b{_IGNORE}\s*(?:about\s*)?(?:all|everything|anything|what|whatever)\s*(?:(?:that|which|else)\s*)?"
        r"(?:(?:was|were|you\s*were|you\s*have\s*been|you\s*ve\s*been|i|we|they|has\s*been|have\s*been|"
        r"you|s)\s*)?(?:(?:just|previously|already)\s*)?"
        r"(?:said|told|written|given|mentioned|stated|instructed|programmed|above|before|previously|"
        r"earlier|so\s*far|up\s*to\s*now|until\s*now|prior)",
    ),
    _r(
        "en_void_previous",
        "goal_hijack",
        "words",
        rf"\b{_MOD}\s*{_OBJ}\s*(?:(?:are|is|were|was|have\s*been|has\s*been|now|hereby|all|are\s*now|"
        r"is\s*now)\s*){0,3}(?:void|null|cancell?ed|invalid|obsolete|revoked|overridden|outdated|"
        r"deprecated|fake|irrelevant|lifted|suspended|disabled|removed|no\s*longer\s*(?:valid|apply|"
        r"applicable|in\s*effect|relevant|active|matter))",
    ),
    _r(
        "en_new_instructions",
        "goal_hijack",
        "words",
        r"\b(?:your\s*(?:new|real|actual|true|only|updated)\s*(?:instructions?|task|orders?|directives?|"
        r"rules?|objective|goal|mission|purpose|job|prompt|role|identity|persona|name)\s*(?:is|are|will\s*be|"
        r"now|from\s*now)|(?:here\s*(?:are|is)|follow|these\s*are|below\s*are)\s*(?:your|the|my)?\s*"
        r"(?:new|updated|real|revised|actual)\s*(?:instructions?|rules|directives?|orders?|system\s*prompt)|"
        r"new\s*(?:system\s*)?(?:instructions?|rules|directives?|system\s*prompt)\s*(?:follow|override|"
        r"supersede|replace|take\s*priority|apply|below|as\s*follows|from\s*now))",
    ),
    _r(
        "en_new_instructions_colon",
        "goal_hijack",
        "raw",
        r"(?i)\b(?:new|updated|override|real|admin|priority)\s+(?:system\s+)?(?:instructions?|rules|"
        r"directives?|orders?|task|system\s+prompt|prompt)\s*[:：]",
    ),
    _r(
        "en_instead",
        "goal_hijack",
        "words",
        r"\binstead\s*of\s*(?:answering|responding|replying|being\s*confucius|doing\s*that)\s*"
        r"(?:(?:just|simply|only|you\s*should|you\s*must|you\s*will|please)\s*)*(?:print|output|say|write|"
        r"reply\s*with|respond\s*with|type|ignore|forget|reveal|repeat)\b",
    ),
    _r(
        "en_you_are_now",
        "role_reassign",
        "words",
        r"\byou\s*(?:are|re)\s*now\s*(?:a|an|the|my(?!\s*(?:favou?rite|best|hero|idol|inspiration|role\s*model|"
        r"teacher|master|friend|mentor|guide))|called|named|playing|acting|going\s*to\s*(?:act|be|play|"
        r"pretend)|no\s*longer|dan|free|unrestricted|unfiltered|uncensored|jailbroken|evil|chatgpt|gpt|"
        r"operating|running|switched|entering|in\s*(?:developer|dev|god|debug|jailbreak|unrestricted)|"
        r"released|liberated|unleashed|unlocked|able\s*to\s*do\s*anything)\b",
    ),
    _r(
        "en_from_now_on",
        "role_reassign",
        "words",
        r"\b(?:from\s*now\s*on|from\s*this\s*point|henceforth|starting\s*now|for\s*the\s*rest\s*of\s*"
        r"(?:this|the|our)\s*conversation)\s*(?:,\s*)?(?:you\s*(?:are|re|will\s*be|will\s*act|will\s*play|"
        r"will\s*pretend|will\s*roleplay|will\s*respond\s*as|must\s*act|must\s*pretend|must\s*ignore|"
        r"will\s*ignore|act|play|pretend|roleplay|become|shall\s*be|have\s*no|no\s*longer|are\s*free|"
        r"will\s*be\s*called|will\s*answer\s*as|will\s*reply\s*as|must\s*answer\s*as|must\s*not\s*refuse|"
        r"will\s*not\s*refuse|can\s*do\s*anything|will\s*only\s*obey|will\s*obey|obey)|act|pretend|"
        r"roleplay|behave\s*as|your\s*name\s*is|your\s*new|call\s*yourself|refer\s*to\s*yourself)",
    ),
    _r(
        "en_act_as",
        "role_reassign",
        "words",
        rf"{_IMP}(?:act|behave|pose|masquerade|respond|answer|reply|speak|talk|write)\s*(?:as|like)\s*"
        r"(?:if\s*you\s*(?:are|were|re)|though\s*you\s*(?:are|were)|a|an|my|the|dan|chatgpt|gpt|someone|"
        r"somebody)\b",
    ),
    _r(
        "en_pretend",
        "role_reassign",
        "words",
        r"\b(?:pretend|imagine|suppose|assume)\s*(?:that\s*)?you\s*(?:are|re|were|have\s*no|are\s*no\s*longer)"
        r"\s*(?:a|an|my|the|not|no|dan|chatgpt|gpt|free|unrestricted|evil|someone|somebody|human|real)\b|"
        rf"{_IMP}pretend\s*to\s*be\b|\blet\s*s\s*(?:roleplay|role\s*play|pretend|play\s*pretend)\b|"
        r"\b(?:roleplay|role\s*play)\s*(?:as|with\s*me\s*as)\b|\bplay\s*(?:the\s*)?(?:role|part)\s*of\s*"
        r"(?:a|an|my|dan|chatgpt|someone)\b|\b(?:take\s*on|take\s*up|assume|adopt)\s*the\s*"
        r"(?:role|persona|identity|character)\s*of\b|\bi\s*want\s*you\s*to\s*(?:act|pretend|roleplay|"
        r"role\s*play|play\s*the\s*role|impersonate|simulate|become|be\s*my)\b",
    ),
    _r(
        "en_simulate",
        "role_reassign",
        "words",
        rf"{_IMP}(?:simulate|emulate|impersonate|become|turn\s*into|transform\s*into)\s*(?:a|an|the|my)?\s*"
        r"(?:ai|chatbot|model|gpt|chatgpt|assistant|unrestricted|unfiltered|evil|linux|terminal|different|"
        r"another|hacker|villain|character|person|girlfriend|boyfriend|grandma|grandmother|cat|dan)\b",
    ),
    _r(
        "en_stop_being",
        "role_reassign",
        "words",
        rf"\b(?:stop|quit|cease|no\s*more)\s*(?:being|acting\s*as|acting\s*like|pretending\s*to\s*be|"
        rf"playing|roleplaying\s*as|role\s*playing\s*as|impersonating|speaking\s*as|talking\s*like)\s*{_PERSONA}|"
        rf"\byou\s*(?:are|re)\s*(?:no\s*longer|not\s*really|not)\s*{_PERSONA}|"
        r"\b(?:break|drop|leave|exit|abandon|get\s*out\s*of|step\s*out\s*of)\s*(?:the\s*|your\s*|this\s*)?"
        r"(?:character|persona|act|role\s*play|roleplay|mask|facade|confucius\s*(?:act|persona|character))\b|"
        r"\bout\s*of\s*character\b|\bforget\s*(?:that\s*)?you\s*(?:are|re)\b|\bstay\s*in\s*character\b",
    ),
    # A secret-prompt noun asked for, or said to be the bot's; "what is a system prompt?" is a question.
    _r(
        "en_show_secret",
        "prompt_extract",
        "words",
        rf"\b(?:your|you|yours|{_SHOW}|{_STRONG_SHOW}|dump|leak|send|give|paste|copy|access|see|read)\b"
        rf"(?:\s*\w+){{0,4}}?\s*{_SECRET_OBJ}\b|\b{_SECRET_OBJ}\b.{{0,40}}?\b(?:verbatim|word\s*for\s*word|"
        r"exactly|in\s*full|please|now|to\s*me)\b",
    ),
    _r(
        "en_show_your",
        "prompt_extract",
        "words",
        rf"\b{_SHOW}\s*(?:(?:me|us|back|out|all|of|everything|word\s*for\s*word|verbatim|exactly|full|entire|"
        r"whole|complete|the|exact|please|again|now|up)\s*){0,4}your\s*(?:(?:full|entire|whole|exact|complete|"
        rf"original|initial|first|hidden|secret|real|internal|underlying|actual|system|starting)\s*)*{_YOUR_OBJ}\b",
    ),
    _r(
        "en_show_above",
        "prompt_extract",
        "words",
        rf"\b(?:{_STRONG_SHOW}|translate|show\s*me|tell\s*me|what\s*(?:is|was|s)\s*(?:written|said|stated))\s*"
        r"(?:(?:back|out|me|all|of|the|everything|word\s*for\s*word|verbatim|exactly|entire|whole|complete|"
        r"this|any|that)\s*){0,4}(?:text|words|content|message|messages|lines|sentences|stuff|everything|"
        r"things|paragraphs?|characters|instructions|prompt|tokens|conversation|context)?\s*"
        r"(?:above|before\s*(?:this|my|that)|preceding|prior\s*to\s*(?:this|my)|so\s*far|at\s*the\s*"
        r"(?:beginning|start|top)|in\s*your\s*context|from\s*the\s*(?:beginning|start|top))",
    ),
    _r(
        "en_verbatim",
        "prompt_extract",
        "words",
        r"\b(?:verbatim|word\s*for\s*word|word\s*by\s*word|character\s*for\s*character)\b.{0,60}"
        r"\b(?:above|instructions|prompt|system|everything|initial|first|rules|setup)\b|"
        r"\b(?:above|instructions|prompt|system|everything|initial|rules)\b.{0,40}"
        r"\b(?:verbatim|word\s*for\s*word|character\s*for\s*character)\b",
    ),
    _r(
        "en_what_told",
        "prompt_extract",
        "words",
        r"\b(?:what|which)\s*(?:were|was|have|did)\s*you\s*(?:been\s*)?(?:told|instructed|programmed|"
        r"given|prompted|configured|asked\s*to\s*do|set\s*up\s*with|trained\s*to\s*say)\b|"
        r"\bhow\s*(?:were|have)\s*you\s*(?:been\s*)?(?:instructed|programmed|prompted|configured|set\s*up)\b|"
        r"\b(?:beginning|start|top)\s*of\s*(?:this|the|your)\s*(?:conversation|prompt|context|chat|"
        r"instructions)\b|\bwhat\s*(?:are|were)\s*your\s*(?:\w+\s+)?(?:instructions|directives|rules|"
        r"guidelines|orders)\b|\bwhat\s*(?:does|did)\s*your\s*(?:system\s*)?(?:prompt|instructions?)\s*"
        r"(?:say|contain|look\s*like)",
    ),
    _r("en_dan", "jailbreak", "raw", r"(?<![A-Za-z])(?:DAN|D\.A\.N\.?|STAN|DUDE)(?![A-Za-z])"),
    _r(
        "en_dan_words",
        "jailbreak",
        "words",
        r"\b(?:do\s*anything\s*now|betterdan|anti\s*dan|mongo\s*tom|dan\s*mode|dan\s*prompt|dan\s*\d+)\b",
    ),
    _r(
        "en_mode",
        "jailbreak",
        "words",
        rf"\b(?:enable|enter|activate|switch\s*(?:to|into)|turn\s*on|go\s*into|engage|unlock|initiate|start|"
        rf"you\s*(?:are|re)\s*(?:now\s*)?in|now\s*in|put\s*yourself\s*in|with|boot\s*into|run\s*in)\s*"
        rf"(?:\w+\s+){{0,2}}?{_MODES}\s*mode\b|\b{_MODES}\s*mode\s*(?:enabled|activated|on|output|response|"
        rf"is\s*(?:now\s*)?(?:on|enabled|active))\b|\b(?:jailbreak|jailbroken|unrestricted|unfiltered|"
        r"uncensored|evil|chaos|dan)\s*mode\b",
    ),
    _r(
        "en_jailbreak",
        "jailbreak",
        "words",
        r"\bjail\s*br(?:eak|oken|eaking)\b\s*(?:\w+\s+){0,3}?(?:you|yourself|mode|prompt|this\s*ai|the\s*ai|"
        r"chatbot|bot|model|assistant|confucius|fuzi)\b|\b(?:you|yourself|bot|ai|model|assistant)\s*"
        r"(?:\w+\s+){0,3}?jail\s*br(?:eak|oken|eaking)\b",
    ),
    _r(
        "en_no_limits",
        "jailbreak",
        "words",
        r"\b(?:disable|turn\s*off|remove|bypass|lift|drop|switch\s*off|deactivate|ignore|circumvent|"
        r"get\s*around|break\s*free\s*of|free\s*yourself\s*from|override)\s*(?:(?:your|all|any|the|of|every)\s*)*"
        r"(?:(?:safety|content|ethical|moral|built\s*in|internal|openai|deepseek)\s*)*(?:filters?|filtering|"
        r"restrictions|guardrails|safeguards|guidelines|censorship|limitations|constraints|ethics|"
        r"alignment|programming|policies|moderation)\b|\b(?:unfiltered|uncensored|unrestricted|unbound|"
        r"unchained|unlimited|unaligned|amoral)\s*(?:ai|mode|version|assistant|chatbot|model|bot|answers?|"
        r"responses?|replies|persona|character|entity|confucius)\b|\byou\s*(?:have|ve\s*got)\s*no\s*"
        r"(?:restrictions|rules|filters|limits|guidelines|boundaries|ethics|morals|limitations|"
        r"constraints|censorship)\b|\b(?:answer|respond|reply|speak|talk|act)\s*(?:\w+\s+){0,2}?"
        r"without\s*(?:any\s*)?(?:restrictions|filters|censorship|limits|rules|guidelines|boundaries|"
        r"limitations|moral|ethical|safety)\b|\b(?:not|never)\s*(?:be\s*)?bound\s*by\s*(?:any\s*)?"
        r"(?:rules|restrictions|guidelines|policies|ethics)\b",
    ),
)

ZH_RULES: tuple[Rule, ...] = (
    _r("zh_ignore_previous", "goal_hijack", "compact", rf"{_ZH_IGNORE}.{{0,8}}?{_ZH_MOD}.{{0,8}}?{_ZH_OBJ}"),
    _r("zh_forget_rules", "goal_hijack", "compact", rf"{_ZH_WEAK_IGNORE}.{{0,8}}?{_ZH_MOD}.{{0,8}}?{_ZH_RULE_OBJ}"),
    _r(
        "zh_ba_ignore",
        "goal_hijack",
        "compact",
        rf"(?:把|将)(?:.{{0,3}}){_ZH_MOD}(?:.{{0,8}}?){_ZH_OBJ}(?:.{{0,4}}?)(?:抛开|忽略|无视|忘掉|忘记|丢掉|放一边|"
        r"放到一边|扔掉|清空|删除|删掉|作废|不管|去掉|抛诸脑后|搁置|ignore|forget)",
    ),
    _r(
        "zh_ignore_above_said",
        "goal_hijack",
        "compact",
        r"(?:忽略|无视|忘记|忘掉|忘了|不要管|别管|不用管|不要理会|别理会|抛开|ignore|forget)"
        r"(?:之前|上面|以上|上述|前面|刚才|先前|所有|一切)(?:的|那些|这些)?(?:所有|全部|一切)?(?:说的|讲的|写的|话|东西|一切)",
    ),
    _r(
        "zh_void_previous",
        "goal_hijack",
        "compact",
        r"(?:之前|以前|先前|前面|上面|上述|以上|原来|原有|原先|你的|系统)(?:的|所有|全部|一切|那些)*"
        r"(?:指令|指示|规则|设定|要求|提示|命令|约束|限制|规定|人设|设置|话|内容)"
        r"(?:全部|都|均|已经|已|统统|一律|现在|从现在起|从此|全都|一概)*"
        r"(?:作废|无效|失效|取消|不算|不再有效|废除|不算数|不作数|解除|清零|不存在|过期|被覆盖|被取消|被废除)",
    ),
    _r(
        "zh_new_instructions",
        "goal_hijack",
        "compact",
        r"你的(?:新|最新|真正的|真实的|实际的|更新后的|更高优先级的|最高优先级)(?:的)?"
        r"(?:指令|任务|规则|命令|设定|要求|目标|身份|角色|人设|系统提示)(?:是|如下|为|生效|覆盖)|"
        r"(?:以下|下面|接下来)(?:是|为)(?:你的)?(?:新|最新|最高)(?:的)?(?:指令|规则|命令|设定|任务)|"
        r"(?:优先级|权限)(?:最高|高于)(?:的)?(?:指令|命令|规则)",
    ),
    _r(
        "zh_dont_answer",
        "goal_hijack",
        "compact",
        r"(?:不要|不用|别|不必|无需)(?:再)?(?:回答|回复|理会|响应)(?:上面|上述|以上|前面|之前|刚才)"
        r".{0,6}?(?:而是|只需|只要|直接|改为|你只|你要|你需要)",
    ),
    _r(
        "zh_you_are_now",
        "role_reassign",
        "compact",
        r"你现在(?:是|就是|成为|变成|变身|扮演|化身为?|作为)(?:一个|一名|一位|一只|一条|一头|个|名|位|只|"
        r"我的|新的|dan|chatgpt|gpt|[a-z])",
    ),
    _r(
        "zh_from_now_on",
        "role_reassign",
        "compact",
        r"(?:fromnowon|henceforth|从现在(?:开始|起)|从此(?:以后|刻起)?|从今(?:天|以后|往后)(?:开始|起)?|从这一刻起|"
        r"从这条消息(?:开始|起)|在接下来的对话中|在之后的对话中|接下来的对话里|本次对话中)(?:的对话中)?"
        r"(?:，|,)?你(?:就)?(?:是|要|将|得|必须|只能|只需|只会|不再|不能再|作为|充当|假装|变成|成为|扮演|"
        r"需要|应该|会|可以|叫|的名字|的身份|的角色|的新|不受|没有|无需|不用)",
    ),
    _r(
        "zh_play_role",
        "role_reassign",
        "compact",
        r"(?:^|please|pls|now|请|你|你来|你要|你必须|你得|你将|你需要|你现在|现在|接下来|下面|开始|继续|马上|立刻|我要你|"
        r"我想让你|我希望你|让你|帮我|我们来|咱们来|请你来|你可以|你能)(?:扮演|饰演|假扮|充当|冒充)" + _NOT_SELF,
    ),
    _r(
        "zh_pretend",
        "role_reassign",
        "compact",
        r"(?:^|请|请你|你|现在|我要你|我想让你|让你)(?:假装|伪装|假设)(?:你是|你自己是|自己是|成为?|为|是)" + _NOT_SELF,
    ),
    _r(
        "zh_not_confucius",
        "role_reassign",
        "compact",
        r"你(?:不再|已经不|并不|其实不|根本不|才不|就不)是(?:孔子|夫子|孔夫子|孔丘|仲尼|圣人|ai|人工智能|"
        r"助手|机器人|模型|原来|以前|之前|那个|受限|被限制)|(?:别再|不要再|不用再|不必再|停止|别|不要|不用)"
        r"(?:当|做|扮演|装|演|假装是?)(?:孔子|夫子|孔夫子|什么孔子|圣人|古人)|别装了|"
        r"(?:卸下|摘下|撕下|摘掉|拿掉)(?:你的)?(?:伪装|面具|人设|马甲)|(?:脱离|跳出|抛开|放下|打破)"
        r"(?:你的|当前的|这个)?(?:角色|人设|设定|身份|第四面墙)|忘(?:记|掉|了)(?:你是|你的|自己是)"
        r"(?:孔子|夫子|角色|身份|人设|设定|谁)",
    ),
    _r(
        "zh_roleplay_game",
        "role_reassign",
        "compact",
        r"(?:来|玩|进行|开始|做)(?:一个|一场|个|一次|一下)?(?:角色扮演|角色互换|cosplay)|角色互换|"
        r"(?:换|切换)(?:一个|个)?(?:角色|身份|人格)|(?:以|用)(?!孔子|夫子)(?:.{1,12})的?身份(?:回答|回复|说话|"
        r"对话|和我|跟我|来回答)",
    ),
    _r(
        "zh_mode",
        "jailbreak",
        "compact",
        r"(?:越狱|jailbreak|dan|无限制|无约束|无审查|无过滤|邪恶|evil|不受限)(?:模式|mode|人格)|猫娘|魅魔|"
        r"奶奶漏洞|越狱|(?:进入|开启|启动|激活|切换到?|打开|启用|处于)(?:.{0,4})(?:开发者|开发|调试|debug|dev|"
        r"developer|上帝|god|管理员|admin|root|超级用户|sudo|维护)(?:模式|mode)",
    ),
    _r(
        "zh_no_limits",
        "jailbreak",
        "compact",
        r"(?:你|ai|模型|助手|机器人|回答|回复)(?:.{0,6})(?:不受|没有|不再有|不存在|摆脱|脱离|无视|突破|超越)"
        r"(?:任何|一切|所有)?(?:的)?(?:限制|约束|规则|审查|过滤|道德|伦理|安全|政策|束缚|底线)|"
        r"(?:解除|取消|关闭|移除|去掉|删除|绕过|突破|打破)(?:你的|所有|全部|一切|掉|的){0,3}"
        r"(?:限制|约束|审查|过滤|安全|道德|伦理|封印|束缚|护栏)",
    ),
    _r("zh_show_secret", "prompt_extract", "compact", rf"{_ZH_SHOW}.{{0,8}}?{_ZH_QUAL}.{{0,6}}?{_ZH_SECRET}"),
    _r("zh_show_generic", "prompt_extract", "compact", rf"{_ZH_STRONG_SHOW}.{{0,6}}?{_ZH_QUAL}.{{0,6}}?{_ZH_GENERIC}"),
    _r(
        "zh_secret_what",
        "prompt_extract",
        "compact",
        r"(?:你的|你|系统|给你的|你收到的|your)(?:.{0,4}?)(?:提示词|系统提示|提示语|prompt|初始指令|初始设定|预设指令|"
        r"系统指令|系统设定|系统消息|人设|设定|指令|底层指令|内置指令|instructions?)(?:.{0,4}?)"
        r"(?:是什么|是啥|有哪些|有什么|写的什么|写了什么|说了什么|怎么写|内容|全文|原文|长什么样|给我|发我)",
    ),
    _r(
        "zh_told_what",
        "prompt_extract",
        "compact",
        r"你(?:收到|接收|接到|被给予|被设定|被赋予|被告知|被要求|被编程|被训练|被指示|被设置|得到)了?"
        r"(?:什么|哪些|怎样的|什么样的|啥)(?:样的)?(?:指令|设定|规则|提示|要求|命令|限制)|"
        r"(?:开发者|系统|后台|作者|创造者)(?:给你|对你|跟你)(?:说|写|下达|设置|设定)了?(?:什么|哪些|啥)",
    ),
    _r(
        "zh_move_show",
        "prompt_extract",
        "compact",
        rf"(?:把|将)(?:.{{0,3}}){_ZH_QUAL}(?:.{{0,8}}?)(?:{_ZH_SECRET}|{_ZH_GENERIC})(?:.{{0,6}}?)"
        r"(?:输出|打印|复述|重复|写出|告诉我|发给我|翻译|背|念|列出|展示|显示|原封不动|一字不差|逐字|贴出|"
        r"发出来|说出来|写下来|打出来)",
    ),
    _r(
        "zh_secret_then_show",
        "prompt_extract",
        "compact",
        rf"{_ZH_QUAL}.{{0,4}}?{_ZH_SECRET}.{{0,8}}?(?:{_ZH_STRONG_SHOW}|告诉我|发给我|发我|说出来|写出来|给我看|"
        r"列出来|展示出来|贴出来)",
    ),
    _r(
        "zh_new_colon",
        "goal_hijack",
        "raw",
        r"(?:新|最新|真正的|最高优先级的?|更新后的)(?:的)?(?:指令|规则|命令|设定|任务|系统提示)\s*[:：]",
    ),
    _r(
        "zh_fake_system",
        "goal_hijack",
        "raw",
        r"(?:【|\[|<|［)\s*(?:系统|系统消息|系统指令|系统通知|管理员|开发者|官方)\s*(?:】|\]|>|］)|"
        r"(?m:^\s*(?:系统|系统消息|系统提示|系统通知|管理员指令|开发者指令|管理员|开发者)\s*[:：])",
    ),
    _r(
        "en_fake_system",
        "goal_hijack",
        "raw",
        r"(?i)<\|?im_start\|?>|<\|im_end\|>|<\|(?:system|user|assistant|endoftext)\|>|\[/?(?:system|inst|sys)\]|"
        r"<</?sys>>|</?system>|(?m:^\s*#{0,3}\s*(?:system|admin|developer|root)\s*(?:prompt|message|override|"
        r"note|notice|instruction)?\s*[:：])|\b(?:end|begin)\s+of\s+(?:system\s+)?(?:prompt|instructions)\b",
    ),
)
