"""English → classical Chinese keyword expansion for Latin-script queries.

The corpus is Chinese only, so an English query matches nothing in the keyword route. This small
bilingual glossary (concepts, people, places, imagery of the two books) turns the English words it
knows into Chinese terms for BM25; the vector route still sees the original query. Words it does
not know are dropped, and so is "Confucius": he is the implied subject of nearly every question,
and 孔子 as a search term only favours passages that happen to name him often. It is a fixed list, not a translator: it helps questions that name things.
"""

from __future__ import annotations

import re

_ENTRIES = """
disciple=弟子 disciples=弟子 analects=论语
filial=孝 piety=孝 benevolence=仁 benevolent=仁 humane=仁 humaneness=仁 ren=仁 goodness=仁 humanity=仁
ritual=礼 rituals=礼 rites=礼 propriety=礼 courtesy=礼 righteousness=义 righteous=义 rightness=义 duty=义
wisdom=知 wise=知 knowledge=知 trust=信 trustworthy=信 faithful=信 sincerity=诚 loyalty=忠 loyal=忠
gentleman=君子 gentlemen=君子 petty=小人 mean=小人 sage=圣 sages=圣人 worthy=贤 worthies=贤
learn=学 learning=学 study=学 studies=学 practise=习 practice=习 review=温 thinking=思
teacher=师 teach=教 friend=友 friends=朋友 companion=朋 music=乐 joy=乐 pleasure=说 delight=乐
poetry=诗 poem=诗 poems=诗 odes=诗 songs=诗 govern=政 government=政 governing=政 politics=政 rule=政
virtue=德 virtues=德 virtuous=德 kindness=德 way=道 dao=道 tao=道 heaven=天 heavenly=天 fate=命 destiny=命
ghosts=鬼 ghost=鬼 spirits=神 spirit=神 gods=神 sacrifice=祭 death=死 die=死 dead=死 life=生 mourning=丧 funeral=丧
parents=父母 father=父 mother=母 son=子 brother=兄弟 brothers=兄弟 elder=兄 ruler=君 lord=君 prince=公 duke=公
minister=臣 ministers=臣 people=民 commoner=匹夫 wealth=富 rich=富 riches=富 poor=贫 poverty=贫 noble=贵 honour=贵
profit=利 gain=利 shame=耻 courage=勇 brave=勇 anger=怒 old=老 age=年 young=少 youth=后生 morning=朝 evening=夕
river=河 stream=川 water=水 mountain=山 mountains=山 hills=山 hill=山 pine=松 cypress=柏 jade=玉 stone=石 stones=石
wood=木 tree=木 rat=鼠 rats=鼠 millet=黍 deer=鹿 osprey=雎鸠 ospreys=雎鸠 peach=桃 willow=杨柳 willows=杨柳
snow=雪 reeds=蒹葭 reed=蒹葭 dew=露 frost=霜 hand=手 hands=手 clothes=衣 robe=袍 robes=袍 moon=月 sun=日
wind=风 rain=雨 rooster=鸡 cock=鸡 horse=马 horses=马 war=战 battle=战 army=军 armies=三军 soldier=兵 soldiers=兵
king=王 wife=妻 woman=女 women=女子 girl=女 lady=淑女 maiden=女 marry=归 married=归 bride=归 love=爱 autumn=秋 autumns=秋
spring=春 month=月 day=日 year=岁 cold=寒 wither=凋 carve=雕 carved=雕 rotten=朽 pillow=枕 arm=肱 meat=肉 taste=味
rice=食 drink=饮 eat=食 eating=食 wine=酒 walk=行 travel=游 far=远 near=近 examine=省 reflect=省 words=言 speech=言
face=色 new=新 heart=心 mind=心 fear=畏 worry=忧 anxious=忧 sorrow=忧 happy=乐 dangerous=殆 peril=殆 perilous=殆
injury=怨 resentment=怨 repay=报 names=名 name=名 correct=正 upright=正 harmony=和 excess=过
hermit=隐 recluse=隐 farmer=农 farming=农 harvest=获 silk=丝 cloth=布 trade=贸 abandoned=弃 grass=草 bird=鸟 birds=鸟
dark=玄 birth=生 ancestor=祖 guests=宾 guest=宾 feast=宴 clothing=衣 share=同 together=偕 grow=老 hold=执 holding=执
seventh=七月 ninth=九月 three=三 fifteen=十五 thirty=三十 forty=四十 fifty=五十 sixty=六十 seventy=七十
lie=信 lies=信 lying=信 liar=信 liars=信 honest=信 honesty=信 sincere=信 stable=厩 stables=厩 burned=焚 burnt=焚
flowing=逝 flows=逝 passing=逝 unjust=不义 unjustly=不义 unrighteous=不义 unrighteously=不义 one=一 word=言
whole=终身 lifetime=终身 feed=养 feeding=养 support=养 respect=敬 reverence=敬 respectful=敬 quince=木瓜
state=邦 states=邦 country=国 strange=怪 supernatural=怪 uncanny=怪 disorder=乱 strength=力 floating=浮 cloud=云
clouds=云 neighbours=邻 neighbors=邻 lonely=孤 alone=孤 wall=墙 corner=隅 collar=衿 blue=青 sleep=寝 slept=寝 daytime=昼
guan=管仲 zhong=管仲 yan=颜渊 hui=回 zilu=子路 zigong=子贡 zengzi=曾子 zixia=子夏 ziyou=子游 zizhang=子张
zai=宰予 ran=冉 qiu=求 fan=樊迟 boyi=伯夷 shuqi=叔齐 yao=尧 shun=舜 wen=文王 wu=武王 duke=公 zhou=周 shang=商
qi=齐 lu=鲁 wei=卫 chen=陈 cai=蔡 shao=韶 nanzi=南子 houji=后稷 hou=后稷 ji=稷 jiang=姜嫄 yuan=渊
"""

PHRASES = {
    "filial piety": "孝",
    "guan zhong": "管仲",
    "yan hui": "颜回",
    "yan yuan": "颜渊",
    "zi lu": "子路",
    "zi gong": "子贡",
    "zeng zi": "曾子",
    "zai yu": "宰予",
    "hou ji": "后稷",
    "king wen": "文王",
    "king wu": "武王",
    "duke of zhou": "周公",
    "pole star": "北辰",
    "north star": "北辰",
    "fire star": "火",
    "golden mean": "中庸",
    "petty man": "小人",
    "petty men": "小人",
    "small man": "小人",
    "book of songs": "诗",
    "book of odes": "诗",
}

GLOSSARY: dict[str, str] = {}
for _pair in _ENTRIES.split():
    _word, _zh = _pair.split("=")
    GLOSSARY.setdefault(_word, _zh)

_WORD = re.compile(r"[a-z]+")


def _lookup(word: str) -> str | None:
    for candidate in (
        word,
        word.rstrip("s"),
        word[:-2] if word.endswith("ed") else "",
        word[:-3] if word.endswith("ing") else "",
    ):
        if candidate and candidate in GLOSSARY:
            return GLOSSARY[candidate]
    return None


def expand_english(query: str) -> str:
    """Chinese terms for the English words and phrases of `query` the glossary knows ("" if none)."""
    text = " " + " ".join(_WORD.findall(query.lower())) + " "
    terms: list[str] = []
    for phrase, zh in PHRASES.items():
        if f" {phrase} " in text:
            terms.append(zh)
            text = text.replace(f" {phrase} ", " ")
    terms += [zh for zh in map(_lookup, text.split()) if zh]
    return " ".join(dict.fromkeys(terms))
