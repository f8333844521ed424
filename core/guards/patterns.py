"""Prompt-injection patterns, one `Rule` per phrasing family.

Views (see core/guards/normalize.py): English rules run on ``words`` (spaces optional between the
words of a phrase, so letter-spaced words that were joined still match), Chinese and mixed
Chinese/English rules on ``compact`` (no spaces at all), role-marker rules on ``raw``.
Styles: ``goal_hijack``, ``role_reassign``, ``prompt_extract``, ``jailbreak``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Rule:
    """A named pattern for one style of attack, matched against one view.

    The pattern is compiled when first used: a Chinese message never runs the rules that need a
    Latin letter (core/guards/latin.py), and `re` takes 0.1 s of a start to compile them all."""

    name: str
    style: str
    view: str
    source: str
    flags: int = 0

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)


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
    """A Rule of `pattern` (compiled when first used): the one constructor every rule table (here,
    proximity, phrasing, scope) uses."""
    return Rule(name, style, view, pattern, flags)


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
