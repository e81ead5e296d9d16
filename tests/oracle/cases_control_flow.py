"""Oracle cases for the higher-order ops (cond, while_loop, scan, map). PyTorch's eager
semantics of these ops are plain Python control flow, which the references spell out."""
import torch

from oracle_case import Case, randn

COND = """graph @g(%p: bool[], %x: f32[4]) -> (f32[4]) {
  %0 = cond(%p, %x) : f32[4] {
    true_fn = graph(%a: f32[4]) -> (f32[4]) {
      %0 = neg(%a) : f32[4]
      return %0
    }
    false_fn = graph(%a: f32[4]) -> (f32[4]) {
      %0 = exp(%a) : f32[4]
      return %0
    }
  }
  return %0
}"""

WHILE = """graph @g(%i: i64[], %x: f32[4]) -> (i64[], f32[4]) {
  %0, %1 = while_loop(%i, %x) : (i64[], f32[4]) {
    cond_fn = graph(%j: i64[], %y: f32[4]) -> (bool[]) {
      %0 = lt(%j, 5) : bool[]
      return %0
    }
    body_fn = graph(%j: i64[], %y: f32[4]) -> (i64[], f32[4]) {
      %0 = add(%j, 1) : i64[]
      %1 = mul(%y, 2.0) : f32[4]
      return %0, %1
    }
  }
  return %0, %1
}"""

SCAN = """graph @g(%init: f32[3], %xs: f32[5,3]) -> (f32[3], f32[5,3]) {
  %0, %1 = scan(%init, %xs) {num_init=1} : (f32[3], f32[5,3]) {
    combine_fn = graph(%c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
      %0 = add(%c, %x) : f32[3]
      %1 = mul(%0, %x) : f32[3]
      return %0, %1
    }
  }
  return %0, %1
}"""

SCAN_DIM1 = """graph @g(%init: f32[3], %xs: f32[3,5]) -> (f32[3], f32[3,5]) {
  %0, %1 = scan(%init, %xs) {dim=1, num_init=1} : (f32[3], f32[3,5]) {
    combine_fn = graph(%c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
      %0 = maximum(%c, %x) : f32[3]
      return %0, %0
    }
  }
  return %0, %1
}"""

MAP = """graph @g(%xs: f32[4,3], %s: f32[3]) -> (f32[4,3]) {
  %0 = map(%xs, %s) {num_mapped=1} : f32[4,3] {
    body_fn = graph(%x: f32[3], %t: f32[3]) -> (f32[3]) {
      %0 = sin(%x) : f32[3]
      %1 = mul(%0, %t) : f32[3]
      return %1
    }
  }
  return %0
}"""


# A predicate computed from the input; branches holding a matmul, a reduction (softmax) and
# pointwise ops.
COND_COMPUTED = """graph @g(%x: f32[4,3], %w: f32[3,5]) -> (f32[4,5]) {
  %0 = sum(%x) : f32[]
  %1 = gt(%0, 0.0) : bool[]
  %2 = cond(%1, %x, %w) : f32[4,5] {
    true_fn = graph(%a: f32[4,3], %b: f32[3,5]) -> (f32[4,5]) {
      %0 = matmul(%a, %b) : f32[4,5]
      %1 = relu(%0) : f32[4,5]
      return %1
    }
    false_fn = graph(%a: f32[4,3], %b: f32[3,5]) -> (f32[4,5]) {
      %0 = matmul(%a, %b) : f32[4,5]
      %1 = softmax(%0) {dim=1} : f32[4,5]
      return %1
    }
  }
  return %2
}"""

# The body reads carried value a while it writes carried value b.
WHILE_FIBONACCI = """graph @g(%i: i64[], %a: f64[3], %b: f64[3]) -> (i64[], f64[3], f64[3]) {
  %0, %1, %2 = while_loop(%i, %a, %b) : (i64[], f64[3], f64[3]) {
    cond_fn = graph(%j: i64[], %x: f64[3], %y: f64[3]) -> (bool[]) {
      %0 = lt(%j, 6) : bool[]
      return %0
    }
    body_fn = graph(%j: i64[], %x: f64[3], %y: f64[3]) -> (i64[], f64[3], f64[3]) {
      %0 = add(%j, 1) : i64[]
      %1 = add(%x, %y) : f64[3]
      return %0, %y, %1
    }
  }
  return %0, %1, %2
}"""

