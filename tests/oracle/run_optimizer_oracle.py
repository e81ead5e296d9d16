#!/usr/bin/env python3
"""kiln's SGD and AdamW against torch.optim, step by step.

  run_optimizer_oracle.py --trace build/tests/oracle/kiln_optimizer_trace

For each configuration below, kiln_optimizer_trace runs kiln's optimizer for five steps on
two f32 parameters and writes the initial parameters, every step's gradients and the
parameters after every step (.npy). This script replays the same gradients through the
torch.optim optimizer with the same hyperparameters (each configuration names every one whose
default differs between the two programs; foreach=False: the single-tensor
implementation kiln follows) and compares the parameters after every step with
torch.allclose(rtol=1e-6, atol=1e-6). Step 2 has no gradient for `b` (its .grad is None in
torch, so both skip it). Prints one line per configuration; exits 1 if any differs."""
import argparse
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch

STEPS = 5
CONFIGS = [
    ("sgd", {"lr": 0.1}),
    ("sgd", {"lr": 0.05, "momentum": 0.9}),
    ("sgd", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("sgd", {"lr": 0.05, "momentum": 0.8, "nesterov": 1, "weight_decay": 0.1}),
    ("adamw", {"lr": 0.01, "weight_decay": 0.01}),
    ("adamw", {"lr": 0.02, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6, "weight_decay": 0.1}),
    ("adamw", {"lr": 0.01, "amsgrad": 1, "weight_decay": 0.0}),
    ("adamw", {"lr": 0.03, "amsgrad": 1, "weight_decay": 0.05}),
]


def torch_optimizer(kind, opts, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=opts["lr"], momentum=opts.get("momentum", 0),
                               dampening=opts.get("dampening", 0), weight_decay=opts.get("weight_decay", 0),
                               nesterov=bool(opts.get("nesterov", 0)), foreach=False)
    return torch.optim.AdamW(params, lr=opts["lr"], betas=(opts.get("beta1", 0.9), opts.get("beta2", 0.999)),
                             eps=opts.get("eps", 1e-8), weight_decay=opts.get("weight_decay", 1e-2),
                             amsgrad=bool(opts.get("amsgrad", 0)), foreach=False)


def check(trace, kind, opts):
    """None when kiln's trace matches torch at every step, else why not."""
    with tempfile.TemporaryDirectory() as tmp:
        d = pathlib.Path(tmp)
        args = [trace, str(d), kind] + [f"{k}={v}" for k, v in opts.items()] + [f"steps={STEPS}"]
        run = subprocess.run(args, capture_output=True, text=True)
        if run.returncode != 0:
            return f"kiln_optimizer_trace failed: {run.stderr.strip()}"
        load = lambda name: torch.from_numpy(np.load(d / f"{name}.npy"))  # noqa: E731
        params = {n: load(f"{n}_init").clone().requires_grad_(True) for n in ("a", "b")}
        optimizer = torch_optimizer(kind, opts, list(params.values()))
        for s in range(STEPS):
            for n, p in params.items():
                grad_file = d / f"grad{s}_{n}.npy"
                p.grad = load(f"grad{s}_{n}") if grad_file.exists() else None
            optimizer.step()
            for n, p in params.items():
                got, want = load(f"{n}{s}"), p.detach()
                if got.dtype != want.dtype or not torch.allclose(got, want, rtol=1e-6, atol=1e-6):
                    worst = (got.double() - want.double()).abs().max().item()
                    return f"step {s}, parameter {n}: max |kiln - torch| = {worst:.3g}"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace", required=True, help="path of kiln_optimizer_trace")
    args = parser.parse_args()
    failed = 0
    for kind, opts in CONFIGS:
        why = check(args.trace, kind, opts)
        failed += why is not None
        print(f"{'FAIL' if why else 'ok  '} {kind} {opts}" + (f": {why}" if why else ""))
    print(f"{len(CONFIGS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
