"""The classics tools: `search_classics`, `find_quote` and `get_passage` over one `PassageSearch`.

The agent calls them (bot/agent.py) and `fuzi mcp` serves the same three to any MCP client
(bot/commands/mcp.py). Every one returns citable passages under the key "passages" (`id`, `ref`,
`text`), which the engine numbers [1], [2], … for citations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import structlog
from pydantic import Field

from core.books.named import not_held_note
from core.ports import PassageSearch, SearchHit
from core.retrieval.documents import is_passage_id, sort_key
from core.tools.tool import Tool, ToolContext, ToolError, tool

log = structlog.get_logger(__name__)

PASSAGE_CHARS = 600  # longer passages (long poems) are cut in what the model sees
QUOTE_LIMIT = 5


def classics_tools(passages: PassageSearch) -> list[Tool]:
    """The three classics tools over `passages`, in the order the model sees them."""
    return [search_classics_tool(passages), find_quote_tool(passages), get_passage_tool(passages)]


def search_classics_tool(passages: PassageSearch, *, max_k: int = 10) -> Tool:
    """The `search_classics` tool over `passages`."""

    @tool
    async def search_classics(
        ctx: ToolContext,
        query: str,
        k: Annotated[int, Field(ge=1, le=10)] = 5,
        corpus: Literal["all", "lunyu", "shijing", "mengzi", "daxue", "zhongyong", "sishu"] = "all",
    ) -> dict[str, Any]:
        """Search the original texts of the Analects (论语), the Book of Songs (诗经), Mencius (孟子),
        the Great Learning (大学) and the Doctrine of the Mean (中庸) and return numbered passages to
        quote and cite. Use it before answering about Confucius's teachings, Mencius, a saying, a
        disciple, a virtue or a poem, and to check a quotation. Do not use it for modern facts or
        events, nor for what the user told you about themselves.
        Search with the classical wording whenever you know it: the original words of the saying
        or line (己所不欲, not "don't impose on others"), a name (管仲, 颜渊) or a poem's title (关雎).
        Words found verbatim in a passage put that passage first; modern or English wording is
        matched only approximately. If the results do not fit, search again with other classical
        words you expect in the text.

        Args:
            query: a classical phrase, name or title when you know one (e.g. 管仲, 巧言令色, 关雎),
                else the question in the user's words.
            k: how many passages to return (1-10).
            corpus: one book ("lunyu", "shijing", "mengzi", "daxue", "zhongyong"), "sishu" for the
                Four Books (论语 孟子 大学 中庸), "all" for every book.
        """
        if not query.strip():
            raise ToolError("the query is empty", hint="Pass the words or the question to search for.")
        response = await passages.search(query, k=min(k, max_k), corpus=corpus)
        found = [p for p in map(passage, response.results) if p["id"]][:k]
        log.info("tool_search_classics", corpus=corpus, k=k, found=len(found), trace_id=ctx.trace_id)
        note = not_held_note(getattr(response, "unheld", ()), getattr(response, "held", ()))
        return {"passages": found, "note": note} if note else {"passages": found}

    return search_classics


def find_quote_tool(passages: PassageSearch) -> Tool:
    """The `find_quote` tool over `passages`."""

    @tool
    async def find_quote(ctx: ToolContext, text: str) -> dict[str, Any]:
        """Find where a remembered line comes from: the passages of the classics (论语, 诗经, 孟子, 大学,
        中庸) that contain it word for word, or failing that the closest keyword matches. Use it
        when the user quotes or half-remembers a line (e.g. 巧言令色, 执子之手). Do not use it for
        questions about meaning; use search_classics for those.

        Args:
            text: the line as the user remembers it (punctuation does not matter).
        """
        if not text.strip():
            raise ToolError("the text is empty", hint="Pass the words of the line to look up.")
        results, exact = await passages.find_quote(text, k=QUOTE_LIMIT)
        log.info("tool_find_quote", exact=exact, found=len(results), trace_id=ctx.trace_id)
        return {"passages": [passage(r) for r in results], "exact": exact}

    return find_quote


def get_passage_tool(passages: PassageSearch) -> Tool:
    """The `get_passage` tool over `passages`."""

    @tool
    async def get_passage(ctx: ToolContext, id: str) -> dict[str, Any]:
        """Read one passage in full by its id (e.g. lunyu:3.22, shijing:1, mengzi:1.3) with the passages just
        before and after it for context. Use it to quote a passage exactly or to see its context after
        a search. Do not use it to search.

        Args:
            id: a passage id as given in earlier results (lunyu:3.22, shijing:1, mengzi:1.3, daxue:1).
        """
        wanted = id.strip()
        found = await passages.get(wanted) if is_passage_id(wanted) else None
        if found is None:
            raise ToolError(f"no passage has the id {id!r}", hint="Use an id from search results, e.g. lunyu:3.22.")
        around = await passages.neighbours(found.id, n=1)
        log.info("tool_get_passage", neighbours=len(around), trace_id=ctx.trace_id)
        return {"passages": _in_order(found, around), "requested": found.id}

    return get_passage


def _in_order(found: SearchHit, around: Sequence[SearchHit]) -> list[dict[str, str]]:
    """The passages before, the requested one (never cut), the passages after, each with its role."""
    key = sort_key(found.id)
    before = [passage(p) | {"role": "before"} for p in around if sort_key(p.id) < key]
    after = [passage(p) | {"role": "after"} for p in around if sort_key(p.id) > key]
    requested = passage(found) | {"role": "requested", "text": found.text}
    return [*before, requested, *after]


def passage(hit: SearchHit) -> dict[str, str]:
    """A passage as the tools return it: `id`, `ref` (the citation) and the text, cut for the model."""
    return {"id": hit.id, "ref": hit.ref or hit.id, "text": cut_passage(hit.text or "")}


def cut_passage(text: str) -> str:
    """A passage's text as tools return it: white space folded, cut at PASSAGE_CHARS with "……"."""
    text = " ".join(text.split())
    return text if len(text) <= PASSAGE_CHARS else text[:PASSAGE_CHARS] + "……"
