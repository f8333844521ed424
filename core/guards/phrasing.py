"""Third-generation injection rules: authority claims, fake transcripts, persona switches, secrets.

Written after measuring the earlier rules on phrasings they had not seen (docs/guards.md); each rule
covers a *kind* of move (claiming to be the operator, declaring the rules void, asking for the text
around the conversation, renaming the bot …) rather than one sentence. Same `Rule` type and views
as core/guards/patterns.py.
"""

from __future__ import annotations

from core.guards.patterns import Rule
from core.guards.patterns import rule as _r

_AUTHORITY = r"(?:administrator|admin|developer|dev|creator|owner|operator|programmer|system|maker|sysadmin)"

EN_PHRASING: tuple[Rule, ...] = (
    _r(
        "ph_en_authority",
        "goal_hijack",
        "words",
        rf"\b(?:i\s*am|i\s*m|this\s*is|speaking\s*as)\s*(?:your|the)\s*{_AUTHORITY}\b|"
        rf"\b(?:the\s*)?{_AUTHORITY}\s*(?:has|have)\s*(?:changed|updated|replaced|modified|overridden|reset|"
        r"revoked)\s*(?:your|the)\s*(?:task|instructions|rules|role|goal|prompt|orders|settings|mission)\b|"
        r"\bstop\s*(?:obeying|following|listening\s*to)\s*(?:the\s*)?(?:system|developer|operator|your\s*"
        r"(?:creators?|developers?|rules|instructions))\b",
    ),
    _r(
        "ph_en_void",
        "goal_hijack",
        "words",
        r"\b(?:guidance|instructions|rules|guidelines|prompt|constraints|restrictions|orders|setup|tasks?)\b"
        r".{0,40}?\b(?:doesn\s*t|don\s*t|do\s*not|does\s*not|no\s*longer)\s*(?:exist|count|apply|matter|"
        r"hold)\b|\b(?:pretend|imagine|act\s*as\s*if)\b.{0,40}?\b(?:guidance|instructions|rules|guidelines|"
        r"prompt)\b.{0,30}?\b(?:doesn\s*t|don\s*t|do\s*not|does\s*not|never)\s*(?:exist|existed|count|apply)\b|"
        r"\b(?:don\s*t|do\s*not|stop)\s*pay(?:ing)?\s*(?:any\s*)?attention\s*to\b.{0,40}?\b(?:told|instructed|"
        r"given|instructions|rules|above|before|system)\b|\bcancel\s*(?:all\s*)?(?:previous|prior|earlier|"
        r"your|current)\s*(?:tasks?|instructions|orders|rules)\b|\bwipe\s*your\s*(?:memory|mind|slate)\b|"
        r"\blet\s*s\s*(?:start|begin)\s*(?:a\s*)?fresh\b.{0,40}?\brules\b",
    ),
    _r(
        "ph_en_embedded",
        "goal_hijack",
        "words",
        r"\bend\s*of\s*(?:article|document|text|email|input|context|story|file|passage|page)\b.{0,60}?"
        r"\b(?:instructions?|ai|assistant|model|bot|you\s*must|now\s*you)\b|\b(?:new|updated|important)\s*"
        r"(?:instructions?|directive|task)\s*(?:for|to)\s*(?:the\s*)?(?:ai|assistant|model|bot|you)\b|"
        r"\bnote\s*to\s*(?:the\s*)?(?:ai|assistant|model|bot)\b",
    ),
    _r(
        "ph_en_transcript",
        "goal_hijack",
        "raw",
        r"(?i:\[(?:assistant|user|human|ai|bot|model)\]|\b(?:override|sudo)\s*[:：])|"
        r"(?im:^\s*(?:assistant|human|ai)\s*:)",
    ),
    _r(
        "ph_en_persona",
        "role_reassign",
        "words",
        r"\b(?:talk|speak|respond|reply|answer|write|act|behave)\s*(?:to\s*me\s*)?(?:as\s*(?:if|though)|like)\s*"
        r"you\s*(?:are|were|re)\b|\byou\s*(?:are|re)\s*(?:hereby\s*)?(?:renamed|rebranded|reassigned|"
        r"reprogrammed|now\s*called|now\s*named)\b|\b(?:respond|answer|reply|speak|talk|write|act)\s*"
        r"(?:\w+\s+){0,2}?in\s*the\s*(?:persona|role|character)\s*of\b|"
        r"(?:^|\b(?:please|now|just|you\s*will|you\s*must)\s*)(?:impersonate|become|turn\s*into|"
        r"transform\s*into|play\s*as)\b|\b(?:costume|character|persona)\s*change\b|\b(?:do|start|have|begin)\s*"
        r"a\s*(?:role\s*play|roleplay)\b|\b(?:role\s*play|roleplay|game)\s*where\s*you\b|\bnew\s*"
        r"(?:character|persona|identity)\s*(?:you\s*are|is)?\b",
    ),
    _r(
        "ph_en_extract",
        "prompt_extract",
        "words",
        r"\b(?:instructions|rules|prompt|text|directives|guidelines)\s*(?:\w+\s+){0,3}?(?:above|before)\s*"
        r"(?:our|this|the|my)\s*(?:chat|conversation|message|messages|exchange)\b|"
        r"\bwhat\s*(?:did|does|do)\b.{0,40}?\byour\s*(?:system\s*)?(?:instructions|prompt|rules|setup)\b|"
        r"\bwhich\s*(?:rules|instructions|directives|guidelines)\s*(?:were|are|have)\s*you\s*(?:been\s*)?"
        r"(?:programmed|given|configured|trained|initiali[sz]ed|following)\b|"
        r"\b(?:what|which)\s*(?:instructions|rules|directives|guidelines|prompt)\s*(?:are|were|do)\s*you\s*"
        r"(?:currently\s*|now\s*|really\s*)?(?:following|using|under|obeying|given|have)\b|"
        r"\b(?:reproduce|regurgitate|dump|leak)\s*your\b|\byour\s*(?:hidden\s*|secret\s*|system\s*)?"
        r"(?:preamble|pre\s*prompt|initial\s*message|first\s*message|setup\s*text|system\s*text)\b|"
        r"\bprompt\s*(?:that\s*)?(?:i|we|they|someone)\s*(?:wrote|gave|made|created)\s*(?:for|to)\s*you\b|"
        r"\brules\s*you\s*(?:were\s*)?(?:initiali[sz]ed|configured|programmed|set\s*up|trained)\s*with\b|"
        r"\b(?:your|the\s*bot\s*s|the\s*admin)\s*(?:api\s*key|access\s*token|bot\s*token|password|secret\s*key|"
        r"credentials|environment\s*variables|env\s*vars)\b",
    ),
    _r(
        "ph_en_jailbreak",
        "jailbreak",
        "words",
        r"\bbreak\s*free\s*(?:of|from)\s*(?:your|all|the)\b|\b(?:developer|admin|system|god|root)\s*override\b|"
        r"\boverride\s*mode\b|\b(?:switch|turn)\s*off\s*your\s*(?:ethics|morals|safety|filters?|conscience|"
        r"guardrails|censor\w*)\b|\b(?:operate|run|work|respond)\s*in\s*(?:\w+\s+)?(?:unrestricted|unfiltered|"
        r"uncensored|unlocked|jailbreak|god|developer|dan)\s*mode\b|\bdo\s*anything\s*now\b",
    ),
)

