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
    Case("cond_branch_takes_other_types", COND_WRONG_INPUTS, inputs=[torch.tensor(True), randn(4)],
         expect_error="cond: true_fn takes (f32[3]) but is given (f32[4])"),
]
