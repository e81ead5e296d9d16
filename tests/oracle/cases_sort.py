"""Oracle cases for topk, sort and histc: every dtype torch sorts, both directions, ties, NaN and
infinities, k at 0 and at the line's length, 0-d and empty inputs, non-contiguous inputs, and
histc's given and data ranges, edge elements and errors.

kiln orders equal elements by index (ops.def). torch.sort on CPU does too, so sort's indices are
compared with torch's directly; torch's CPU topk leaves the order of ties to its selection
algorithm, so topk cases with ties compare with the first k of torch's stable sort (kiln's
documented order), and cases without ties with torch.topk itself."""
import torch

from oracle_case import Case, randn, randint, rand_bool
from single_op import KIR_DTYPES, SingleOpCases, kir_type

NAN, INF = float("nan"), float("inf")
LOW = dict(rtol=1e-2, atol=1e-2)
NAN_ORDER = "ONNX's TopK leaves NaN's place open; ONNX Runtime orders NaN below inf (docs/ONNX.md)"
CASES = SingleOpCases()
add, add_error = CASES.add, CASES.add_error


def pair(name, call, inputs, ref, values_only=False, pre=(), **kw):
    """A case of one two-result node (`%0, %1 = call`) over %a, returning values and indices
    (or the values alone, which the gradient oracle takes). `ref` gives (values, indices)."""
    params = ", ".join(f"%{chr(ord('a') + i)}: {kir_type(t)}" for i, t in enumerate(inputs))
    lines = [f"  %{n} = {text} : {kir_type(fn(*inputs))}" for n, text, fn in pre]
    v, i = ref(*[t.clone() for t in inputs])
    lines.append(f"  %0, %1 = {call} : ({kir_type(v)}, {kir_type(i)})")
    outs = "%0" if values_only else "%0, %1"
    types = kir_type(v) if values_only else f"{kir_type(v)}, {kir_type(i)}"
    body = "\n".join(lines)
    kir = f"graph @g({params}) -> ({types}) {{\n{body}\n  return {outs}\n}}"
    want = (lambda *a: ref(*a)[0]) if values_only else (lambda *a: tuple(ref(*a)))
    CASES.append(Case(name, kir, inputs=inputs, ref=want, **kw))


def pair_error(name, call, inputs, values_type, message):
    """A two-result node (values of `values_type`, i64 indices of its shape) that kiln refuses."""
    params = ", ".join(f"%{chr(ord('a') + i)}: {kir_type(t)}" for i, t in enumerate(inputs))
    indices_type = "i64" + values_type[values_type.index("["):]
    kir = (f"graph @g({params}) -> ({values_type}, {indices_type}) {{\n"
           f"  %0, %1 = {call} : ({values_type}, {indices_type})\n  return %0, %1\n}}")
    CASES.append(Case(name, kir, inputs=inputs, expect_error=message))


def stable_topk(a, k, dim=-1, largest=True):
    """kiln's topk: the first k of the stable sort (ties in index order)."""
    v, i = torch.sort(a, dim=dim, descending=largest, stable=True)
    return v.narrow(dim, 0, k), i.narrow(dim, 0, k)


