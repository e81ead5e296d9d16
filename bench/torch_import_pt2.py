"""Writes the archive bench/import_pt2_bench.cc imports: GPT-2 small (transformers'
GPT2LMHeadModel with its default config: 12 layers, 768 wide, 50257 words, 124M float32
parameters, 499 MB; random weights, nothing downloaded) taking input_ids and attention_mask of
[1, 16], exported and saved by PyTorch 2.15, and prints how long torch.export.load takes on it,
as a flat JSON object. Issue 21 asks kiln to import this archive in < 0.5 s.

    .venv/bin/python bench/torch_import_pt2.py /tmp/gpt2_small.pt2
"""
import json
import sys
import time

import torch
import transformers


class Logits(torch.nn.Module):
    """The language model's logits, without the cache transformers would also return."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def main():
    path = sys.argv[1]
    torch.manual_seed(0)
    config = transformers.GPT2Config()
    model = Logits(transformers.GPT2LMHeadModel(config).eval())
    ids = torch.randint(0, config.vocab_size, (1, 16))
    with torch.no_grad():
        ep = torch.export.export(model, (ids, torch.ones_like(ids)))
    torch.export.save(ep, path)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        torch.export.load(path)
        times.append(time.perf_counter() - start)
    params = sum(p.numel() for p in model.parameters())
    print(json.dumps({"params": params, "torch_load_s": min(times), "torch": torch.__version__}))


if __name__ == "__main__":
    main()
