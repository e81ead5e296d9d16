"""Oracle cases for the view and layout ops: reshape/view with -1, permute, transpose, t,
expand, squeeze, unsqueeze, flatten, slice, select, narrow, split, chunk, cat, stack,
constant_pad_nd, flip, roll, repeat, tril, triu, as_strided and the view inverses
slice_scatter, select_scatter and as_strided_scatter; several dtypes, negative dims, empty
tensors, views of non-contiguous operands, and the errors torch raises."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint, rand_bool
from single_op import TRANSPOSE_A, kir_type, SingleOpCases, single_op

CASES = SingleOpCases()
add, add_error = CASES.add, CASES.add_error


def add_multi(name, call, inputs, ref):
    """A node with several results (split, chunk): the graph returns all of them."""
    outs = ref(*[t.clone() for t in inputs])
    names = ", ".join(f"%{i}" for i in range(len(outs)))
    types = ", ".join(kir_type(o) for o in outs)
    params = ", ".join(f"%{chr(97 + i)}: {kir_type(t)}" for i, t in enumerate(inputs))
    graph = f"graph @g({params}) -> ({types}) {{\n  {names} = {call} : ({types})\n  return {names}\n}}"
    CASES.append(Case(name, graph, inputs=inputs, ref=ref))


add("reshape_infer", "reshape(%a) {shape=[-1, 4]}", [randn(2, 3, 4)], lambda a: a.reshape(-1, 4))
add("reshape_i64", "reshape(%a) {shape=[3, 2]}", [randint(-9, 9, 6)], lambda a: a.reshape(3, 2))
add("reshape_noncontig", "reshape(%t) {shape=[12]}", [randn(3, 4)], lambda a: a.t().reshape(12), pre=TRANSPOSE_A)
add("reshape_empty", "reshape(%a) {shape=[3, 0, 2]}", [randn(0, 6)], lambda a: a.reshape(3, 0, 2))
add("reshape_scalar", "reshape(%a) {shape=[1, 1]}", [torch.tensor(2.5)], lambda a: a.reshape(1, 1))
add("view_bool", "view(%a) {size=[2, -1]}", [rand_bool(2, 3)], lambda a: a.view(2, -1))
add("permute_neg", "permute(%a) {dims=[-1, 0, 1]}", [randn(2, 3, 4)], lambda a: a.permute(-1, 0, 1))
add("transpose_f16", "transpose(%a) {dim0=-1, dim1=0}", [randn(2, 3, 4, dtype=torch.float16)], lambda a: a.transpose(-1, 0))
add("t_matrix", "t(%a)", [randint(0, 9, 2, 3, dtype=torch.int32)], lambda a: a.t())
add("t_vector", "t(%a)", [randn(3)], lambda a: a.t())
add("expand", "expand(%a) {size=[2, -1, 4]}", [randn(3, 1)], lambda a: a.expand(2, -1, 4))
add("expand_bf16", "expand(%a) {size=[3, 2]}", [randn(2, dtype=torch.bfloat16)], lambda a: a.expand(3, 2))
add("squeeze_all", "squeeze(%a)", [randn(1, 3, 1, 2)], lambda a: a.squeeze())
add("squeeze_dims", "squeeze(%a) {dim=[0, -2]}", [randn(1, 3, 1, 2)], lambda a: a.squeeze((0, -2)))
add("unsqueeze_neg", "unsqueeze(%a) {dim=-1}", [randn(2, 3)], lambda a: a.unsqueeze(-1))
add("flatten_mid", "flatten(%a) {end_dim=2, start_dim=1}", [randn(2, 3, 4, 5)], lambda a: a.flatten(1, 2))
add("flatten_noncontig", "flatten(%t)", [randn(3, 4)], lambda a: a.t().flatten(), pre=TRANSPOSE_A)
add("flatten_scalar", "flatten(%a)", [torch.tensor(3.0)], lambda a: a.flatten())
add("slice_step", "slice(%a) {dim=1, end=-1, start=1, step=2}", [randn(3, 8)], lambda a: a[:, 1:-1:2])
add("slice_clamped", "slice(%a) {end=100, start=-100}", [randint(0, 5, 4)], lambda a: a[-100:100])
add("slice_empty", "slice(%a) {end=1, start=3}", [randn(4, 2)], lambda a: a[3:1])
add("select_neg", "select(%a) {dim=-1, index=-2}", [randn(2, 3, 4)], lambda a: a.select(-1, -2))
add("narrow", "narrow(%a) {dim=0, length=2, start=-3}", [randn(5, 2)], lambda a: a.narrow(0, -3, 2))
add("slice_of_transpose", "slice(%t) {dim=0, start=1}", [randn(3, 4)], lambda a: a.t()[1:], pre=TRANSPOSE_A)
add_multi("split_uneven", "split(%a) {dim=-1, split_size=2}", [randn(3, 5)], lambda a: a.split(2, dim=-1))
add_multi("chunk", "chunk(%a) {chunks=3}", [randint(0, 9, 7, 2)], lambda a: a.chunk(3))

add("cat_promote", "cat(%a, %b) {dim=-1}", [randn(2, 3), randint(0, 5, 2, 2)], lambda a, b: torch.cat([a, b], -1))
add("cat_legacy_empty", "cat(%a, %b)", [randn(0), randn(2, 3)], lambda a, b: torch.cat([a, b]))
add("cat_empty_part", "cat(%a, %b) {dim=0}", [randn(0, 3), randn(2, 3)], lambda a, b: torch.cat([a, b]))
add("stack_neg", "stack(%a, %b, %c) {dim=-1}", [randn(2, 3), randn(2, 3), randn(2, 3)],
    lambda a, b, c: torch.stack([a, b, c], -1))
add("pad_value", "constant_pad_nd(%a) {pad=[1, 2, 0, 1], value=-1.5}", [randn(2, 3)],
    lambda a: F.pad(a, [1, 2, 0, 1], value=-1.5))
add("pad_negative", "constant_pad_nd(%a) {pad=[-1, 1]}", [randint(0, 9, 2, 4)], lambda a: F.pad(a, [-1, 1]))
add_error("pad_int_inf", "constant_pad_nd(%a) {pad=[1, 1], value=inf}", [randint(0, 9, 3)], "i64[5]",
          "constant_pad_nd: value inf cannot be converted to i64 without overflow")
add_error("pad_i8_value", "constant_pad_nd(%a) {pad=[1, 1], value=128}", [randint(0, 9, 3, dtype=torch.int8)], "i8[5]",
          "constant_pad_nd: value 128 cannot be converted to i8 without overflow")
add("flip", "flip(%a) {dims=[0, -1]}", [randn(2, 3, 4)], lambda a: a.flip(0, -1))
add("roll_dims", "roll(%a) {dims=[0, 1], shifts=[1, -2]}", [randn(3, 4)], lambda a: a.roll((1, -2), (0, 1)))
add("roll_flat", "roll(%a) {shifts=[5]}", [randint(0, 9, 3, 4)], lambda a: a.roll(5))
add("repeat", "repeat(%a) {repeats=[2, 1, 3]}", [randn(2, 2)], lambda a: a.repeat(2, 1, 3))
add("tril", "tril(%a) {diagonal=-1}", [randn(2, 4, 4)], lambda a: a.tril(-1))
add("triu_bool", "triu(%a) {diagonal=1}", [rand_bool(3, 5)], lambda a: a.triu(1))
add("tril_noncontig", "tril(%t)", [randn(3, 4)], lambda a: a.t().tril(), pre=TRANSPOSE_A)

add_error("reshape_two_infer", "reshape(%a) {shape=[-1, -1]}", [randn(6)], "f32[6]", "only one dimension can be inferred")
add_error("reshape_bad_size", "reshape(%a) {shape=[4, -1]}", [randn(6)], "f32[4,2]", "is invalid for input of size 6")
CASES.append(Case("view_noncontig", single_op("view(%t) {size=[12]}", [randn(3, 4)], pre=TRANSPOSE_A, out_type="f32[12]"),
                  inputs=[randn(3, 4)], expect_error="view size is not compatible"))
add_error("permute_repeat", "permute(%a) {dims=[0, 0]}", [randn(2, 2)], "f32[2,2]", "repeated dim")
add_error("select_oob", "select(%a) {dim=0, index=3}", [randn(3)], "f32[]", "out of range")
add_error("cat_mismatch", "cat(%a, %b) {dim=0}", [randn(2, 3), randn(2, 4)], "f32[4,3]", "sizes of tensors must match")
add_error("expand_bad", "expand(%a) {size=[4]}", [randn(3)], "f32[4]", "must match the existing size")
add_error("dim_out_of_range", "unsqueeze(%a) {dim=3}", [randn(2)], "f32[2,1]", "dimension out of range")
add_error("reshape_negative_dim", "reshape(%a) {shape=[-2, 3]}", [randn(6)], "f32[2,3]",
          "reshape: invalid shape dimension -2 in [-2, 3]")
add_error("t_rank3", "t(%a)", [randn(2, 3, 4)], "f32[4,3,2]", "t: expects a tensor with <= 2 dimensions, but self is 3D")
add_error("expand_too_few_sizes", "expand(%a) {size=[3]}", [randn(2, 3)], "f32[2,3]",
          "expand: the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)")
add_error("expand_leading_minus_one", "expand(%a) {size=[-1, 3]}", [randn(3)], "f32[1,3]",
          "expand: the expanded size -1 is not allowed in a leading, non-existing dimension 0")
add_error("flatten_start_after_end", "flatten(%a) {end_dim=0, start_dim=2}", [randn(2, 3, 4)], "f32[24]",
          "flatten: start_dim (2) cannot come after end_dim (0)")
add_error("slice_0d", "slice(%a)", [torch.tensor(1.0)], "f32[]", "slice: cannot be applied to a 0-dim tensor")
add_error("select_0d", "select(%a) {dim=0, index=0}", [torch.tensor(1.0)], "f32[]",
          "select: cannot be applied to a 0-dim tensor")
add_error("narrow_0d", "narrow(%a) {dim=0, length=1, start=0}", [torch.tensor(1.0)], "f32[]",
          "narrow: cannot be applied to a 0-dim tensor")
add_error("narrow_negative_length", "narrow(%a) {dim=0, length=-1, start=0}", [randn(3)], "f32[0]",
          "narrow: length must be non-negative, got -1")
add_error("narrow_past_end", "narrow(%a) {dim=0, length=3, start=-2}", [randn(3)], "f32[3]",
          "narrow: start (1) + length (3) exceeds dimension size (3)")
add_error("split_0d", "split(%a) {split_size=1}", [torch.tensor(1.0)], "f32[]", "split: cannot be applied to a 0-dim tensor")
add_error("split_negative_size", "split(%a) {split_size=-1}", [randn(3)], "f32[3]",
          "split: split_size must be non-negative, got -1")
add_error("split_zero_size", "split(%a) {split_size=0}", [randn(3)], "f32[3]",
          "split: split_size can only be 0 if dimension size is 0, but got dimension size of 3")
add_error("chunk_0d", "chunk(%a) {chunks=1}", [torch.tensor(1.0)], "f32[]", "chunk: cannot be applied to a 0-dim tensor")
add_error("chunk_zero", "chunk(%a) {chunks=0}", [randn(3)], "f32[3]",
          "chunk: expects `chunks` to be greater than 0, got: 0")

add_error("cat_0d", "cat(%a, %b)", [torch.tensor(1.0), torch.tensor(2.0)], "f32[2]",
          "cat: zero-dimensional tensor (at position 0) cannot be concatenated")
add_error("cat_rank_mismatch", "cat(%a, %b)", [randn(2, 3), randn(2, 3, 1)], "f32[4,3]",
          "cat: tensors must have same number of dimensions: got 2 and 3 (tensor number 1 in the list)")
add_error("stack_empty", "stack()", [], "f32[0]", "stack: expects a non-empty TensorList")
add_error("stack_mismatch", "stack(%a, %b)", [randn(2, 3), randn(3, 2)], "f32[2,2,3]",
          "stack: expects each tensor to be equal size, but got [2,3] at entry 0 and [3,2] at entry 1")
add_error("pad_odd_length", "constant_pad_nd(%a) {pad=[1, 2, 3]}", [randn(2, 3)], "f32[2,3]",
          "constant_pad_nd: length of pad must be even but instead it equals 3")
add_error("pad_negative_size", "constant_pad_nd(%a) {pad=[-2, -2]}", [randn(2, 3)], "f32[2,0]",
          "constant_pad_nd: the input size 3, plus negative padding -2 and -2 resulted in a negative output size, "
          "which is invalid. Check dimension 1 of your input.")
add_error("repeat_too_few", "repeat(%a) {repeats=[2]}", [randn(2, 3)], "f32[2,6]",
          "repeat: number of dimensions of repeat dims (1) can not be smaller than number of dimensions of tensor (2)")
add_error("repeat_negative", "repeat(%a) {repeats=[1, -1]}", [randn(2, 3)], "f32[2,0]",
          "repeat: repeats can not be negative, got -1")
# The shape rule of roll accepts any shifts and dims; the kernel checks that they pair up.
add_error("roll_flat_two_shifts", "roll(%a) {shifts=[1, 2]}", [randn(2, 3)], "f32[2,3]",
          "roll: shifts and dimensions must align. shifts: 2, dims: 0")
add_error("roll_shifts_dims_mismatch", "roll(%a) {dims=[0, 1], shifts=[1]}", [randn(2, 3)], "f32[2,3]",
          "roll: shifts and dimensions must align. shifts: 1, dims: 2")


def add_symbolic_error(name, call, a_type, a, out_type, message):
    """A one-op graph whose input %a has symbolic dims (`a_type`, e.g. "f32[B,3]"), run on `a`."""
    graph = f"graph @g(%a: {a_type}) -> ({out_type}) {{\n  %0 = {call} : {out_type}\n  return %0\n}}"
    CASES.append(Case(name, graph, inputs=[a], expect_error=message))


add_symbolic_error("squeeze_symbolic", "squeeze(%a) {dim=[0]}", "f32[B,3]", randn(1, 3), "f32[3]",
                   "squeeze: cannot tell whether symbolic dim B (dim 0) is 1")


def add_symbolic(name, call, a_type, a, out_type, ref):
    """A one-op graph whose input %a has symbolic dims and whose result is an expression."""
    graph = f"graph @g(%a: {a_type}) -> ({out_type}) {{\n  %0 = {call} : {out_type}\n  return %0\n}}"
    CASES.append(Case(name, graph, inputs=[a], ref=ref))


# Symbolic dims merge into expressions (docs/DECISIONS.md, "Symbolic shapes").
add_symbolic("flatten_symbolic", "flatten(%a)", "f32[B,3]", randn(2, 3), "f32[3*B]", lambda a: a.flatten())
add_symbolic("slice_symbolic_bounds", "slice(%a) {start=1}", "f32[B]", randn(4), "f32[B-1]", lambda a: a[1:])
add_symbolic("cat_symbolic", "cat(%a, %a)", "f32[B,3]", randn(2, 3), "f32[2*B,3]", lambda a: torch.cat([a, a]))
add_symbolic_error("split_symbolic", "split(%a) {split_size=2}", "f32[B]", randn(4), "f32[2]",
                   "split: the split dim must be static, got symbolic dim B")
# The rule cannot check the bounds of a symbolic dim; the kernel does once B has a value.
add_symbolic_error("narrow_symbolic_past_end", "narrow(%a) {dim=0, length=3, start=1}", "f32[N,2]", randn(2, 2),
                   "f32[3,2]", "narrow: start (1) + length (3) exceeds dimension size (2)")
add_symbolic_error("narrow_symbolic_start_out_of_range", "narrow(%a) {dim=0, length=1, start=-3}", "f32[N,2]",
                   randn(2, 2), "f32[1,2]", "narrow: start (-3) out of range for dimension 0 of size 2")

# as_strided and the view inverses (slice_scatter, select_scatter, as_strided_scatter).
add("as_strided", "as_strided(%a) {size=[2, 2], storage_offset=1, stride=[3, 1]}", [randn(3, 3)],
    lambda a: a.as_strided((2, 2), (3, 1), 1))
add("as_strided_default_offset", "as_strided(%a) {size=[3], stride=[4]}", [randint(0, 9, 3, 4, dtype=torch.int32)],
    lambda a: a.as_strided((3,), (4,)))
add("as_strided_overlapping", "as_strided(%a) {size=[3, 3], stride=[1, 1]}", [randn(5)],
    lambda a: a.as_strided((3, 3), (1, 1)))
add("as_strided_stride0", "as_strided(%a) {size=[2, 3], storage_offset=2, stride=[0, 1]}", [randn(6)],
    lambda a: a.as_strided((2, 3), (0, 1), 2))
add("as_strided_of_transpose", "as_strided(%t) {size=[2, 3], stride=[1, 2]}", [randint(0, 9, 2, 3)],
    lambda a: a.t().as_strided((2, 3), (1, 2)), pre=TRANSPOSE_A)
add("slice_scatter", "slice_scatter(%a, %b) {dim=1, end=-1, start=1, step=2}", [randn(3, 8), randn(3, 3)],
    lambda a, b: torch.slice_scatter(a, b, 1, 1, -1, 2))
add("slice_scatter_cast", "slice_scatter(%a, %b) {start=2}", [randn(4, 2), randint(0, 9, 2, 2)],
    lambda a, b: torch.slice_scatter(a, b, 0, 2))
add("slice_scatter_of_transpose", "slice_scatter(%t, %b) {dim=0, start=1}", [randn(3, 4), randn(3, 3)],
    lambda a, b: torch.slice_scatter(a.t(), b, 0, 1), pre=TRANSPOSE_A)
add("select_scatter", "select_scatter(%a, %b) {dim=-1, index=-2}", [randn(2, 3, 4), randn(2, 3)],
    lambda a, b: torch.select_scatter(a, b, -1, -2))
add("select_scatter_i64", "select_scatter(%a, %b) {dim=0, index=1}", [randint(0, 9, 3, 2), randint(0, 9, 2)],
    lambda a, b: torch.select_scatter(a, b, 0, 1))
add("as_strided_scatter", "as_strided_scatter(%a, %b) {size=[2, 2], storage_offset=1, stride=[3, 1]}",
    [randn(3, 3), randn(2, 2)], lambda a, b: torch.as_strided_scatter(a, b, (2, 2), (3, 1), 1))
add("as_strided_scatter_default_offset", "as_strided_scatter(%a, %b) {size=[3], stride=[2]}",
    [randn(2, 3), randn(3)], lambda a, b: torch.as_strided_scatter(a, b, (3,), (2,)))

add_error("as_strided_out_of_storage", "as_strided(%a) {size=[3, 3], storage_offset=5, stride=[3, 1]}", [randn(4, 3)],
          "f32[3,3]", "as_strided: sizes [3, 3], strides [3, 1] and storage offset 5 require a storage of 14 "
          "elements, but self's storage has 12")
add_error("as_strided_rank_mismatch", "as_strided(%a) {size=[3, 3], stride=[1]}", [randn(9)], "f32[3,3]",
          "as_strided: mismatch in length of strides and shape (size [3, 3], stride [1])")
add_error("as_strided_negative_stride", "as_strided(%a) {size=[3], stride=[-1]}", [randn(9)], "f32[3]",
          "as_strided: negative strides are not supported, got [-1]")
add_error("slice_scatter_bad_src", "slice_scatter(%a, %b) {start=1, end=3}", [randn(4, 3), randn(3, 3)], "f32[4,3]",
          "slice_scatter: expected src to have a size equal to the slice of self. src size = [3,3], slice size = [2,3]")
add_error("slice_scatter_dim_out_of_range", "slice_scatter(%a, %b) {dim=2}", [randn(4, 3), randn(4, 3)], "f32[4,3]",
          "slice_scatter: dimension out of range")
add_error("select_scatter_oob", "select_scatter(%a, %b) {dim=0, index=5}", [randn(4, 3), randn(3)], "f32[4,3]",
          "select_scatter: index 5 out of range for tensor of size [4,3] at dimension 0")
add_error("select_scatter_bad_src", "select_scatter(%a, %b) {dim=0, index=1}", [randn(4, 3), randn(4)], "f32[4,3]",
          "select_scatter: expected src to have a size equal to the slice of self. src size = [4], slice size = [3]")
add_error("as_strided_scatter_bad_src", "as_strided_scatter(%a, %b) {size=[2, 2], stride=[1, 1]}",
          [randn(4, 3), randn(2, 3)], "f32[4,3]",
          "as_strided_scatter: expected src to have a size equal to the slice of self. src size = [2,3], "
          "slice size = [2,2]")
add_error("as_strided_scatter_out_of_self", "as_strided_scatter(%a, %b) {size=[2, 2], storage_offset=5, stride=[3, 1]}",
          [randn(2, 3), randn(2, 2)], "f32[2,3]",
          "as_strided_scatter: size [2, 2], stride [3, 1] and storage offset 5 reach 10 elements, but self [2,3] has 6")