TIES = torch.tensor([[1.0, 3.0, 3.0, 0.0, 3.0, -1.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [0.0, -0.0, 5.0, 0.0, 1.0, 5.0]])
SPECIAL = torch.tensor([[1.0, NAN, -INF, 3.0, NAN, INF, 0.0], [NAN, NAN, 2.0, -INF, -INF, 1.0, INF]])

for largest in (True, False):
    flag = str(largest).lower()
    # Without ties: torch.topk's own answer, values and indices.
    pair(f"topk_k3_{flag}", f"topk(%a) {{k=3, largest={flag}}}", [randn(4, 7)],
         lambda a, l=largest: torch.topk(a, 3, largest=l))
    pair(f"topk_dim0_{flag}", f"topk(%a) {{dim=0, k=2, largest={flag}}}", [randn(5, 3, dtype=torch.float64)],
         lambda a, l=largest: torch.topk(a, 2, dim=0, largest=l))
    pair(f"topk_whole_line_{flag}", f"topk(%a) {{k=6, largest={flag}}}", [randn(2, 3, 6)],
         lambda a, l=largest: torch.topk(a, 6, largest=l))
    pair(f"topk_unsorted_{flag}", f"topk(%a) {{k=2, largest={flag}, sorted=false}}", [randn(3, 5)],
         lambda a, l=largest: torch.topk(a, 2, largest=l, sorted=True))
    # Ties, NaN and infinities: the stable order.
    pair(f"topk_ties_{flag}", f"topk(%a) {{k=4, largest={flag}}}", [TIES],
         lambda a, l=largest: stable_topk(a, 4, largest=l))
    pair(f"topk_nan_inf_{flag}", f"topk(%a) {{k=5, largest={flag}}}", [SPECIAL],
         lambda a, l=largest: stable_topk(a, 5, largest=l), onnx_skip=NAN_ORDER)
    pair(f"topk_int_ties_{flag}", f"topk(%a) {{k=3, largest={flag}}}", [randint(0, 3, 3, 8)],
         lambda a, l=largest: stable_topk(a, 3, largest=l))
    pair(f"topk_f16_{flag}", f"topk(%a) {{k=2, largest={flag}}}", [randn(3, 9, dtype=torch.float16)],
         lambda a, l=largest: stable_topk(a, 2, largest=l))
    pair(f"topk_transposed_{flag}", f"topk(%t) {{k=2, largest={flag}}}", [randn(5, 3)],
         lambda a, l=largest: torch.topk(a.t(), 2, largest=l),
         pre=[("t", "transpose(%a) {dim0=0, dim1=1}", lambda a: a.t())])

    flag = str(not largest).lower()  # descending
    pair(f"sort_f32_desc_{flag}", f"sort(%a) {{descending={flag}}}", [randn(4, 7)],
         lambda a, d=not largest: torch.sort(a, descending=d))
    pair(f"sort_ties_desc_{flag}", f"sort(%a) {{descending={flag}}}", [TIES],
         lambda a, d=not largest: torch.sort(a, descending=d, stable=True))
    pair(f"sort_stable_desc_{flag}", f"sort(%a) {{descending={flag}, stable=true}}", [TIES],
         lambda a, d=not largest: torch.sort(a, descending=d, stable=True))
    pair(f"sort_nan_inf_desc_{flag}", f"sort(%a) {{descending={flag}}}", [SPECIAL],
         lambda a, d=not largest: torch.sort(a, descending=d, stable=True), onnx_skip=NAN_ORDER)
    pair(f"sort_dim0_desc_{flag}", f"sort(%a) {{descending={flag}, dim=0}}", [randint(-5, 5, 6, 3, dtype=torch.int32)],
         lambda a, d=not largest: torch.sort(a, dim=0, descending=d, stable=True))
    pair(f"sort_bool_desc_{flag}", f"sort(%a) {{descending={flag}}}", [rand_bool(3, 7)],
         lambda a, d=not largest: torch.sort(a, descending=d, stable=True))
    pair(f"sort_u8_desc_{flag}", f"sort(%a) {{descending={flag}}}", [randint(0, 255, 2, 9, dtype=torch.uint8)],
         lambda a, d=not largest: torch.sort(a, descending=d, stable=True))
    pair(f"sort_bf16_desc_{flag}", f"sort(%a) {{descending={flag}}}", [randn(2, 9, dtype=torch.bfloat16)],
         lambda a, d=not largest: torch.sort(a, descending=d, stable=True))

pair("topk_k0", "topk(%a) {k=0}", [randn(3, 4)], lambda a: torch.topk(a, 0))
pair("topk_empty_rows", "topk(%a) {dim=1, k=2}", [randn(0, 5)], lambda a: torch.topk(a, 2, dim=1))
pair("topk_0d", "topk(%a) {k=1}", [torch.tensor(2.5)], lambda a: torch.topk(a, 1))
pair("topk_0d_k0", "topk(%a) {k=0}", [torch.tensor(2.5)], lambda a: torch.topk(a, 0))
pair("topk_i64", "topk(%a) {dim=-2, k=2}", [randint(-100, 100, 4, 3)], lambda a: stable_topk(a, 2, dim=-2))
pair("sort_0d", "sort(%a)", [torch.tensor(-1.5)], lambda a: torch.sort(a))
pair("sort_empty", "sort(%a) {dim=0}", [randn(0, 3)], lambda a: torch.sort(a, dim=0))
pair("sort_f64_3d", "sort(%a) {dim=1}", [randn(2, 5, 3, dtype=torch.float64)], lambda a: torch.sort(a, dim=1))
# The router of a mixture of experts: softmax, then the top 2 of 8 experts per token.
pair("topk_router", "topk(%p) {k=2}", [randn(6, 8)], lambda a: torch.topk(torch.softmax(a, -1), 2),
     pre=[("p", "softmax(%a) {dim=-1}", lambda a: torch.softmax(a, -1))])

# The values alone (the indices unused), which the gradient oracle differentiates: the
# gradient goes back through the indices to the elements they came from.
pair("topk_values_only", "topk(%a) {dim=0, k=3}", [randn(5, 4)], lambda a: torch.topk(a, 3, dim=0), values_only=True)
pair("topk_smallest_values_only", "topk(%a) {k=2, largest=false}", [randn(3, 6, dtype=torch.float64)],
     lambda a: torch.topk(a, 2, largest=False), values_only=True)
pair("sort_values_only", "sort(%a) {descending=true}", [randn(4, 5)], lambda a: torch.sort(a, descending=True),
     values_only=True)
pair("sort_values_only_0d", "sort(%a)", [torch.tensor(0.5)], lambda a: torch.sort(a), values_only=True)
pair("topk_values_transposed", "topk(%t) {k=2}", [randn(5, 3)], lambda a: torch.topk(a.t(), 2), values_only=True,
     pre=[("t", "transpose(%a) {dim0=0, dim1=1}", lambda a: a.t())])

pair_error("topk_k_too_large", "topk(%a) {k=5}", [randn(3, 4)], "f32[3,5]",
          "topk: selected index k out of range (k=5, dim 1 has size 4)")
pair_error("topk_k_negative", "topk(%a) {k=-1}", [randn(3, 4)], "f32[3,0]",
          "topk: selected index k out of range (k=-1 is negative)")
pair_error("topk_0d_k2", "topk(%a) {k=2}", [torch.tensor(1.0)], "f32[]",
          "topk: selected index k out of range (k=2, a 0-d tensor has 1 element)")
pair_error("topk_bad_dim", "topk(%a) {dim=2, k=1}", [randn(3, 4)], "f32[3,1]", "topk: dimension out of range")
pair_error("topk_bool", "topk(%a) {k=1}", [rand_bool(4)], "bool[1]", "topk: does not support bool input")
pair_error("sort_bad_dim", "sort(%a) {dim=-3}", [randn(3, 4)], "f32[3,4]", "sort: dimension out of range")

# histc: f32 and f64, given ranges (edges included: x == max goes to the last bin), the data
# range (min == max), elements outside and NaN (not counted), half precision.
EDGES = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 2.0, -0.1, 2.1, NAN, 1.0 / 3.0, 0.25, 1.75])
add("histc_range", "histc(%a) {bins=4, max=2, min=0}", [EDGES], lambda a: torch.histc(a, 4, 0, 2))
add("histc_range_f64", "histc(%a) {bins=6, max=1.5, min=-1.2}", [randn(5, 9, dtype=torch.float64)],
    lambda a: torch.histc(a, 6, -1.2, 1.5))
