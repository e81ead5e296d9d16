"""Exports a small GPT-2 (Hugging Face transformers, random weights) with torch.export for the
C++ example beside this file: `python export_gpt2.py gpt2.pt2`. The archive's graph maps token
ids [4, 16] to next-token logits [4, 16, 64]; the example fine-tunes it from C++."""
import os
import sys

import torch
import transformers


class Logits(torch.nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids):
        # Every token attended: the mask's path through transformers' mask builder is the one
        # kiln imports (without a mask, it looks for packed sequences with torch.diff).
        mask = torch.ones_like(input_ids)
        return self.lm(input_ids=input_ids, attention_mask=mask, use_cache=False).logits


def main(path):
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                                     bos_token_id=0, eos_token_id=0)
    model = Logits(transformers.GPT2LMHeadModel(config).eval())
    ids = torch.zeros(4, 16, dtype=torch.long)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    torch.export.save(torch.export.export(model, (ids,)), path)


if __name__ == "__main__":
    main(sys.argv[1])
