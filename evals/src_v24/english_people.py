"""People-style English questions about the two books (issue 24, item 1), written by the issue-24
engineer on 2026-12-01 before any English-retrieval change (none was made in this round: the
figures are the starting point for the next one). Gold = the passages named by a verbatim snippet
(punctuation ignored), resolved against the corpus. Every third question (by position) is held out.
Run: FUZI_CORPUS_DIR=… python evals/src_v24/english_people.py
→ evals/retrieval_en_people_dev.jsonl, evals/retrieval_en_people_heldout.jsonl
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from core.retrieval.documents import load_corpus  # noqa: E402
from core.text import to_simplified  # noqa: E402

QUESTIONS = [
    ("What did Confucius say about friends who lie?", ["与朋友交而不信乎", "与朋友交言而有信"]),
    ("Is it ok to go abroad while my parents are still alive?", ["父母在不远游"]),
    ("What did Confucius think about people who talk smoothly and look charming?", ["巧言令色鲜矣仁"]),
    ("How should I treat others if I don't want to be mistreated?", ["己所不欲勿施于人"]),
    ("What did the Master say about the joy of learning and practising?", ["学而时习之"]),
    ("Why should I not worry that nobody recognises my talent?", ["不患人之不己知", "人不知而不愠"]),
    ("What does Confucius say about thinking versus studying?", ["学而不思则罔"]),
    ("What is real knowledge according to Confucius?", ["知之为知之"]),
    ("Can anyone be my teacher, even people walking with me?", ["三人行必有我师焉"]),
    ("What did Confucius say when his stable burned down?", ["厩焚"]),
    ("What did the Master say about the river flowing day and night?", ["逝者如斯夫"]),
    ("Which trees are the last to wither in winter?", ["岁寒然后知松柏之后凋也"]),
    ("Why was Confucius angry that Zai Yu slept during the day?", ["宰予昼寝"]),
    ("How did Yan Hui live in poverty and stay happy?", ["一箪食一瓢饮"]),
    ("What should a ruler do so that people trust the government?", ["子贡问政"]),
    ("What should be done first to govern a state, according to Confucius?", ["必也正名乎"]),
    ("Should we repay injury with kindness?", ["以德报怨"]),
    ("What did Confucius say about his life at fifteen, thirty and forty?", ["吾十有五而志于学"]),
    ("How do I know whether I'm a gentleman or a petty person when it comes to profit?", ["君子喻于义"]),
    ("What did Confucius say about wealth gained unjustly?", ["不义而富且贵于我如浮云"]),
    ("Does a good person have to be lonely?", ["德不孤必有邻"]),
    ("Why does Confucius say the wise enjoy water?", ["知者乐水"]),
    ("What did Confucius refuse to talk about?", ["子不语怪力乱神"]),
    ("What did Confucius answer when asked about death and spirits?", ["未知生焉知死"]),
    ("What is ren according to the answer to Yan Yuan?", ["克己复礼为仁"]),
    ("What is the one word to live by for one's whole life?", ["其恕乎"]),
    ("What are the beneficial friendships and harmful friendships?", ["益者三友"]),
    ("How should children show respect to parents beyond feeding them?", ["今之孝者是谓能养"]),
    ("Who was the disciple who loved learning most?", ["弟子孰为好学"]),
    ("Why can't rotten wood be carved?", ["朽木不可雕也"]),
    ("Which poem opens the Book of Songs with ospreys calling?", ["关关雎鸠"]),
    ("Is there a poem about a big rat eating our grain?", ["硕鼠硕鼠"]),
    ("Which poem has the reeds and the white dew turned to frost?", ["蒹葭苍苍"]),
    ("What poem says holding your hand we will grow old together?", ["执子之手与子偕老"]),
    ("Which poem talks about the peach tree in bloom for a bride?", ["桃之夭夭"]),
    ("Which song says one day without seeing him is like three months?", ["一日不见如三月兮"]),
    (
        "Is there a poem where a soldier returns as snow falls and willows were green when he left?",
        ["昔我往矣杨柳依依"],
    ),
    ("What poem has someone giving a quince and getting jade back?", ["投我以木瓜"]),
    ("Which poem describes a soldier who has no clothes and shares his robe?", ["岂曰无衣与子同袍"]),
    ("Which poem is about a woman whose husband courted her trading cloth for silk and later left her?", ["氓之蚩蚩"]),
    ("Is there a song where a girl waits for her lover at the corner of the city wall?", ["静女其姝"]),
    ("What poem says the blue collar of my love is always on my mind?", ["青青子衿"]),
]


def main() -> None:
    passages = load_corpus(Path(os.environ["FUZI_CORPUS_DIR"]))
    texts = [(p.id, "".join(ch for ch in to_simplified(p.text) if ch.isalnum())) for p in passages]
    dev, held = [], []
    for n, (query, snippets) in enumerate(QUESTIONS):
        gold = sorted({pid for s in snippets for pid, t in texts if to_simplified(s) in t})
        if not gold:
            raise SystemExit(f"no passage for {snippets}")
        (held if n % 3 == 2 else dev).append({"query": query, "gold": gold, "class": "english_people"})
    for name, rows in (("retrieval_en_people_dev.jsonl", dev), ("retrieval_en_people_heldout.jsonl", held)):
        with open(HERE.parent / name, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        print(name, len(rows))


if __name__ == "__main__":
    main()