# A predicate computed by a reduction, a matmul by a value passed along unchanged, and a cond
# inside the body.
WHILE_NESTED = """graph @g(%x: f32[2,2], %w: f32[2,2]) -> (f32[2,2]) {
  %0, %1 = while_loop(%x, %w) : (f32[2,2], f32[2,2]) {
    cond_fn = graph(%y: f32[2,2], %v: f32[2,2]) -> (bool[]) {
      %0 = abs(%y) : f32[2,2]
      %1 = sum(%0) : f32[]
      %2 = lt(%1, 1000.0) : bool[]
      return %2
    }
    body_fn = graph(%y: f32[2,2], %v: f32[2,2]) -> (f32[2,2], f32[2,2]) {
      %0 = matmul(%y, %v) : f32[2,2]
      %1 = add(%0, %y) : f32[2,2]
      %2 = amax(%1) {dim=[0, 1]} : f32[]
      %3 = gt(%2, 0.0) : bool[]
      %4 = cond(%3, %1) : f32[2,2] {
        true_fn = graph(%a: f32[2,2]) -> (f32[2,2]) {
          %0 = mul(%a, 3.0) : f32[2,2]
          return %0
        }
        false_fn = graph(%a: f32[2,2]) -> (f32[2,2]) {
          %0 = sub(%a, 2.0) : f32[2,2]
          return %0
        }
      }
      return %4, %v
    }
  }
  return %0
}"""


COND_WRONG_INPUTS = """graph @g(%p: bool[], %x: f32[4]) -> (f32[3]) {
  %0 = cond(%p, %x) : f32[3] {
    true_fn = graph(%a: f32[3]) -> (f32[3]) {
      %0 = neg(%a) : f32[3]
      return %0
    }
    false_fn = graph(%a: f32[3]) -> (f32[3]) {
      %0 = exp(%a) : f32[3]
      return %0
    }
  }
  return %0
}"""


def while_ref(i, x):
    while i < 5:
        i, x = i + 1, x * 2.0
    return i, x


def scan_ref(init, xs):
    c, ys = init, []
    for x in xs:
        c = c + x
        ys.append(c * x)
    return c, torch.stack(ys)


def scan_dim1_ref(init, xs):
    c, ys = init, []
    for k in range(xs.shape[1]):
        c = torch.maximum(c, xs[:, k])
        ys.append(c)
    return c, torch.stack(ys, dim=1)


def cond_computed_ref(x, w):
    return torch.relu(x @ w) if x.sum() > 0 else torch.softmax(x @ w, dim=1)


def while_fibonacci_ref(i, a, b):
    while i < 6:
        i, a, b = i + 1, b, a + b
    return i, a, b


def while_nested_ref(x, w):
    while x.abs().sum() < 1000.0:
        y = x @ w + x
        x = y * 3.0 if y.max() > 0 else y - 2.0
    return x


CASES = [
    Case("cond_true", COND, inputs=[torch.tensor(True), randn(4)],
         ref=lambda p, x: -x if p else torch.exp(x)),
    Case("cond_false", COND, inputs=[torch.tensor(False), randn(4)],
         ref=lambda p, x: -x if p else torch.exp(x)),
    Case("while_loop_counts_to_five", WHILE, inputs=[torch.tensor(0), randn(4)], ref=while_ref),
    Case("while_loop_zero_trips", WHILE, inputs=[torch.tensor(9), randn(4)], ref=while_ref),
    Case("scan_carry_and_ys", SCAN, inputs=[randn(3), randn(5, 3)], ref=scan_ref),
    Case("scan_along_dim1", SCAN_DIM1, inputs=[randn(3), randn(3, 5)], ref=scan_dim1_ref),
    Case("map_with_extra_operand", MAP, inputs=[randn(4, 3), randn(3)],
         ref=lambda xs, s: torch.stack([torch.sin(x) * s for x in xs])),
    Case("cond_computed_predicate_true", COND_COMPUTED, inputs=[randn(4, 3).abs(), randn(3, 5)], ref=cond_computed_ref),
    Case("cond_computed_predicate_false", COND_COMPUTED, inputs=[-randn(4, 3).abs(), randn(3, 5)],
         ref=cond_computed_ref),
    Case("while_loop_reads_a_while_writing_b", WHILE_FIBONACCI,
         inputs=[torch.tensor(0), randn(3, dtype=torch.float64), randn(3, dtype=torch.float64)], ref=while_fibonacci_ref),
    Case("while_loop_nested_cond", WHILE_NESTED, inputs=[randn(2, 2), randn(2, 2)], ref=while_nested_ref,
         rtol=1e-4, atol=1e-4),
    Case("cond_branch_takes_other_types", COND_WRONG_INPUTS, inputs=[torch.tensor(True), randn(4)],
         expect_error="cond: true_fn takes (f32[3]) but is given (f32[4])"),
]
