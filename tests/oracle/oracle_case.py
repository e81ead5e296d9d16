"""Oracle test cases: a graph in kiln's text form, its inputs (torch tensors) and a PyTorch
reference. run_oracle.py runs each case with `kiln run --check-capture` and compares kiln's
outputs with ref(*inputs) (dtype, shape, and torch.allclose with the case's tolerances).

A cases file is a module named cases_<area>.py with a list CASES of Case objects. Inputs come
from randn / randint / rand_bool, which draw from one torch.Generator that run_oracle.py
reseeds before loading each file, so every file's inputs are the same on every run."""
from dataclasses import dataclass, field
from typing import Callable, List, Optional

import torch

_DEFAULT_SEED = 0
_generator = torch.Generator().manual_seed(_DEFAULT_SEED)


def reset_generator(seed: int = _DEFAULT_SEED) -> None:
    """Restarts the shared generator (run_oracle.py calls it before loading each cases file)."""
    _generator.manual_seed(seed)


def _gen(seed):
    return _generator if seed is None else torch.Generator().manual_seed(seed)


def randn(*shape, dtype=torch.float32, seed=None):
    """Standard normal values of `dtype` (drawn in float32/float64, then converted)."""
    base = torch.float64 if dtype == torch.float64 else torch.float32
    return torch.randn(*shape, generator=_gen(seed), dtype=base).to(dtype)


def randint(low, high, *shape, dtype=torch.int64, seed=None):
    """Integers uniform in [low, high)."""
    return torch.randint(low, high, shape, generator=_gen(seed), dtype=torch.int64).to(dtype)


def rand_bool(*shape, seed=None):
    return torch.randint(0, 2, shape, generator=_gen(seed), dtype=torch.int64).bool()


@dataclass
class Case:
    """One graph run on `inputs`. `ref(*clones_of_inputs)` returns a tensor or a tuple/list of
    tensors, one per graph output. With `expect_error`, kiln must instead exit with status 1
    and print that text on stderr. `onnx_skip` says why the ONNX leg (onnx_case.py) skips the
    case: a known difference of the exported model from kiln's semantics. `onnx_reference_skip`
    says why ONNX's reference evaluator (--onnx-reference) is not asked: where the ONNX spec
    leaves a result open and the evaluator differs from ONNX Runtime, which the case checks."""
    name: str
    kir: str
    inputs: List[torch.Tensor] = field(default_factory=list)
    ref: Optional[Callable] = None
    rtol: float = 1e-5
    atol: float = 1e-6
    expect_error: Optional[str] = None
    onnx_skip: Optional[str] = None
    onnx_reference_skip: Optional[str] = None
