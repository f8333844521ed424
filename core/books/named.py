"""Which books a question names that Fuzi does not read: another classic (荀子, 老子 …), or one of
its own books whose file the corpus folder lacks. The answer then says which books it reads, and
never quotes the other from memory as if it had checked it."""

from __future__ import annotations

import re

from core.books.registry import BOOKS, OTHER_CLASSICS
from core.language.text import to_simplified

_OTHER = re.compile("|".join(re.escape(n.lower()) for n in sorted(OTHER_CLASSICS, key=len, reverse=True)))


def unheld_books(question: str, present: tuple[str, ...] | frozenset[str]) -> list[str]:
    """The names of the books `question` names that are not among `present` (book ids), in the
    order they appear; [] when it names none."""
    text = to_simplified(question).lower()
    found = [m.group(0) for m in _OTHER.finditer(text)]
    for book in BOOKS:
        if book.id not in present and any(name.lower() in text for name in (book.name, *book.aliases)):
            found.append(book.name)
    names = {n.lower(): n for n in OTHER_CLASSICS}
    return list(dict.fromkeys(names.get(n, n) for n in found))


def not_held_note(unheld: list[str] | tuple[str, ...], present: tuple[str, ...] | frozenset[str]) -> str:
    """What the model is told when a question names books Fuzi does not read ("" when none)."""
    if not unheld:
        return ""
    names = ", ".join(unheld)
    return (
        f"Fuzi's library holds only {held_english(present)} ({held_titles(present)}); it does not hold "
        f"{names}. Say so plainly; do not quote {names} from memory as if it had been checked."
    )


def held_titles(present: tuple[str, ...] | frozenset[str]) -> str:
    """《论语》《诗经》… for the books present, in registry order."""
    return "".join(f"《{b.name}》" for b in BOOKS if b.id in present)


def held_english(present: tuple[str, ...] | frozenset[str]) -> str:
    """ "the Analects, the Book of Songs and Mencius" for the books present."""
    names = [b.english for b in BOOKS if b.id in present]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
