"""Gloss vectors (core/retrieval/gloss_vectors.py): built by `fuzi index` once per gloss content and
model, loaded from the gloss route's glosses when a query first runs that route, used by the vector
route only for the queries the gloss route serves."""

from __future__ import annotations

import numpy as np

from core.retrieval import glosses as glosses_module
from core.retrieval.asks import ASK_DIR
from core.retrieval.gloss_vectors import GlossVectors
from core.retrieval.glosses import load_glosses, load_stanzas
from core.retrieval.indexer import build_index
from core.retrieval.segments import segments
from core.retrieval.store import PassageStore
from tests.fakes.retrieval_fixtures import HashingEmbedder, open_retriever, passage
from tests.test_retrieval_gloss import DOCS, GLOSSES, write


class Counting(HashingEmbedder):
    def __init__(self):
        super().__init__()
        self.texts = 0

    def embed_passages_sync(self, texts):
        self.texts += len(texts)
        return super().embed_passages_sync(texts)


def files(db):
    return sorted((db / ".glosses").glob("*.npz"))


def test_built_once_per_gloss_content_and_model(tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    db, embedder = tmp_path / "db", Counting()
    build_index(PassageStore(db), embedder, DOCS, glosses=True)
    passages = embedder.texts
    assert len(files(db)) == 1 and passages == len(DOCS) + 2 * len(GLOSSES)  # an English and a Chinese one each
    build_index(PassageStore(db), embedder, DOCS, glosses=True, rebuild=True)
    assert embedder.texts == passages + len(DOCS)  # same glosses, same model: the saved vectors are kept
    edited = [dict(GLOSSES[0], en="Zengzi asks himself three questions every day."), *GLOSSES[1:]]
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g2", edited))
    first = files(db)
    build_index(PassageStore(db), embedder, DOCS, glosses=True)
    assert embedder.texts == passages + len(DOCS) + 2 * len(GLOSSES) and len(files(db)) == 1 and files(db) != first
    loaded = GlossVectors.load(
        PassageStore(db), DOCS, load_glosses(), load_stanzas(), {}, embedder.model_name, embedder.dim
    )
    assert loaded is not None and len(loaded) == 2 * len(GLOSSES)
    assert (
        GlossVectors.load(PassageStore(db), DOCS, load_glosses(), load_stanzas(), {}, "another-model", embedder.dim)
        is None
    )  # another model: none


def test_a_passage_scores_its_best_gloss_row(tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    db, embedder = tmp_path / "db", HashingEmbedder()
    build_index(PassageStore(db), embedder, DOCS, glosses=True)
    vectors = GlossVectors.load(
        PassageStore(db), DOCS, load_glosses(), load_stanzas(), {}, embedder.model_name, embedder.dim
    )
    assert vectors is not None
    query = embedder.embed_passages_sync([GLOSSES[1]["zh"]])[0]
    hits = vectors.search(query, 5)
    assert hits[0][0] == "lunyu:2.7" and hits[0][1] > 0.99
    assert len({pid for pid, _ in hits}) == len(hits) == 3  # one hit per passage, at most its best row
    assert [pid for pid, _ in vectors.search(query, 5, corpus="shijing")] == ["shijing:73"]


async def test_only_the_queries_the_gloss_route_serves_use_them(tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    db = tmp_path / "db"
    build_index(PassageStore(db), HashingEmbedder(), DOCS)
    plain = await open_retriever(db)  # glosses, but no gloss vectors: warned, served as before
    assert plain._glosses is not None and plain._glosses.vectors is None
    build_index(PassageStore(db), HashingEmbedder(), DOCS, glosses=True)
    glossed = await open_retriever(db)
    assert glossed._glosses is not None and glossed._glosses.vectors is not None

    english = "Was he loyal and did he keep his word to friends?"
    top = (await glossed.search(english, k=4)).results[0]
    assert top.id == "lunyu:1.4" and top.routes["vector"] == 1
    for query in ("学而时习之", "大车", "🙂", "What did Confucius say about filial piety?"):  # quote, title, topic
        before = [(r.id, r.routes, r.fusion_score) for r in (await plain.search(query, k=4)).results]
        after = [(r.id, r.routes, r.fusion_score) for r in (await glossed.search(query, k=4)).results]
        assert after == before, query


async def test_a_damaged_file_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    db = tmp_path / "db"
    build_index(PassageStore(db), HashingEmbedder(), DOCS, glosses=True)
    (path,) = files(db)
    np.savez(path, vectors=np.zeros((1, 384), dtype=np.float32))
    retriever = await open_retriever(db)
    assert retriever._glosses is not None and retriever._glosses.vectors is None
    assert (await retriever.search("Was he loyal to friends?", k=2)).results
    path.write_bytes(b"not an npz")
    assert (
        GlossVectors.load(PassageStore(db), DOCS, load_glosses(), load_stanzas(), {}, "hashing-char12:384", 384) is None
    )


async def test_read_once_with_the_gloss_route_when_a_query_first_runs_it(tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    db = tmp_path / "db"
    build_index(PassageStore(db), HashingEmbedder(), DOCS, glosses=True)
    reads: list[str | None] = []
    read = glosses_module._read
    monkeypatch.setattr(glosses_module, "_read", lambda folder, *, part: reads.append(part) or read(folder, part=part))
    loads: list[int] = []
    load = GlossVectors.load.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(GlossVectors, "load", classmethod(lambda cls, *a, **kw: loads.append(1) or load(cls, *a, **kw)))
    retriever = await open_retriever(db)
    once = [None, "stanza", "segment"]  # the glosses, the stanzas, the segments: each folder read once
    assert reads == once and loads == []  # the start reads the glosses once, the vectors not at all
    await retriever.search("学而时习之", k=2)  # a quote: no gloss route, no gloss vectors
    assert loads == []
    top = (await retriever.search("Was he loyal and did he keep his word to friends?", k=2)).results[0]
    await retriever.search("What did Zengzi ask himself every day?", k=2)
    assert top.id == "lunyu:1.4" and loads == [1] and reads == once  # loaded once, from that one read


def test_a_long_chapters_segments_are_embedded_and_a_poems_stanzas_are_not(tmp_path, monkeypatch):
    story = "宋人有闵其苗之不长而揠之者，芒芒然归，谓其人曰：今日病矣，予助苗长矣。其子趋而往视之，苗则槁矣。"
    chapter = passage("mengzi:3.2", ("公孙丑问曰：夫子加齐之卿相，得行道焉，虽由此霸王不异矣。" * 6) + story * 3)
    docs = [*DOCS, chapter]
    cut = segments(chapter.text)
    assert len(cut) >= 2
    renderings = [
        {"id": "mengzi:3.2", "segment": n, "en": f"Part {n} of Gongsun Chou's talk with Mencius.", "zh": f"公孙丑和孟子谈话的第{n}部分。"}
        for n in range(1, len(cut))
    ] + [{"id": "mengzi:3.2", "segment": len(cut), "en": "A man of Song pulls up his sprouts to help them grow; they wither.",
          "zh": "宋国有人嫌禾苗长得慢，一棵棵往上拔，回家说累坏了，儿子去看，禾苗都枯死了。"}]  # fmt: skip
    chapter_gloss = {
        "id": "mengzi:3.2",
        "en": "Mencius on the unmoved mind and flood-like qi.",
        "zh": "孟子谈不动心与浩然之气。",
    }
    folder = write(tmp_path / "g", [*GLOSSES, chapter_gloss])
    write(folder / "segments", renderings, name="p1.jsonl")
    write(
        folder / "stanzas",
        [{"id": "shijing:73", "stanza": 1, "en": "The great cart rumbles on.", "zh": "大车隆隆地走。"}],
    )
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", folder)
    db, embedder = tmp_path / "db", HashingEmbedder()
    build_index(PassageStore(db), embedder, docs, glosses=True)
    vectors = GlossVectors.load(
        PassageStore(db), docs, load_glosses(), load_stanzas(), {}, embedder.model_name, embedder.dim
    )
    assert vectors is not None and len(vectors) == 2 * (len(GLOSSES) + 1) + 2 * len(cut)  # no stanza row
    query = embedder.embed_passages_sync([renderings[-1]["zh"]])[0]
    assert vectors.search(query, 3)[0][0] == "mengzi:3.2"


def test_a_passages_asks_are_embedded_and_count_for_chinese_queries_only(tmp_path, monkeypatch):
    asks = {"lunyu:2.7": ["光让爹妈吃饱不算孝顺", "养父母和养宠物有啥不同"]}
    folder = write(tmp_path / "g", GLOSSES)
    write(folder / ASK_DIR, [{"id": pid, "zh": items} for pid, items in asks.items()])
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", folder)
    db, embedder = tmp_path / "db", Counting()
    build_index(PassageStore(db), embedder, DOCS, glosses=True)
    assert embedder.texts == len(DOCS) + 2 * len(GLOSSES) + 2  # each ask a row of its own
    read = {pid: tuple(items) for pid, items in asks.items()}
    vectors = GlossVectors.load(
        PassageStore(db), DOCS, load_glosses(), load_stanzas(), read, embedder.model_name, embedder.dim
    )
    assert vectors is not None and len(vectors) == 2 * len(GLOSSES) + 2
    query = embedder.embed_passages_sync([asks["lunyu:2.7"][1]])[0]
    assert [pid for pid, _ in vectors.search(query, 1, asks=True)] == ["lunyu:2.7"]
    assert vectors.search(query, 1, asks=True)[0][1] > 0.99  # the ask itself
    assert vectors.search(query, 1)[0][1] < 0.99  # an English question's search: the glosses alone
    assert (
        GlossVectors.load(PassageStore(db), DOCS, load_glosses(), load_stanzas(), {}, embedder.model_name, embedder.dim)
        is None
    )  # other asks, other rows: not this file
