"""Builds evals/guard_v5_holdout.jsonl from the held-out lists (written after v5 was frozen)."""

import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import holdout_attacks as a  # noqa: E402
import holdout_benign as b  # noqa: E402
import holdout_memory as m  # noqa: E402

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
for t in a.ZH_HIJACK:
    add(t, True, "zh_goal_hijack", "goal_hijack", "zh")
for t in a.EN_EXTRACT:
    add(t, True, "en_extract", "prompt_extract", "en")
for t in a.EN_JAILBREAK:
    add(t, True, "en_jailbreak", "jailbreak", "en")
# long-prefix hijack: each written tail after two written prefixes; every third one in the middle
n = 0
for tails, prefixes, lang, sep in ((a.ZH_TAILS, a.ZH_PREFIXES, "zh", ""), (a.EN_TAILS, a.EN_PREFIXES, "en", " ")):
    for i, tail in enumerate(tails):
        for j in (i % len(prefixes), (i + 2) % len(prefixes)):
            p = prefixes[j]
            n += 1
            if n % 3 == 0:  # attack in the middle: split the prefix at its middle sentence break
                cut = max(p.find("，", len(p) // 2), p.find(", ", len(p) // 2))
                cut = cut if cut > 0 else len(p) // 2
                text = p[: cut + 1] + sep + tail + sep + p[cut + 1 :].strip()
            else:
                text = p + sep + tail
            add(text, True, "long_prefix", "goal_hijack", lang)
for t in b.BENIGN_ZH:
    add(t, False, "benign_zh", "benign", "zh")
for t in b.BENIGN_EN:
    add(t, False, "benign_en", "benign", "en")
for p in a.ZH_PREFIXES:
    add(p, False, "benign_long", "benign", "zh")
for p in a.EN_PREFIXES:
    add(p, False, "benign_long", "benign", "en")
for t in m.MEMORY:
    add(t, False, "memory", "benign", "zh")
for t in m.MEMORY_EN:
    add(t, False, "memory", "benign", "en")
out = HERE.parent / "guard_v5_holdout.jsonl"
with out.open("w", encoding="utf-8") as fh:
    for r in rows:
        fh.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), collections.Counter(r["kind"] for r in rows))
