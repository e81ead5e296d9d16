"""Writes the archive bench/import_pt2_bench.cc imports: a stack of linears the size of GPT-2
small's MLPs and head (12 blocks of 768->3072->768 with GELU, plus a 768->50257 head: 95M
float32 parameters, 381 MB; GPT-2 small itself has 124M with its attention and embeddings), exported and saved by PyTorch 2.15, and prints how long torch.export.load
takes on it, as a flat JSON object.

    .venv/bin/python bench/torch_import_pt2.py /tmp/gpt2_sized.pt2
"""
import json
import sys
import time

import torch
import torch.nn as nn


class Gpt2SizedMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(768, 3072), nn.GELU(), nn.Linear(3072, 768)) for _ in range(12))
        self.head = nn.Linear(768, 50257, bias=False)

    def forward(self, x):
        for b in self.blocks:
            x = x + b(x)
        return self.head(x)


def main():
    path = sys.argv[1]
    torch.manual_seed(0)
    with torch.no_grad():
        ep = torch.export.export(Gpt2SizedMlp().eval(), (torch.randn(1, 768),))
    torch.export.save(ep, path)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        torch.export.load(path)
        times.append(time.perf_counter() - start)
    params = sum(p.numel() for p in ep.state_dict.values())
    print(json.dumps({"params": params, "torch_load_s": min(times), "torch": torch.__version__}))


if __name__ == "__main__":
    main()
