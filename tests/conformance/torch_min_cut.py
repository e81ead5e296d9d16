"""The reference's saved-activation bytes for the transformer block of the autograd acceptance
tests (tests/model/transformer_block.h): AOTAutograd on the CPU, partitioned once with
default_partition and once with min_cut_rematerialization_partition per memory budget
(1.0, 0.9, ..., 0.0). Saved bytes = sum of numel * itemsize over the forward graph's outputs
beyond its num_fwd_outputs user outputs (symbolic ints count 0). Prints one JSON object.

    python torch_min_cut.py [--batch 4 --seq 512 --width 1024 --heads 16] [--saved-ops]
"""
import argparse
import functools
import json
import math
import time

import torch
from torch import nn
from torch._functorch import config as functorch_config
from torch._functorch.aot_autograd import aot_function
from torch._functorch.partitioners import default_partition, min_cut_rematerialization_partition

BUDGETS = [round(1.0 - 0.1 * i, 1) for i in range(11)]


class TransformerBlock(nn.Module):
    """x -> h = x + proj(attn(ln1(x))) -> h + fc2(gelu_tanh(fc1(ln2(h)))), causal attention by hand."""

    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)

    def attention(self, x):
        b, t, w = x.shape
        head_dim = w // self.heads
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, head_dim).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=1)
        probs = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
        return (probs @ v).transpose(1, 2).reshape(b, t, w)

    def forward(self, x):
        h = x + self.proj(self.attention(self.ln1(x)))
        out = h + self.fc2(nn.functional.gelu(self.fc1(self.ln2(h)), approximate="tanh"))
        return out.sum()


def tensor_bytes(val):
    if isinstance(val, torch.Tensor):
        return val.numel() * val.element_size()
    return 0  # SymInt / None


class Recorder:
    """A partition_fn that runs `inner` and measures the forward graph it returns."""

    def __init__(self, inner):
        self.inner = inner
        self.result = None

    def __call__(self, joint, joint_inputs, *, num_fwd_outputs, **kwargs):
        fw, bw = self.inner(joint, joint_inputs, num_fwd_outputs=num_fwd_outputs, **kwargs)
        outputs = next(n for n in fw.graph.nodes if n.op == "output").args[0]
        saved = [n for n in outputs[num_fwd_outputs:] if n is not None]
        forward_names = {n.name for n in fw.graph.nodes if n.op == "call_function"}
        recomputed = [n for n in bw.graph.nodes if n.op == "call_function" and n.name in forward_names]
        self.result = {
            "saved_bytes": sum(tensor_bytes(n.meta.get("val")) for n in saved),
            "saved_param_bytes": sum(tensor_bytes(n.meta.get("val")) for n in saved if is_parameter_view(n)),
            "num_saved": len(saved),
            "num_forward_outputs": num_fwd_outputs,
            "forward_nodes": sum(1 for n in fw.graph.nodes if n.op == "call_function"),
            "backward_nodes": sum(1 for n in bw.graph.nodes if n.op == "call_function"),
            "recomputed_nodes": len(recomputed),
            "saved": [describe(n) for n in saved],
        }
        return fw, bw


VIEW_OPS = {"t", "transpose", "permute", "view", "_unsafe_view", "reshape", "expand", "detach", "alias"}


def is_parameter_view(node):
    """A parameter (a placeholder after primals_1, the input x) or a chain of views of one."""
    while node.op == "call_function" and getattr(node.target, "__name__", "").split(".")[0] in VIEW_OPS:
        node = node.args[0]
    return node.op == "placeholder" and node.target != "primals_1"


def describe(node):
    val = node.meta.get("val")
    shape = list(val.shape) if isinstance(val, torch.Tensor) else None
    producer = str(node.target) if node.op == "call_function" else node.op
    return {"name": node.name, "op": producer, "shape": shape, "bytes": tensor_bytes(val)}


def trace(block, x, partition_fn):
    names = [name for name, _ in block.named_parameters()]

    def fn(x, *params):
        return torch.func.functional_call(block, dict(zip(names, params)), (x,))

    def no_compile(gm, _inputs):
        return gm

    recorder = Recorder(partition_fn)
    compiled = aot_function(fn, fw_compiler=no_compile, bw_compiler=no_compile, partition_fn=recorder)
    compiled(x, *block.parameters())
    return recorder.result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--saved-ops", action="store_true", help="also list the saved values per partition")
    args = parser.parse_args()

    start = time.perf_counter()
    # On the meta device nothing is computed: AOTAutograd traces shapes only, which is all the
    # partitioners read (sizes, and FLOP counts for the budget knapsack).
    with torch.device("meta"):
        block = TransformerBlock(args.width, args.heads)
        x = torch.randn(args.batch, args.seq, args.width, requires_grad=True)

    default = trace(block, x, default_partition)
    min_cut = {}
    for budget in BUDGETS:
        with functorch_config.patch(activation_memory_budget=budget):
            min_cut[f"{budget:.1f}"] = trace(block, x, min_cut_rematerialization_partition)

    def summary(r):
        keys = ["saved_param_bytes", "num_saved", "forward_nodes", "backward_nodes", "recomputed_nodes"]
        s = {k: r[k] for k in keys}
        if args.saved_ops:
            s["saved"] = r["saved"]
        return s

    result = {
        "default": default["saved_bytes"],
        "min_cut": {b: r["saved_bytes"] for b, r in min_cut.items()},
        "details": {"default": summary(default), "min_cut": {b: summary(r) for b, r in min_cut.items()}},
        "config": {
            "batch": args.batch, "seq": args.seq, "width": args.width, "heads": args.heads,
            "dtype": "float32", "wrt": "x and every parameter", "loss": "out.sum()",
            "device": "meta", "torch": torch.__version__, "seconds": round(time.perf_counter() - start, 2),
        },
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
