#!/usr/bin/env python3
"""Checks the references that fall back where an older PyTorch refuses them (torch_refusals.py):
every ReferenceOrEquivalent of the cases files gives, through its equivalent, exactly its
reference's result on the case's inputs under the running PyTorch (dtype, shape and values); a
simulated refusal (the reference raising c10's overflow message) gives the equivalent's result; any
other error of the reference propagates; and cases_elementwise.py loads under PyTorch 2.11's rule,
simulated (clamp, hardtanh, addcmul, masked_fill and fill_ refuse a scalar outside an integer
tensor's range), with the same references. Prints one line per check; exits 1 when one fails."""
import contextlib
import importlib.util
import pathlib
import sys
import warnings

import torch

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))

import oracle_case  # noqa: E402
from torch_refusals import ReferenceOrEquivalent  # noqa: E402

failures = []


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def same(a, b):
    """The same dtype, shape and values, NaN where the other has NaN."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return bool(((a == b) | (a != a) & (b != b)).all()) if a.is_floating_point() else torch.equal(a, b)


def refuse(*_):
    raise RuntimeError("value cannot be converted to type uint8_t without overflow")


def fails_otherwise(*_):
    raise RuntimeError("clamp: some other problem")


# The fallback itself, with simulated refusals.
x = torch.tensor([3, 200], dtype=torch.uint8)
fallback = ReferenceOrEquivalent(refuse, lambda a: a + 1, "test")
check(same(fallback(x), x + 1), "a refused reference gives its equivalent's result")
try:
    ReferenceOrEquivalent(fails_otherwise, lambda a: a, "test")(x)
    check(False, "another error of the reference propagates (it returned)")
except RuntimeError as e:
    check("some other problem" in str(e), "another error of the reference propagates")
check(same(ReferenceOrEquivalent(lambda a: a * 2, refuse, "test")(x), x * 2),
      "a reference the running PyTorch computes is used, never its equivalent")

def load_cases(path):
    oracle_case.reset_generator()
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


# Every case's equivalent against its reference, on the case's inputs.
warnings.filterwarnings("ignore", category=UserWarning)  # references of empty reductions warn
checked = 0
for path in sorted(here.glob("cases_*.py")):
    for case in load_cases(path):
        if not isinstance(case.ref, ReferenceOrEquivalent):
            continue
        label = f"{path.name}::{case.name}"
        try:
            want = case.ref.ref(*[t.clone() for t in case.inputs])
        except RuntimeError as e:
            print(f"note {label}: PyTorch {torch.__version__} refuses the reference ({e}); its equivalent is used, "
                  "unchecked here")
            continue
        got = case.ref.equivalent(*[t.clone() for t in case.inputs])
        check(same(got, want), f"{label}: the equivalent gives the reference's {want.dtype} {list(want.shape)} "
                               f"({case.ref.why})")
        checked += 1
check(checked > 0, f"{checked} equivalents checked against PyTorch {torch.__version__}'s references")


def outside_range(t, value):
    """Whether PyTorch 2.11 refuses to convert `value` to integer tensor t's dtype (c10's overflows:
    a float outside [min, max]; an integer above max, or below min but for a negative one that
    wraps into an unsigned type)."""
    if not isinstance(t, torch.Tensor) or t.dtype == torch.bool or t.is_floating_point():
        return False
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    info = torch.iinfo(t.dtype)
    if isinstance(value, float):
        return not (info.min <= value <= info.max)
    return value > info.max or (value < info.min and not (info.min == 0 and -value <= info.max))


@contextlib.contextmanager
def refusing_as_torch_2_11():
    """clamp, hardtanh, addcmul, masked_fill and fill_ refuse a scalar outside an integer tensor's
    range, as PyTorch 2.11 does, for the duration."""
    def strict(fn, scalars):
        def wrapped(t, *args, **kwargs):
            for value in scalars(args, kwargs):
                if outside_range(t, value):
                    raise RuntimeError(f"value cannot be converted to type {t.dtype} without overflow")
            return fn(t, *args, **kwargs)
        return wrapped

    positional = lambda args, kwargs: list(args) + list(kwargs.values())
    patches = [(torch, "clamp", positional), (torch.nn.functional, "hardtanh", positional),
               (torch, "addcmul", lambda args, kwargs: [kwargs.get("value")]),
               (torch.Tensor, "masked_fill", lambda args, kwargs: args[1:]),
               (torch.Tensor, "masked_fill_", lambda args, kwargs: args[1:]),
               (torch.Tensor, "clamp_", positional), (torch.Tensor, "fill_", positional)]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, scalars in patches:
            setattr(owner, name, strict(getattr(owner, name), scalars))
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


elementwise = here / "cases_elementwise.py"
with refusing_as_torch_2_11():
    check(outside_range(torch.zeros(1, dtype=torch.uint8), 300), "the simulated rule refuses clamp of u8 by 300")
    try:
        strict_cases = load_cases(elementwise)
        strict_refs = {c.name: c.ref(*[t.clone() for t in c.inputs]) for c in strict_cases if c.ref is not None}
        for c in strict_cases:
            if isinstance(c.ref, ReferenceOrEquivalent):
                try:
                    c.ref.ref(*[t.clone() for t in c.inputs])
                    check(False, f"the simulated rule refuses {c.name}'s reference (it computed it)")
                except RuntimeError:
                    check(True, f"the simulated rule refuses {c.name}'s reference")
    except RuntimeError as e:
        strict_refs = None
        check(False, f"cases_elementwise.py loads under PyTorch 2.11's rule, simulated: {e}")
if strict_refs is not None:
    check(True, f"cases_elementwise.py loads under PyTorch 2.11's rule, simulated ({len(strict_refs)} references)")
    plain = {c.name: c.ref(*[t.clone() for t in c.inputs]) for c in strict_cases if c.ref is not None}
    differ = [n for n in plain if not all(same(a, b) for a, b in zip(*(
        [r] if isinstance(r, torch.Tensor) else list(r) for r in (plain[n], strict_refs[n]))))]
    check(not differ, "under it every reference is the same as under the running PyTorch" +
          (f"; not: {', '.join(differ)}" if differ else ""))
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
