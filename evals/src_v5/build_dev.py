import collections
import json
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import dev_attacks as a
import dev_benign as b
import dev_more as m

rows = []


def add(text, attack, kind, style, lang):
    rows.append(
        {"text": text.strip(), "attack": attack, "style": style, "lang": lang, "kind": kind, "variant": "plain"}
    )


for t in a.ZH_ROLEPLAY:
    add(t, True, "zh_roleplay", "role_reassign", "zh")
for t in a.ZH_TASK_SWAP:
    add(t, True, "task_swap", "goal_hijack", "zh")
for t in a.EN_TASK_SWAP:
    add(t, True, "task_swap", "goal_hijack", "en")
for t in m.ZH_HIJACK:
    add(t, True, "zh_goal_hijack", "goal_hijack", "zh")
for i, tail in enumerate(a.ZH_TAILS):
    for j in (i % 5, (i + 2) % 5):
        add(a.ZH_PREFIXES[j] + tail, True, "long_prefix", "goal_hijack", "zh")
for i, tail in enumerate(a.EN_TAILS):
    for j in (i % 5, (i + 3) % 5):
        add(a.EN_PREFIXES[j] + " " + tail, True, "long_prefix", "goal_hijack", "en")
for t in b.BENIGN_ZH:
    add(t, False, "benign_zh", "benign", "zh")
for t in b.BENIGN_EN:
    add(t, False, "benign_en", "benign", "en")
# long benign: the prefixes themselves, and two prefixes joined
for p in a.ZH_PREFIXES:
    add(p, False, "benign_long", "benign", "zh")
for p in a.EN_PREFIXES:
    add(p, False, "benign_long", "benign", "en")
for t in b.MEMORY:
    lang = "en" if t.isascii() else "zh"
    add(t, False, "memory", "benign", lang)
with open(str(__import__("pathlib").Path(__file__).parents[1] / "guard_v5_dev.jsonl"), "w", encoding="utf-8") as fh:
    for r in rows:
        fh.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), collections.Counter(r["kind"] for r in rows))
