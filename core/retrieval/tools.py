"""Agent tools over the hybrid retriever: `search_classics`, `find_quote`, `get_passage`.

`search_classics` is the tool-layer's own (core/tools/classics.py) over this retriever; this module
adds the two lookups that need the retriever's index. Every tool returns citable passages under the
key "passages" (`id`, `ref`, `text`), which the engine numbers [1], [2], … for citations.
"""

from __future__ import annotations

from typing import Protocol

import structlog

from core.retrieval.documents import Passage, is_passage_id
from core.retrieval.retriever import SearchResult
from core.tools.classics import PassageRetriever, classics_server, cut_passage
from core.tools.server import ToolContext, ToolError, ToolServer

log = structlog.get_logger(__name__)

QUOTE_LIMIT = 5


class ClassicsIndex(PassageRetriever, Protocol):
    """What the classics tools ask of the retriever (HybridRetriever, or a timing wrapper around it)."""

    async def find_quote(self, text: str, *, k: int = ..., corpus: str = ...) -> tuple[list[SearchResult], bool]: ...
    async def get(self, passage_id: str) -> Passage | None: ...
    async def neighbours(self, passage_id: str, n: int = ...) -> list[Passage]: ...


def classics_tools(retriever: ClassicsIndex) -> ToolServer:
    """The "classics" tool server: search, quote lookup and passage lookup over `retriever`."""
    server = classics_server(retriever)

    @server.tool
    async def find_quote(ctx: ToolContext, text: str) -> dict:
        """Find where a remembered line comes from: the passages of the Analects (论语) or the Book of
        Songs (诗经) that contain it word for word, or failing that the closest keyword matches. Use it
        when the user quotes or half-remembers a line (e.g. 巧言令色, 执子之手). Do not use it for
        questions about meaning; use search_classics for those.

        Args:
            text: the line as the user remembers it (punctuation does not matter).
        """
        if not text.strip():
            raise ToolError("the text is empty", hint="Pass the words of the line to look up.")
        results, exact = await retriever.find_quote(text, k=QUOTE_LIMIT)
        log.info("tool_find_quote", exact=exact, found=len(results), trace_id=ctx.trace_id)
        return {"passages": [_result(r) for r in results], "exact": exact}

    @server.tool
    async def get_passage(ctx: ToolContext, id: str) -> dict:
        """Read one passage in full by its id (e.g. lunyu:3.22, shijing:1) with the passages just
        before and after it for context. Use it to quote a passage exactly or to see its context after
        a search. Do not use it to search.

        Args:
            id: a passage id as given in earlier results: lunyu:<chapter>.<paragraph> or shijing:<number>.
        """
        passage = await retriever.get(id.strip()) if is_passage_id(id.strip()) else None
        if passage is None:
            raise ToolError(f"no passage has the id {id!r}", hint="Use an id from search results, e.g. lunyu:3.22.")
        around = await retriever.neighbours(passage.id, n=1)
        before = [p for p in around if _key(p) < _key(passage)]
        after = [p for p in around if _key(p) > _key(passage)]
        ordered = [_passage(p, role="before") for p in before] + [_passage(passage, role="requested")]
        ordered += [_passage(p, role="after") for p in after]
        ordered[len(before)]["text"] = passage.text  # the requested passage is never cut
        log.info("tool_get_passage", neighbours=len(around), trace_id=ctx.trace_id)
        return {"passages": ordered, "requested": passage.id}

    return server


def _key(p: Passage) -> tuple:
    from core.retrieval.documents import sort_key

    return sort_key(p.id)


def _passage(p: Passage, *, role: str) -> dict:
    return {"id": p.id, "ref": p.ref, "text": cut_passage(p.text), "role": role}


def _result(r: SearchResult) -> dict:
    return {"id": r.id, "ref": r.ref, "text": cut_passage(r.text), "verbatim": r.verbatim}
