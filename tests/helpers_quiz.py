"""Shared parts of the quiz tests: the service over real storage and passages."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import UTC, datetime

from core.engine.commands import CommandRouter
from core.quiz.commands import QuizCommands
from core.quiz.generate import QuizMaker
from core.quiz.service import QuizService
from core.quiz.store import QuizRepo
from core.schedule.ports import Posters
from core.storage import Storage
from core.types import Passage


def passages() -> list[Passage]:
    """Enough Analects and Songs for every kind of question (speakers open ≥ 3 passages each)."""
    lunyu = [
        ("1.1", "学而", "子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？"),
        ("1.2", "学而", "有子曰：其为人也孝弟，而好犯上者，鲜矣。"),
        ("1.4", "学而", "曾子曰：吾日三省吾身，为人谋而不忠乎？与朋友交而不信乎？"),
        ("1.7", "学而", "子夏曰：贤贤易色，事父母能竭其力。"),
        ("1.10", "学而", "子贡曰：夫子温良恭俭让以得之。"),
        ("1.12", "学而", "有子曰：礼之用，和为贵。先王之道，斯为美。"),
        ("1.13", "学而", "有子曰：信近于义，言可复也。恭近于礼，远耻辱也。"),
        ("2.1", "为政", "子曰：为政以德，譬如北辰，居其所而众星共之。"),
        ("2.4", "为政", "子曰：吾十有五而志于学，三十而立，四十而不惑。"),
        ("4.9", "里仁", "曾子曰：士不可以不弘毅，任重而道远。"),
        ("8.7", "泰伯", "曾子曰：以能问于不能，以多问于寡。"),
        ("12.5", "颜渊", "子夏曰：商闻之矣，死生有命，富贵在天。"),
        ("19.6", "子张", "子夏曰：博学而笃志，切问而近思，仁在其中矣。"),
        ("5.13", "公冶长", "子贡曰：夫子之文章，可得而闻也。"),
        ("19.21", "子张", "子贡曰：君子之过也，如日月之食焉。"),
    ]
    out = [
        Passage(f"lunyu:{n}", f"《论语·{name}》第{n.split('.')[1]}章", "lunyu", name, text) for n, name, text in lunyu
    ]
    out += [
        Passage("shijing:1", "《诗经·国风·周南·关雎》", "shijing", "关雎", "关关雎鸠，在河之洲。窈窕淑女，君子好逑。"),
        Passage("shijing:6", "《诗经·国风·周南·桃夭》", "shijing", "桃夭", "桃之夭夭，灼灼其华。之子于归，宜其室家。"),
        Passage(
            "shijing:23",
            "《诗经·国风·召南·野有死麕》",
            "shijing",
            "野有死麕",
            "野有死麕，白茅包之。有女怀春，吉士诱之。",
        ),
        Passage("shijing:30", "《诗经·国风·邶风·终风》", "shijing", "终风", "终风且暴，顾我则笑。谑浪笑敖，中心是悼。"),
    ]
    return out


def quiz_service(storage: Storage, posters: Posters, *, seed: int = 1, **kw) -> QuizService:
    return QuizService(
        QuizRepo(storage.engine), QuizMaker(passages()), posters, storage.settings, rng=random.Random(seed), **kw
    )


def quiz_router(quizzes: QuizService) -> CommandRouter:
    router = CommandRouter()
    QuizCommands(quizzes).register(router)
    return router


def utcnow() -> datetime:
    return datetime.now(UTC)
