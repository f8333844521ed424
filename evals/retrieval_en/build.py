"""People-style English questions about the two books → evals/retrieval_en/dev.jsonl and
evals/retrieval_en/heldout.jsonl.

Three hand-written lists (this team, not independent), gold = the passages named by a verbatim snippet
(punctuation ignored, traditional characters folded), resolved against the corpus:

* `FIRST` (class `people_v24`, 42): written before any English-retrieval change; every third question
  (by position) held out. Its held-out part has been run more than once, so it is no longer unseen.
* `SECOND` (class `people_v3`, 71): written before the English route was changed; every second question
  (by position) held out, run only as a whole after the method was chosen on dev.
* `RANDOM_PASSAGES` (class `people_v4`, 20): questions about passages picked at random (fixed seed);
  all held out; harder than the others (mostly little-known passages).

Run: FUZI_CORPUS_DIR=… python -m evals.retrieval_en.build
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.language.text import to_simplified
from core.retrieval.documents import load_corpus

HERE = Path(__file__).resolve().parent

FIRST = [
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


SECOND = [
    ("Did Confucius think we should be afraid of correcting our mistakes?", ["过则勿惮改"]),
    ("What did Confucius say about making a mistake and not fixing it?", ["过而不改是谓过矣"]),
    ("Does a gentleman look for a full stomach and a comfortable home?", ["君子食无求饱"]),
    ("What are the three things a gentleman should guard against at different ages?", ["君子有三戒"]),
    ("What did Confucius say about reviewing old things to understand new ones?", ["温故而知新"]),
    ("Is a gentleman supposed to be like a tool with one use?", ["君子不器"]),
    ("What did Confucius say about being in harmony without just agreeing with everyone?", ["君子和而不同"]),
    ("What should I do when I meet someone better than me?", ["见贤思齐焉"]),
    ("Did Confucius prefer people who are slow to speak but quick to act?", ["君子欲讷于言而敏于行"]),
    ("If you hear the Way in the morning, can you die happy in the evening?", ["朝闻道夕死可矣"]),
    ("Why did Confucius say he follows the Zhou?", ["吾从周"]),
    ("How is ruling by virtue like the north star?", ["为政以德譬如北辰"]),
    ("Is it better to lead the people with laws and punishments or with virtue?", ["道之以政齐之以刑"]),
    ("Which music moved Confucius so much that he forgot the taste of meat?", ["三月不知肉味"]),
    ("How did Confucius describe himself to someone who asked what kind of man he was?", ["发愤忘食"]),
    ("Was Confucius born knowing everything?", ["我非生而知之者"]),
    ("Should I give advice about a job that isn't mine?", ["不在其位不谋其政"]),
    ("Why is the gentleman calm while the small man is always anxious?", ["君子坦荡荡"]),
    ("Can you take away the will of an ordinary man?", ["匹夫不可夺志也"]),
    ("Should I make friends with people who are worse than me?", ["无友不如己者"]),
    ("What are the nine things a gentleman thinks about?", ["君子有九思"]),
    ("What were Confucius's own wishes for old people, friends and the young?", ["老者安之朋友信之少者怀之"]),
    ("Should I worry about not having a good position?", ["不患无位"]),
    ("How did Confucius advise a student who wanted to get an official salary?", ["子张学干禄"]),
    ("Did Confucius ever meet someone who loved virtue as much as beauty?", ["吾未见好德如好色者也"]),
    ("Why did Confucius say women and small men are hard to deal with?", ["唯女子与小人为难养也"]),
    ("What should I do if my parents are doing something wrong?", ["事父母几谏"]),
    ("Why should children remember how old their parents are?", ["父母之年不可不知也"]),
    ("What did Confucius tell Duke Jing about rulers, ministers, fathers and sons?", ["君君臣臣父父子子"]),
    ("How is a ruler's virtue like the wind blowing over grass?", ["君子之德风"]),
    ("What kind of vessel did Confucius compare Zigong to?", ["瑚琏也"]),
    ("How did Confucius react when Yan Yuan died?", ["天丧予"]),
    ("Why use an ox knife to kill a chicken?", ["割鸡焉用牛刀"]),
    ("Did Confucius ever want to float away on a raft to the sea?", ["乘桴浮于海"]),
    ("Is going too far as bad as not going far enough?", ["过犹不及"]),
    ("What did Zeng Xi say he wanted to do when the disciples shared their wishes?", ["浴乎沂"]),
    ("Are loyal and trustworthy people rare even in a small village?", ["十室之邑"]),
    ("Should a gentleman be ashamed when his words go beyond his actions?", ["君子耻其言而过其行"]),
    ("Is loving something better than just knowing about it?", ["知之者不如好之者"]),
    ("What did Confucius think of people who eat all day and do nothing with their minds?", ["饱食终日无所用心"]),
    ("What did Zengzi say about the words of a dying man?", ["鸟之将死其鸣也哀"]),
    ("Why is the scholar's burden heavy and his road long?", ["任重而道远"]),
    ("Did Confucius say he only passed on old teachings rather than inventing new ones?", ["述而不作"]),
    ("Who were the two farmers ploughing together who told Zilu to leave the world?", ["长沮桀溺耦而耕"]),
    ("What did the madman of Chu sing as he passed Confucius?", ["楚狂接舆"]),
    ("Is it harder to be poor without complaining or rich without being arrogant?", ["贫而无怨难"]),
    ("Can someone be poor and still happy, or rich and still love the rites?", ["贫而乐富而好礼"]),
    ("Should a ruler kill bad people to make the people good?", ["子欲善而民善矣"]),
    ("Why can't someone be a gentleman without understanding fate?", ["不知命无以为君子"]),
    ("Is there a poem about picking plants but being too sad to fill the basket, missing someone?", ["采采卷耳"]),
    ("Which poem wishes for many children like locusts?", ["螽斯羽"]),
    ("Is there a poem about the farming year that starts in the seventh month?", ["七月流火"]),
    ("Which poem is about a wife waiting at dusk for her husband who is away on service?", ["君子于役"]),
    ("Which poem says my heart is not a stone that can be rolled away?", ["我心匪石"]),
    ("Is there a poem where a girl swears she will marry no one else until she dies?", ["之死矢靡它"]),
    ("Which poem mourns the good men buried alive with Duke Mu of Qin?", ["谁从穆公"]),
    ("Is there a poem about a fox walking alone and a woman worried her man has no clothes?", ["有狐绥绥"]),
    ("Which poem has the cold north wind and snow, and asks a friend to leave hand in hand?", ["北风其凉"]),
    ("Is there a poem where a girl teases her lover to lift his robe and cross the river?", ["褰裳涉溱"]),
    ("Which poem describes young men and women at the rivers in spring giving each other peonies?", ["赠之以勺药"]),
    ("Is there a poem where the wife says the rooster is crowing and the husband says it's still dark?", ["女曰鸡鸣"]),
    ("Which poem says wind and rain make it dark as night but the rooster won't stop crowing?", ["风雨如晦"]),
    ("Which poem is about a woman who stops doing her hair since her husband went east?", ["首如飞蓬"]),
    ("Is there a poem about a girl across the Han river who is impossible to reach?", ["汉之广矣"]),
    ("Which poem describes a beautiful lady with hands like soft shoots and a charming smile?", ["手如柔荑"]),
    ("Which poem grieves over millet growing on the ruins of the old capital?", ["彼黍离离"]),
    ("Who says the river is wide when one reed can cross it?", ["谁谓河广"]),
    ("Is there a feast song with deer calling to each other in the fields?", ["呦呦鹿鸣"]),
    ("Which poem says nobody is closer than brothers?", ["凡今之人莫如兄弟"]),
    ("Is there a poem about the birth of Hou Ji, ancestor of the Zhou?", ["厥初生民"]),
    ("Which poem complains about lords who never work but have full granaries?", ["坎坎伐檀"]),
]


# people_v4: questions about 20 passages picked at random (fixed seed), in the order they were
# picked, written before the method they measure was chosen; all held out.
RANDOM_PASSAGES = [
    ("Does a good person need to be a smooth talker?", ["焉用佞"]),
    ("How did Confucius behave when riding in a carriage?", ["升车必正立"]),
    ("Did Confucius prefer the earlier or the later followers' way with rites and music?", ["先进于礼乐"]),
    ("Which disciples did Confucius call stupid, slow, one-sided and coarse?", ["柴也愚"]),
    ("Why did someone accuse Confucius of being a glib talker for rushing around?", ["微生亩谓孔子曰"]),
    ("Why did the ancient king not speak for three years while mourning?", ["高宗谅阴"]),
    ("What did Confucius answer when the Duke of Wei asked him about military formations?", ["卫灵公问陈"]),
    ("Who ruled by doing nothing, according to Confucius?", ["无为而治"]),
    ("Should I be upset that people don't know my abilities, or that I lack ability?", ["君子病无能焉", "患其不能也"]),
    ("How can a gentleman belong to a group without joining a faction?", ["群而不党"]),
    ("Is wisdom enough to keep power if you lack goodness?", ["知及之仁不能守之"]),
    ("Should I give way to my teacher when it comes to doing what is good?", ["当仁不让于师"]),
    ("Why did Confucius tell his son to study the Zhou Nan and Shao Nan?", ["女为周南召南矣乎"]),
    ("Does a gentleman value courage above everything?", ["君子尚勇乎"]),
    ("What does a petty person do when he makes a mistake?", ["小人之过也必文"]),
    ("Why must a ruler win the people's trust before making them work?", ["君子信而后劳其民"]),
    ("Which poem describes a wolf tripping over its dewlap and its tail?", ["狼跋其胡"]),
    ("Is there a song about building a new house where brothers live in harmony?", ["秩秩斯干"]),
    ("Which ode tells of a solar eclipse in the tenth month and earthquakes?", ["十月之交"]),
    ("Which poem tells how the Zhou ancestor Danfu moved his people to the foot of Mount Qi?", ["古公亶父"]),
]


def main() -> None:
    passages = load_corpus(Path(os.environ["FUZI_CORPUS_DIR"]))
    texts = [(p.id, "".join(ch for ch in to_simplified(p.text) if ch.isalnum())) for p in passages]
    dev: list[dict] = []
    held: list[dict] = []
    for cls, questions, every in (("people_v24", FIRST, 3), ("people_v3", SECOND, 2)):
        for n, (query, snippets) in enumerate(questions):
            gold = sorted({pid for s in snippets for pid, t in texts if to_simplified(s) in t})
            if not gold:
                raise SystemExit(f"no passage for {snippets}")
            (held if n % every == every - 1 else dev).append({"query": query, "gold": gold, "class": cls})
    for query, snippets in RANDOM_PASSAGES:  # all held out
        gold = sorted({pid for s in snippets for pid, t in texts if to_simplified(s) in t})
        if not gold:
            raise SystemExit(f"no passage for {snippets}")
        held.append({"query": query, "gold": gold, "class": "people_v4"})
    for name, rows in (("dev.jsonl", dev), ("heldout.jsonl", held)):
        with open(HERE / name, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        print(name, len(rows))


if __name__ == "__main__":
    main()
