"""Oracle cases for the ONNX export of the layout ops (run_oracle.py --device onnx): the
paths cases_view.py leaves out: dtypes that ONNX Runtime's kernels lack (bf16, i16, i8, u8,
bool through Pad, Tile, Trilu, Expand), symbolic dims that are expressions, views whose
operand is itself a view, overlapping as_strided writes, and casts."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint, rand_bool
from single_op import TRANSPOSE_A, SingleOpCases

CASES = SingleOpCases()
add = CASES.add

add("pad_bf16", "constant_pad_nd(%a) {pad=[1, 1], value=2.5}", [randn(2, 3, dtype=torch.bfloat16)],
    lambda a: F.pad(a, [1, 1], value=2.5))
add("pad_i16_crop_and_grow", "constant_pad_nd(%a) {pad=[-1, 2, 1, -1], value=7}", [randint(-9, 9, 3, 4, dtype=torch.int16)],
    lambda a: F.pad(a, [-1, 2, 1, -1], value=7))
add("pad_bool_3d_partial", "constant_pad_nd(%a) {pad=[0, 1]}", [rand_bool(2, 2, 3)], lambda a: F.pad(a, [0, 1]))
add("pad_crop_only", "constant_pad_nd(%a) {pad=[-1, -1]}", [randn(2, 4)], lambda a: F.pad(a, [-1, -1]))
add("tril_i8", "tril(%a) {diagonal=1}", [randint(-9, 9, 3, 4, dtype=torch.int8)], lambda a: a.tril(1))
add("triu_u8_batched", "triu(%a) {diagonal=-1}", [randint(0, 9, 2, 4, 3, dtype=torch.uint8)], lambda a: a.triu(-1))
add("triu_bf16", "triu(%a)", [randn(3, 3, dtype=torch.bfloat16)], lambda a: a.triu())
add("repeat_bf16_lead", "repeat(%a) {repeats=[2, 3, 1]}", [randn(2, 2, dtype=torch.bfloat16)], lambda a: a.repeat(2, 3, 1))
add("repeat_zero", "repeat(%a) {repeats=[0, 2]}", [randint(0, 9, 3)], lambda a: a.repeat(0, 2))
add("expand_i16_new_dims", "expand(%a) {size=[2, 3, -1]}", [randint(0, 9, 1, 4, dtype=torch.int16)], lambda a: a.expand(2, 3, -1))
add("flip_empty_dim", "flip(%a) {dims=[1]}", [randn(2, 0)], lambda a: a.flip(1))
add("flip_scalar", "flip(%a) {dims=[0]}", [torch.tensor(1.5)], lambda a: a.flip(0))
add("roll_repeat_dim", "roll(%a) {dims=[1, 1], shifts=[2, 5]}", [randn(2, 3)], lambda a: a.roll((2, 5), (1, 1)))
add("roll_negative_flat", "roll(%a) {shifts=[-7]}", [rand_bool(2, 3)], lambda a: a.roll(-7))
add("roll_noop", "roll(%a) {dims=[0], shifts=[3]}", [randn(3, 2)], lambda a: a.roll(3, 0))
add("narrow_negative_to_end", "narrow(%a) {dim=1, length=2, start=-2}", [randn(2, 5)], lambda a: a.narrow(1, -2, 2))
add("squeeze_nothing", "squeeze(%a) {dim=[1]}", [randn(2, 3)], lambda a: a.squeeze(1))
add("squeeze_scalar", "squeeze(%a)", [torch.tensor(2.0)], lambda a: a.squeeze())
add("unsqueeze_scalar", "unsqueeze(%a) {dim=0}", [torch.tensor(True)], lambda a: a.unsqueeze(0))
add("permute_scalar", "permute(%a) {dims=[]}", [torch.tensor(3)], lambda a: a.permute(()))
add("transpose_scalar", "transpose(%a) {dim0=0, dim1=-1}", [torch.tensor(3.0)], lambda a: a.transpose(0, -1))
add("cat_bool_f16", "cat(%a, %b) {dim=1}", [rand_bool(2, 1), randn(2, 2, dtype=torch.float16)],
    lambda a, b: torch.cat([a, b], 1))
add("cat_only_legacy_empty", "cat(%a, %b)", [randn(0), randn(0)], lambda a, b: torch.cat([a, b]))
add("cat_one", "cat(%a) {dim=-1}", [randint(0, 9, 2, 3, dtype=torch.int8)], lambda a: torch.cat([a], -1))
add("stack_one_scalar", "stack(%a)", [torch.tensor(1.5)], lambda a: torch.stack([a]))
add("stack_mixed", "stack(%a, %b) {dim=1}", [randint(0, 9, 2, dtype=torch.int32), randn(2)], lambda a, b: torch.stack([a, b], 1))
add("to_copy_f32_bool", "_to_copy(%a) {dtype=bool}", [torch.tensor([0.0, -0.0, 1.5, float("nan"), -2.0])],
    lambda a: a.to(torch.bool))
add("to_copy_f32_i32", "_to_copy(%a) {dtype=i32}", [torch.tensor([-2.7, -0.5, 0.5, 3.9])], lambda a: a.to(torch.int32))
add("to_copy_i64_bf16", "_to_copy(%a) {dtype=bf16}", [randint(-300, 300, 6)], lambda a: a.to(torch.bfloat16))
add("to_copy_bool_f16", "_to_copy(%a) {dtype=f16}", [rand_bool(4)], lambda a: a.to(torch.float16))
add("to_copy_same", "_to_copy(%a)", [randn(3)], lambda a: a.clone())
add("clone_bf16", "clone(%a)", [randn(2, dtype=torch.bfloat16)], lambda a: a.clone())
add("contiguous_of_transpose", "contiguous(%t)", [randn(2, 3)], lambda a: a.t().contiguous(), pre=TRANSPOSE_A)

# as_strided reads its operand's storage: through a slice (offset 2) and an expand (stride 0).
SLICE_A = [("s", "slice(%a) {dim=0, start=2, end=8}", lambda a: a[2:8])]
add("as_strided_of_slice", "as_strided(%s) {size=[2, 2], stride=[1, 2]}", [randn(10)],
    lambda a: a[2:8].as_strided((2, 2), (1, 2)), pre=SLICE_A)
EXPAND_A = [("e", "expand(%a) {size=[3, 4]}", lambda a: a.expand(3, 4))]
add("as_strided_of_expand", "as_strided(%e) {size=[2, 3], stride=[0, 1]}", [randn(4)],
    lambda a: a.expand(3, 4).as_strided((2, 3), (0, 1)), pre=EXPAND_A)
add("as_strided_scatter_i8_scalar", "as_strided_scatter(%a, %b) {size=[], stride=[], storage_offset=2}",
    [randint(0, 9, 2, 2, dtype=torch.int8), torch.tensor(5, dtype=torch.int8)],
    lambda a, b: torch.as_strided_scatter(a, b, (), (), 2))
add("slice_scatter_empty", "slice_scatter(%a, %b) {dim=0, start=2, end=2}", [randn(3, 2), randn(0, 2)],
    lambda a, b: torch.slice_scatter(a, b, 0, 2, 2))
add("slice_scatter_bf16", "slice_scatter(%a, %b) {dim=-1, start=-2}", [randn(2, 4, dtype=torch.bfloat16),
                                                                       randn(2, 2, dtype=torch.bfloat16)],
    lambda a, b: torch.slice_scatter(a, b, -1, -2))
add("select_scatter_bool", "select_scatter(%a, %b) {dim=1, index=-1}", [rand_bool(2, 3), rand_bool(2)],
    lambda a, b: torch.select_scatter(a, b, 1, -1))


def add_symbolic(name, call, a_type, a, out_type, ref):
    graph = f"graph @g(%a: {a_type}) -> ({out_type}) {{\n  %0 = {call} : {out_type}\n  return %0\n}}"
    CASES.append(Case(name, graph, inputs=[a], ref=ref))


add_symbolic("reshape_symbolic_product", "reshape(%a) {shape=[-1, 2]}", "f32[B,4]", randn(3, 4), "f32[2*B,2]",
             lambda a: a.reshape(-1, 2))
add_symbolic("flatten_symbolic_two", "flatten(%a) {start_dim=0, end_dim=1}", "f32[B,T,2]", randn(2, 3, 2), "f32[B*T,2]",
             lambda a: a.flatten(0, 1))
add_symbolic("expand_symbolic", "expand(%a) {size=[3, -1, 4]}", "f32[B,1]", randn(2, 1), "f32[3,B,4]",
             lambda a: a.expand(3, -1, 4))
add_symbolic("select_symbolic_negative", "select(%a) {dim=0, index=-1}", "f32[B,2]", randn(3, 2), "f32[2]",
             lambda a: a.select(0, -1))
add_symbolic("narrow_symbolic_negative", "narrow(%a) {dim=0, length=2, start=-2}", "f32[B,2]", randn(4, 2), "f32[2,2]",
             lambda a: a.narrow(0, -2, 2))
add_symbolic("flip_symbolic", "flip(%a) {dims=[0]}", "i64[B]", randint(0, 9, 5), "i64[B]", lambda a: a.flip(0))
add_symbolic("squeeze_symbolic_keep", "squeeze(%a) {dim=[1]}", "f32[B,1]", randn(3, 1), "f32[B]", lambda a: a.squeeze(1))
add_symbolic("tril_symbolic", "tril(%a)", "f32[B,B]", randn(3, 3), "f32[B,B]", lambda a: a.tril())
add_symbolic("repeat_symbolic", "repeat(%a) {repeats=[1, 2]}", "f32[B,3]", randn(2, 3), "f32[B,6]",
             lambda a: a.repeat(1, 2))
add_symbolic("pad_symbolic", "constant_pad_nd(%a) {pad=[0, 0, 1, 1]}", "f32[B,3]", randn(2, 3), "f32[B+2,3]",
             lambda a: F.pad(a, [0, 0, 1, 1]))
