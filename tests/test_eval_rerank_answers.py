"""The lab's record-and-replay of the LLM reranker (evals/retrieval/llm_answers.py): a recorded prompt,
answered, replays as that answer's order; a prompt nobody answered keeps the fused order and is counted."""

from __future__ import annotations

import json

from core.retrieval.indexer import build_index
from core.retrieval.rerank import LLMReranker
from core.retrieval.retriever import RetrieverConfig
from core.retrieval.store import PassageStore
from evals.retrieval.llm_answers import PromptBook, load_answers, prompt_sha
from tests.fakes.retrieval_fixtures import TableEmbedder, open_retriever, passage

DOCS = [passage("lunyu:1.1", "学而时习之"), passage("lunyu:1.3", "巧言令色鲜矣仁"), passage("shijing:1", "关关雎鸠")]
CONFIG = RetrieverConfig(verbatim_boost=False)


async def test_a_recorded_prompt_replays_as_its_answer_and_a_new_one_keeps_fused_order(tmp_path):
    embedder = TableEmbedder({"学": [1, 0, 0, 0], "巧": [0, 1, 0, 0], "关": [0, 0, 1, 0]})
    build_index(PassageStore(tmp_path / "index"), embedder, DOCS)
    recorder = PromptBook()
    recording = await open_retriever(tmp_path / "index", embedder, reranker=LLMReranker(recorder), config=CONFIG)
    fused = [r.id for r in (await recording.search("学而", k=3)).results]
    assert len(recorder.prompts) == 1 and recorder.missing == 1 and len(fused) == 3
    ((sha, prompt),) = recorder.prompts.items()
    assert sha == prompt_sha(prompt) and "学而" in prompt

    answer = "3, 2, 1"  # the last candidate best
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"sha": sha, "answer": answer}) + "\n", "utf-8")
    replayer = PromptBook(load_answers([answers]))
    replaying = await open_retriever(tmp_path / "index", embedder, reranker=LLMReranker(replayer), config=CONFIG)
    replayed = await replaying.search("学而", k=3)
    assert replayed.reranked and [r.id for r in replayed.results] == fused[::-1]

    other = await replaying.search("巧言", k=3)
    assert not other.reranked and replayer.missing == 1


async def test_the_ceiling_scores_a_perfect_choice_among_the_candidates_shown(tmp_path):
    from evals.retrieval.ceiling import Shown, candidates, perfect

    embedder = TableEmbedder({"学": [1, 0, 0, 0], "巧": [0, 1, 0, 0], "关": [0, 0, 1, 0]})
    build_index(PassageStore(tmp_path / "index"), embedder, DOCS)
    plain = await open_retriever(tmp_path / "index", embedder, config=CONFIG)
    fused = [r.id for r in (await plain.search("学而", k=3)).results]
    shown = Shown()
    narrow = RetrieverConfig(verbatim_boost=False, rerank_pool=2)
    watched = await open_retriever(tmp_path / "index", embedder, reranker=shown, config=narrow)
    response = await watched.search("学而", k=1)
    assert shown.ids == fused[:2] and [r.id for r in response.results] == fused[:1]  # fused order kept
    assert perfect([fused[1]], shown.ids) == (1.0, 0.2)  # second in fused order: a perfect reranker puts it first
    assert perfect([fused[2]], shown.ids) == (0.0, 0.0)  # never shown: no reranker can reach it
    assert perfect(fused, fused + ["x"] * 5) == (1.0, 0.6)
    assert await candidates(watched, shown, "学而", 3) == fused
    assert await candidates(watched, shown, "  ", 3) == []  # no search, no reranker: not the last query's
