"""References that an older PyTorch refuses, each with the explicit equivalent it falls back to.

PyTorch 2.11 (the GPU machine's, docs/CUDA.md) converts a scalar (a clamp or hardtanh bound, a
fill value, addcmul's value) to an integer tensor's dtype only when it lies in the dtype's
range, and otherwise raises
    RuntimeError: value cannot be converted to type uint8_t without overflow
(c10's report_overflow). PyTorch 2.15 (the development machine's) computes those references, as
kiln does: a bound outside the dtype clamps nothing, a value is truncated after a check against
[min, max + 1). A case whose reference may be refused wraps it in ReferenceOrEquivalent: where
the running PyTorch computes the reference, it is the reference, so nothing 2.15 checks is
weakened; where it refuses, the case's equivalent gives the same result without the refused
conversion. test_torch_refusals.py checks every equivalent against 2.15's reference, and the
fallback under a simulated refusal."""
import re

# The message of c10::report_overflow, whatever the type's name.
SCALAR_RANGE_REFUSAL = re.compile(r"value cannot be converted to type \S+ without overflow")


class ReferenceOrEquivalent:
    """A case's reference: ref(*inputs), or equivalent(*inputs) where the running PyTorch
    refuses ref's scalar conversion (any other error propagates). `why` says why the
    equivalent gives ref's result."""

    def __init__(self, ref, equivalent, why):
        self.ref, self.equivalent, self.why = ref, equivalent, why

    def __call__(self, *inputs):
        try:
            return self.ref(*inputs)
        except RuntimeError as e:
            if not SCALAR_RANGE_REFUSAL.search(str(e)):
                raise
        return self.equivalent(*inputs)
