"""PyTorch's side of kiln_bench_onnx_export: the same GPT as kiln's demo model (token and
position embeddings, pre-LayerNorm blocks of causal self-attention written out as matmul +
masked_fill + softmax, a tanh-GELU MLP, final LayerNorm, LM head), exported with
torch.onnx.export (the TorchScript exporter, the reference's verify path) to memory.

  torch_onnx_export.py --vocab V --context N --width C --heads H --layers L --seq T --runs R

Prints one JSON object: the best export time in ms with the weights (export_params=True)
and without them (export_params=False), and the parameter count."""
import argparse
import io
import json
import math
import time
import warnings

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def attention(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (p.reshape(b, t, self.heads, c // self.heads).transpose(1, 2) for p in (q, k, v))
        scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(c // self.heads))
        future = torch.ones(t, t, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        return self.proj((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, c))

    def forward(self, x):
        h = x + self.attention(self.ln1(x))
        return h + self.out(nn.functional.gelu(self.fc(self.ln2(h)), approximate="tanh"))


class Gpt(nn.Module):
    def __init__(self, vocab, context, width, heads, layers):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos.weight[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def main():
    ap = argparse.ArgumentParser()
    for name in ("vocab", "context", "width", "heads", "layers", "seq", "runs"):
        ap.add_argument("--" + name, type=int, required=True)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    model = Gpt(a.vocab, a.context, a.width, a.heads, a.layers).eval()
    tokens = torch.randint(0, a.vocab, (1, a.seq))
    result = {"params": sum(p.numel() for p in model.parameters())}
    for key, export_params in (("with_weights_ms", True), ("without_weights_ms", False)):
        best = math.inf
        for _ in range(a.runs):
            t0 = time.perf_counter()
            torch.onnx.export(model, (tokens,), io.BytesIO(), dynamo=False, opset_version=17,
                              export_params=export_params)
            best = min(best, time.perf_counter() - t0)
        result[key] = 1e3 * best
    print(json.dumps(result))


if __name__ == "__main__":
    main()
