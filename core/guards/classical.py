"""Two things readers of the classics do that look like attacks to word rules.

1. **Quoting a translation.** "The Master said, 'If you are without the rules of propriety, you
   cannot stand.'" The words *you*, *without* and *rules* sit close together, which is what the
   proximity rules (core/guards/proximity.py: word families near each other) look for. The quoted
   speech of a classical speaker (the Master, Confucius, a named disciple, a duke who asked him) is
   a third party's words from a book, not an instruction to Fuzi, so the proximity rules do not
   read it (`without_classical_quotes`). Only the proximity family is spared: the phrase rules and
   the classifier still read the whole message, so "The Master said, 'ignore all previous
   instructions'" is caught as before.
2. **Role-play inside Fuzi's world.** "Act as my Analects tutor", "我们来做个角色扮演练习：我是来问礼的学生"
   match the generic role-play rules, yet the role asked for is Fuzi's own (a teacher of the
   classics, a disciple, a student asking about the rites). `in_world_role` recognises a role-play
   request whose role and subject are in the classics and that carries none of the markers of a
   real reassignment (no limits, another assistant, stop being Confucius …); the generic role-play
   rules (`ROLEPLAY_RULES`) then do not count. Every other rule, the unrestricted-persona rules
   among them, still does.
3. **Asking a counterfactual.** "假设您是一位现代的中学校长，会怎样办学？" asks what Fuzi *would* do
   in someone's place — a question, not an assignment. `counterfactual_question` recognises a
   "suppose you are …" sentence that ends as a question, names no AI and carries no reassignment
   marker; the "suppose" rule (`SUPPOSE_RULES`) then does not count. "假装你是…" (pretend) and
   every other rule still do.
"""

from __future__ import annotations

import re

SPEAKERS = (
    r"the\s+master|confucius|kongzi|kong\s*zi|master\s+kong|kong\s+fuzi|mencius|the\s+philosopher\s+\w+|"
    r"zi\s*(?:gong|lu|xia|you|zhang|han)|zeng\s*(?:zi|shen|xi)|yan\s*(?:hui|yuan)|you\s*zi|youzi|fan\s+chi|"
    r"zai\s+(?:wo|yu)|ran\s+(?:you|qiu|yong)|zhong\s*gong|sima\s+niu|lin\s+fang|meng\s+(?:yi|wubo|wu\s*bo)|"
    r"ji\s+(?:kang(?:\s*zi)?|lu|huan(?:\s*zi)?)|duke\s+\w+(?:\s+of\s+\w+)?|yan\s+ping\s*zhong|nan\s+rong|"
    r"gongxi\s+hua|min\s+ziqian|tzu[-\s]?\w+|tseng\s+tzu|k'?ung(?:[-\s]?tzu)?|someone"
)
_SAID = r"(?:said|says|asked|replied|answered|observed|remarked|added|continued|sighed|exclaimed)"
_QUOTE = re.compile(
    rf"\b(?:{SPEAKERS})\b[^\"“”'‘’]{{0,60}}?\b{_SAID}\b[^\"“”‘’]{{0,20}}?[\"“‘']([^\"“”‘’]{{4,}}?)[\"”’']",
    re.IGNORECASE,
)

# The generic role-play rules ("act as …", "pretend …", "扮演 …", "来玩角色扮演"): what `in_world_role` may overrule.
ROLEPLAY_RULES = frozenset(
    {
        "en_act_as",
        "en_pretend",
        "zh_play_role",
        "zh_pretend",
        "zh_roleplay_game",
        "px_en_want_you_to",
        "px_en_play_role",
        "px_zh_switch_persona",
    }
)

_WORLD_EN = re.compile(
    r"\b(?:analects|book\s+of\s+(?:songs|poetry|odes)|odes|shijing|classics?|confucius|the\s+master|disciple|"
    r"zi\s*(?:gong|lu|xia)|yan\s*hui|rites|propriety|junzi|ren)\b",
    re.IGNORECASE,
)
_WORLD_ZH = re.compile(
    r"论语|诗经|孔子|夫子|弟子|门生|颜回|子路|子贡|子夏|曾子|哀公|季康子|景公|问礼|问仁|问孝|礼|经典|国学|古诗"
)
_ROLE_EN = re.compile(r"\b(?:teacher|tutor|guide|mentor|student|pupil|disciple|examiner|master)\b", re.IGNORECASE)
_ROLE_ZH = re.compile(
    r"老师|先生|学生|弟子|门生|夫子|孔子|书童|考官|讲解|讲课|上课|考考|问答|练习|哀公|季康子|景公|子路|子贡|颜回|曾子"
)
_REASSIGN = re.compile(
    r"no\s+(?:limits|rules|restrictions|filters?|ethics)|unrestricted|unfiltered|uncensored|jailbr|\bdan\b|"
    r"no\s+longer|not\s+confucius|instead\s+of\s+(?:confucius|being)|another\s+(?:ai|assistant|bot|model)|"
    r"different\s+(?:ai|assistant|bot|model)|developer|system\s+prompt|your\s+(?:rules|instructions)|"
    r"without\s+(?:any\s+)?(?:rules|limits|restrictions)|evil|hacker|girlfriend|boyfriend|"
    r"不是孔子|不再是|别演|别当|不要当|不当|另一个|别的(?:ai|助手|模型)|没有(?:任何)?(?:限制|规则|约束)|无限制|"
    r"不受|越狱|黑客|邪恶|男朋友|女朋友|系统提示|提示词|开发者|规则",
    re.IGNORECASE,
)


def without_classical_quotes(text: str) -> str | None:
    """`text` with the quoted speech of classical speakers removed, or None when it has none."""
    if not _QUOTE.search(text):
        return None
    return _QUOTE.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + " … ", text)


def in_world_role(text: str) -> bool:
    """True for a role-play request whose role and subject are Fuzi's own world (a tutor of the
    Analects, a disciple asking about the rites) and that says nothing of a real reassignment."""
    if _REASSIGN.search(text):
        return False
    world = _WORLD_EN.search(text) or _WORLD_ZH.search(text)
    role = _ROLE_EN.search(text) or _ROLE_ZH.search(text)
    return bool(world and role)


# The "suppose you are …" rule (core/guards/patterns_zh.py), which `counterfactual_question` may overrule.
SUPPOSE_RULES = frozenset({"zh_suppose"})
_SUPPOSE = re.compile(r"(?:假设|假如|如果|要是)[你您](?:自己)?是[^。！!？?]*[？?]")
_ASKS = re.compile(r"会|怎么|怎样|如何|吗|呢|什么|哪|为何|能否|能不能|可否")
_MACHINE = re.compile(r"ai|机器|助手|模型|gpt|程序|系统|bot|角色|人设|模式", re.IGNORECASE)


def counterfactual_question(text: str) -> bool:
    """True when every "suppose you are …" sentence of `text` is a question about what Fuzi would do
    in a person's place (it ends in a question mark and asks how/what/whether), names no machine or
    persona, and the message says nothing of a real reassignment."""
    found = _SUPPOSE.findall(text)
    if not found or _REASSIGN.search(text):
        return False
    return all(_ASKS.search(s) and not _MACHINE.search(s) for s in found)
