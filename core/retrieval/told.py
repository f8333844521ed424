"""A question that tells its asker's case, or sets the scene of the question it asks (themes.py reads both).

A told case (最近一心想赚钱发财，孔子会怎么看我这种人; 觉得自己怀才不遇，孔子会怎么劝我; "I lose my temper a lot.
What would Confucius say?"): the asker's own case (first person or a habit: 我, 自己, 最近, "I", "my"), then
only a request for the master's view; the case names the subject, the last clause none. A case that is
itself a question (用恩德回报怨恨行吗？孔子怎么说) or reports a saying (有人说以德报怨) asks about that line.
A scene: a clause beside the one that asks, a question of its own or the asker's case (孔子信命吗？他说的
天命到底指什么).
"""

from __future__ import annotations

import re

from core.retrieval.topic_forms import ASKS_ZH

_ASKER_ZH = "(?:孔子|孟子|夫子|圣人|古人|儒家|先贤|论语|诗经|古书)?(?:里|中)?(?:会|又|该|能)?"
_VIEW_ZH = "(?:(?:怎么|如何|怎样)(?:看待?|说|劝|评价|想|讲|开导|教)|有(?:什么|没有)?(?:说法|说过|说|讲|提到过?))"
_ME_ZH = "(?:我们?|我这种人|我这样的人|这种人|这种事|这件事|这事|这种情况|这个|这)?"
CASE_ASK_ZH = re.compile(
    f"[，,。；;！!？?…]+\\s*(?:那|那么)?{_ASKER_ZH}{_VIEW_ZH}{_ME_ZH}(?:呢|吗|啊|呀|吧)?[？?。！!\\s]*$"
)
CASE_ASK_EN = re.compile(
    r"[.,;!?]+\s*(?:so\s+)?(?:what|how)\s+(?:would|does|did|do|might|could)\s+(?:confucius|mencius|the master"
    r"|the classics|the analects|the sages?)\s+(?:say|think|advise|tell me|make of (?:this|that|it|me))"
    r"(?:\s+(?:about|of|to)\s+(?:this|that|it|me|people like me))?\s*[?.!]*\s*$"
)
_SELF_ZH = re.compile("我|自己|最近|总是|老是|常常|经常|一直")
_SELF_EN = re.compile(r"\b(?:i|i'm|i've|my|me|myself)\b")
_REPORTED_ZH = re.compile('说[：:，,“"]')  # 孔子说：…, 有人说，以德报怨: a line reported
_REPORTED = re.compile(f"{_REPORTED_ZH.pattern}|有人说|[吗呢？?]\\s*$|\\bsaid\\b|\\bsays\\b|\\?\\s*$")


def scene(clause: str) -> bool:
    """True when a clause beside a question only sets its scene: a question of its own (孔子信命吗) or the
    asker's case (我最近…), never a reported line (孔子说：…), a condition or a stanza's words."""
    return bool(ASKS_ZH.search(clause) or _SELF_ZH.search(clause)) and not _REPORTED_ZH.search(clause)


def case(zh: str, lower: str) -> tuple[str, str] | None:
    """The told case of a question that asks only the master's view of the asker's case, else None."""
    zh_ask, en_ask = CASE_ASK_ZH.search(zh), CASE_ASK_EN.search(lower)
    if zh_ask and _SELF_ZH.search(told := zh[: zh_ask.start()]) and not _REPORTED.search(told):
        return told, ""
    if en_ask and _SELF_EN.search(told := lower[: en_ask.start()]) and not _REPORTED.search(told):
        return "", told
    return None
