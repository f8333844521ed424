"""English → classical Chinese keyword expansion for Latin-script queries.

The corpus is Chinese only, so an English query matches nothing in the keyword route. This small
bilingual glossary (concepts, people, places, imagery of the two books) turns the English words it
knows into Chinese terms for BM25; the vector route still sees the original query. Words it does
not know are dropped, and so is "Confucius": he is the implied subject of nearly every question,
and 孔子 as a search term only favours passages that happen to name him often. It is a fixed list, not a translator: it helps questions that name things.
"""

from __future__ import annotations

import re

from core.retrieval.fusion import query_language

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
mistake=过 mistakes=过 fault=过 faults=过 error=过 errors=过 wrong=过 wrongs=过 correcting=改 change=改 reform=改
afraid=惮 fear=畏 fears=畏 hesitate=惮 full=饱 stomach=饱 hungry=饥 hunger=饥 famine=饥 comfort=安 comfortable=安
home=居 dwelling=居 house=室 peace=安 peaceful=安 content=安 slow=讷 quick=敏 quickly=敏 diligent=敏 act=行
action=行 actions=行 deed=行 deeds=行 conduct=行 behaviour=行 behavior=行 speak=言 speaking=言 talk=言 talking=言
law=刑 laws=刑 punishment=刑 punishments=刑 punish=刑 penalty=刑 lead=道 guide=道 advice=谋 plan=谋 plans=谋
position=位 office=位 job=位 post=位 rank=位 official=仕 officials=仕 salary=禄 career=禄 serve=事 serving=事
take=夺 seize=夺 ambition=志 aim=志 aspire=志 aspiration=志 ordinary=匹夫 two=二 four=四 five=五
six=六 eight=八 nine=九 ten=十 hundred=百 thousand=千 beauty=色 beautiful=美 pretty=美 lust=色 handsome=美
remonstrate=谏 admonish=谏 criticise=谏 criticize=谏 bad=恶 evil=恶 hate=恶 hates=恶 dislike=恶 good=善
rare=鲜 seldom=鲜 village=邑 town=邑 hometown=乡 fond=好 loves=好 loved=好 enjoy=乐 know=知 knowing=知
understand=知 understanding=知 recognise=知 recognize=知 ancient=古 antiquity=古 ancients=古 invent=作
inventing=作 create=作 transmit=述 teachings=教 madman=狂 mad=狂 crazy=狂 wild=狂 sing=歌 singing=歌 song=歌
phoenix=凤 locust=螽斯 locusts=螽斯 grasshopper=螽斯 children=子孙 descendants=子孙 offspring=子孙 many=多
dusk=夕 sunset=夕 cattle=牛 sheep=羊 cow=牛 ox=牛 chicken=鸡 chickens=鸡 hen=鸡 swear=矢 swears=矢 vow=矢
fox=狐 foxes=狐 lift=褰 skirt=裳 cross=涉 crossing=涉 wade=涉 crowing=鸣 crow=鸣 crows=鸣 calling=鸣
hair=首 head=首 east=东 west=西 south=南 north=北 wide=广 broad=广 granary=廪 granaries=廪 grain=禾 crops=稼
work=劳 toil=劳 labour=劳 labor=劳 tired=劳 cocklebur=卷耳 basket=筐 pick=采 picking=采 gather=采 gathering=采
plantain=芣苢 fern=薇 ferns=薇 mulberry=桑 mulberries=桑 plum=李 plums=梅 peony=勺药 peonies=勺药 orchid=兰
lotus=荷 bamboo=竹 vine=葛 vines=葛 kudzu=葛 flower=华 flowers=华 blossom=华 blossoms=华 bloom=华 leaves=叶
leaf=叶 boat=舟 boats=舟 raft=桴 sea=海 shore=涘 island=洲 isle=洲 tiger=虎 bear=熊 wolf=狼 dog=犬 dogs=犬
hare=兔 rabbit=兔 pheasant=雉 swallow=燕 swallows=燕 oriole=黄鸟 magpie=鹊 dove=鸠 crane=鹤 goose=鸿 geese=鸿
fish=鱼 fishes=鱼 carp=鲤 cricket=蟋蟀 owl=鸮 unicorn=麟 dragon=龙 thunder=雷 star=星 stars=星 sky=天 dawn=旦
daybreak=旦 night=夜 husband=君子 groom=士 beloved=美 man=士 maid=女 shoes=屦 hat=冠 cap=冠 sash=带
pendant=佩 gift=赠 give=赠 giving=赠 gives=赠 sad=悲 sadness=悲 grief=哀 grieve=哀 grieves=哀 mourn=哀
mourns=哀 weep=涕 tears=涕 longing=思 miss=思 missing=思 homesick=归 return=归 returns=归 returned=归
leave=去 depart=行 went=往 campaign=役 expedition=征 weapons=兵 bow=弓 arrow=矢 chariot=车 chariots=车
carriage=车 barbarians=戎 plough=耕 plow=耕 ploughing=耕 field=田 fields=田 vessel=器 vessels=器 tool=器
tools=器 bell=钟 drum=鼓 drums=鼓 zither=琴 lute=瑟 reciprocity=恕 forgive=恕 forgiveness=恕 empathy=恕
flatter=谄 flattery=谄 glib=佞 eloquent=佞 smooth=巧 clever=巧 cunning=巧 charming=令色 modest=让 yield=让
humility=让 arrogant=骄 proud=骄 pride=骄 boast=伐 greedy=贪 desire=欲 desires=欲 want=欲 wants=欲 wish=欲
wishes=志 straight=直 crooked=枉 trouble=患 misfortune=患 difficult=难 hard=难 easy=易 fame=名 famous=名
reputation=名 talent=才 talented=才 ability=能 able=能 capable=能 emperor=帝 kingdom=国 xia=夏 yin=殷
student=弟子 students=弟子 pupil=弟子 follower=弟子 ill=疾 illness=疾 sick=疾 disease=疾 body=身 self=己
oneself=己 myself=己 selfish=私 silent=默 silence=默 food=食 kill=杀 killing=杀 killed=杀 tax=税 taxes=税
enough=足 sufficient=足 dying=死 burden=任 heavy=重 road=道 long=远 journey=行 scholar=士 scholars=士
knight=士 officer=士 first=先 talk=语 speak=语 discuss=语 worry=患 benefit=益 beneficial=益 harmful=损 harm=损 nobody=莫 shoots=荑 smile=笑
smiles=笑 laugh=笑 charming=倩 ruins=黍离 capital=宗周 wine=酒 cup=觥 hunt=狩 hunting=狩 buried=殉 alive=生
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
    if _zh not in GLOSSARY.get(_word, "").split():  # a word listed twice searches both terms
        GLOSSARY[_word] = f"{GLOSSARY[_word]} {_zh}" if _word in GLOSSARY else _zh

_WORD = re.compile(r"[a-z]+")


def _lookup(word: str) -> str | None:
    for candidate in (
        word,
        word.rstrip("s"),
        word[:-3] + "y" if word.endswith("ies") else "",  # worries → worry
        word[:-2] if word.endswith("ed") else "",
        word[:-1] if word.endswith("ed") else "",  # loved → love
        word[:-3] if word.endswith("ing") else "",
        word[:-3] + "e" if word.endswith("ing") else "",  # giving → give
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


def with_english_terms(query: str) -> str:
    """What the vector route embeds for a Latin-script query: the query followed by the glossary's
    Chinese terms for it (the small embedder bridges English to classical Chinese poorly; the
    terms give it the passage's own words). Any other query is returned unchanged."""
    if query_language(query) != "en":
        return query
    terms = expand_english(query)
    return f"{query} {terms}" if terms else query
