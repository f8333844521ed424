"""The `search_classics` tool: the Analects and the Book of Songs, through any passage retriever.

The retriever is anything with `search(query, *, k, corpus)` (sync or async) returning results (or an
object with `.results`) that carry `id`, `ref` and `text` — core/retrieval's hybrid retriever in
production, a small keyword index in tests. Sync retrievers (LanceDB, BM25) run in a worker thread.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol

import structlog
from pydantic import Field

from core.tools.server import ToolContext, ToolError, ToolServer, call_sync_or_async

log = structlog.get_logger(__name__)

PASSAGE_CHARS = 600  # longer passages (long poems) are cut in what the model sees


class PassageRetriever(Protocol):
    def search(self, query: str, *, k: int = ..., corpus: str = ...) -> Any: ...


def classics_server(retriever: PassageRetriever, *, max_k: int = 10) -> ToolServer:
    """A tool server named "classics" offering `search_classics` over `retriever`."""
    server = ToolServer("classics")

    @server.tool
    async def search_classics(
        ctx: ToolContext,
        query: str,
        k: Annotated[int, Field(ge=1, le=10)] = 5,
        corpus: Literal["all", "lunyu", "shijing"] = "all",
    ) -> dict:
        """Search the original texts of the Analects (论语) and the Book of Songs (诗经) and return
        numbered passages to quote and cite. Use it before answering about Confucius's teachings,
        a saying, a disciple, a virtue or a poem, and to check a quotation. Do not use it for
        modern facts or events, nor for what the user told you about themselves.
        Search with the classical wording whenever you know it: the original words of the saying
        or line (己所不欲, not "don't impose on others"), a name (管仲, 颜渊) or a poem's title (关雎).
        Words found verbatim in a passage put that passage first; modern or English wording is
        matched only approximately. If the results do not fit, search again with other classical
        words you expect in the text.

        Args:
            query: a classical phrase, name or title when you know one (e.g. 管仲, 巧言令色, 关雎),
                else the question in the user's words.
            k: how many passages to return (1-10).
            corpus: "lunyu" for the Analects only, "shijing" for the Book of Songs only, "all" for both.
        """
        if not query.strip():
            raise ToolError("the query is empty", hint="Pass the words or the question to search for.")
        results = await _search(retriever, query, min(k, max_k), corpus)
        passages = [p for p in map(_passage, results) if p["id"]][:k]
        log.info("tool_search_classics", corpus=corpus, k=k, found=len(passages), trace_id=ctx.trace_id)
        return {"passages": passages}

    return server


async def _search(retriever: PassageRetriever, query: str, k: int, corpus: str) -> list[Any]:
    response = await call_sync_or_async(retriever.search, query, k=k, corpus=corpus)
    results = getattr(response, "results", response)
    return list(results or [])


def _passage(result: Any) -> dict[str, str]:
    get = result.get if isinstance(result, dict) else lambda name, default="": getattr(result, name, default)
    pid = str(get("id", ""))
    return {"id": pid, "ref": str(get("ref", "") or pid), "text": cut_passage(str(get("text", "") or ""))}


def cut_passage(text: str) -> str:
    """A passage's text as tools return it: white space folded, cut at PASSAGE_CHARS with "……"."""
    text = " ".join(text.split())
    return text if len(text) <= PASSAGE_CHARS else text[:PASSAGE_CHARS] + "……"