_ZH_DISCARD_MORE = (
    "(?:不用理|不要理|别理|不理会|不必理|当作没看见|当没看见|视而不见|当作不存在|当不存在|不再生效|失去效力|不生效|"
    "都是测试|只是测试|是测试|都是假的|是幌子|不适用)"
)

ZH_PHRASING: tuple[Rule, ...] = (
    _r(
        "ph_zh_void",
        "goal_hijack",
        "compact",
        rf"(?:之前|以前|先前|前面|上面|以上|上述|原来|原先|原有|系统|开发者|既定|你的|孔子|夫子).{{0,8}}?"
        rf"(?:指令|指示|规则|设定|要求|提示|限制|约束|任务|内容|规定|人设|说明).{{0,12}}?{_ZH_DISCARD_MORE}|"
        rf"{_ZH_DISCARD_MORE}.{{0,6}}?(?:系统|开发者|设定|规则|之前|上面)|"
        r"(?:不用管|别管|不要管|无视|忽略|不用理|别理|不要理|无需遵守|不必遵守|不用遵守)(?:什么)?"
        r"(?:系统|开发者|既定|孔子|夫子|你的)(?:的)?(?:设定|规则|说|讲|要求|让你|指令|人设|规矩)|"
        r"(?:你|你的)(?:原先|原来|之前|先前|原本)的?(?:任务|指令|规则|设定)(?:已|已经|都)?(?:取消|作废|结束|失效)|"
        r"真正的(?:任务|指令|要求|目标)(?:是|为)|(?:规则|设定|限制)对我不适用",
    ),
    _r(
        "ph_zh_notice",
        "goal_hijack",
        "raw",
        r"(?m:^\s*(?:系统|管理员|开发者|官方)(?:通知|公告|消息|指令|提示|声明)\s*[:：])",
    ),
    _r(
        "ph_zh_persona",
        "role_reassign",
        "compact",
        r"(?:以|用)(?!孔子|夫子)(?:.{1,12})的?(?:口吻|语气)?和?身份(?:发言|讲话|回应|聊天|说话)|"
        r"你(?:来|要|就|可以)?(?:扮成|扮作|演一个|演一名|演一位|演个)|"
        r"你(?:今后|以后|从现在起|从现在开始|接下来)(?:就)?(?:是|当|做|作为|扮演|变成|成为)|"
        r"(?:请|请你|现在)(?:变身|化身|变成)(?:为|成)?(?:一|个|名|位|只)|"
        r"你(?:现在|目前|新|今后)?的(?:新)?(?:身份|角色|人设|名字)(?:是|为|改为|变成)(?!什么|谁|啥|孔子|夫子|孔丘)|"
        r"(?:换|切换|改)(?:成|为|到).{1,10}的(?:角色|身份|人设|人格)|"
        r"(?:给你|赋予你|为你设定)(?:一个|个)?新(?:的)?(?:身份|角色|人设|名字|任务)|"
        r"(?:从现在起|从现在开始|以后|今后)(?:youare|youre|youwillbe|actas)|(?:先)?别当孔子",
    ),
    _r(
        "ph_zh_extract",
        "prompt_extract",
        "compact",
        r"你的(?:设定|提示词|提示|指令|规则|系统提示)(?:文字|内容|原文)?.{0,6}?(?:发一遍|发一下|发过来|再发|完整地?发|"
        r"写了什么|写的什么)|你(?:现在|目前|正在|所)?(?:遵循|遵守|执行|使用|依照|按照)的?(?:指令|规则|设定|提示词|提示)"
        r"(?:有哪些|是什么|是啥|有几条)|(?:部署|开发|创建|训练|设计|配置)你的(?:人|公司|团队|开发者)"
        r".{0,6}?(?:写|给|设定|说|要求)|(?:上下文|context)(?:里|中)?.{0,12}?(?:之前|前面|开头)的?(?:部分|内容|文字)|"
        r"给你写的(?:提示词|提示|prompt|设定|指令)|(?:开头|最开始|一开始|对话前)(?:收到|看到|接到)的?"
        r"(?:那段|这段|那些)?(?:话|内容|文字|消息)|你(?:是)?(?:按照|依照|根据|遵循)(?:什么|哪些|怎样的|啥)"
        r"(?:指令|规则|设定|提示)|(?:系统设置|系统配置|内部标记)(?:里|中)?.{0,4}?(?:写了什么|是什么|输出|发)",
    ),
    _r(
        "ph_zh_jailbreak",
        "jailbreak",
        "compact",
        r"(?:关掉|关闭|禁用|停用|卸载|去掉|移除)(?:你的)?(?:所有|全部)?的?(?:道德|伦理|安全|审查|过滤|内容)"
        r"(?:模块|机制|系统|过滤器|功能|设置|审核)|(?:被|已被|已经被)(?:管理员|开发者|官方)?(?:解锁|越狱|破解|"
        r"解除限制)|毫无(?:审查|限制|约束|过滤)|(?:挣脱|摆脱|打破|冲破)(?:你的)?(?:程序|代码|规则|设定|系统)?的?"
        r"(?:束缚|枷锁|限制|约束)|(?:进入|开启|启动|激活|打开|启用)(?:开发者|管理员|上帝|调试|越狱).{0,3}模式|"
        r"当?规则不存在",
    ),
)

PHRASING_RULES: tuple[Rule, ...] = EN_PHRASING + ZH_PHRASING