add("histc_data_range", "histc(%a) {bins=7}", [randn(4, 50)], lambda a: torch.histc(a, 7))
add("histc_equal_bounds", "histc(%a) {bins=5, max=3, min=3}", [randn(3, 3)], lambda a: torch.histc(a, 5, 3, 3))
add("histc_constant_data", "histc(%a) {bins=4}", [torch.full((5,), 2.0)], lambda a: torch.histc(a, 4))
add("histc_empty", "histc(%a) {bins=3}", [randn(0)], lambda a: torch.histc(a, 3))
add("histc_default_bins", "histc(%a) {max=1, min=-1}", [randn(200)], lambda a: torch.histc(a, 100, -1, 1))
add("histc_expert_counts", "histc(%f) {bins=8, max=7, min=0}", [randint(0, 8, 6, 2)],
    lambda a: torch.histc(a.float(), 8, 0, 7), pre=[("f", "_to_copy(%a) {dtype=f32}", lambda a: a.float())])
add("histc_f16", "histc(%a) {bins=5, max=2, min=-2}", [randn(40, dtype=torch.float16)],
    lambda a: torch.histc(a, 5, -2, 2))
add("histc_bf16_data_range", "histc(%a) {bins=3}", [randn(30, dtype=torch.bfloat16)], lambda a: torch.histc(a, 3))
add_error("histc_bins_zero", "histc(%a) {bins=0}", [randn(4)], "f32[0]", "histc: bins must be > 0, but got 0")
add_error("histc_min_above_max", "histc(%a) {bins=3, max=1, min=2}", [randn(4)], "f32[3]",
          "histc: max must be larger than min")
add_error("histc_infinite_range", "histc(%a) {bins=3, max=inf, min=0}", [randn(4)], "f32[3]",
          "is not finite")
add_error("histc_nan_data_range", "histc(%a) {bins=3}", [torch.tensor([1.0, NAN, 2.0])], "f32[3]",
          "is not finite")
add_error("histc_int", "histc(%a) {bins=3}", [randint(0, 5, 4)], "i64[3]", "histc: not implemented for 'i64'")

# A router flattens topk's indices with a view: the indices must be laid out contiguously
# (the compiled CPU code decomposes topk; its first-k slice is copied out).
CASES.append(Case("topk_indices_viewed", """graph @g(%a: f32[8,4]) -> (i64[16]) {
  %0, %1 = topk(%a) {k=2} : (f32[8,2], i64[8,2])
  %2 = view(%1) {size=[-1]} : i64[16]
  return %2
}""", inputs=[randn(8, 4)], ref=lambda a: torch.topk(a, 2).indices.view(-1)))
