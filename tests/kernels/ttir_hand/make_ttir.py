# Writes the Triton-made TTIR inputs of the TTIR mutation analysis tests
# (tests/unit/test_ttir_mutation.cc): one <kernel>.ttir per kernel below, each opening with the
# kernel's Python. Run from the repository root with the project's venv (Triton 3.9; no GPU):
#   TRITON_DEFAULT_FP_FUSION=1 .venv/bin/python tests/kernels/ttir_hand/make_ttir.py
import inspect
import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia.compiler import CUDABackend
from triton.compiler import ASTSource
from triton._C.libtriton import ir

target = GPUTarget("cuda", 90, 32)
backend = CUDABackend(target)
opts = backend.parse_options({})


def make(fn, sig, consts, nodebug=False):
    src = ASTSource(fn=fn, signature=sig, constexprs=consts)
    ctx = ir.context()
    ir.load_dialects(ctx)
    backend.load_dialects(ctx)
    mod = src.make_ir(target, opts, backend.get_codegen_implementation(opts), backend.get_module_map(), ctx)
    return mod.str_nodebug() if nodebug else str(mod)


# kernel name -> (kernel, signature, constexprs). Block pointers (tl.make_block_ptr) are gone
# from Triton 3.9; the tests write block-pointer TTIR by hand, in the form older Triton printed.
K = {}


@triton.jit
def add_kernel(in0, in1, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0); offs = pid*BLOCK + tl.arange(0, BLOCK); m = offs < n
    tl.store(out+offs, tl.load(in0+offs, mask=m)+tl.load(in1+offs, mask=m), mask=m)
K["add_kernel"] = (add_kernel, {"in0":"*fp32","in1":"*fp32","out":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":128})


@triton.jit
def add_kernel_reordered(in0, n, in1, out, BLOCK: tl.constexpr):
    pid = tl.program_id(0); offs = pid*BLOCK + tl.arange(0, BLOCK); m = offs < n
    tl.store(out+offs, tl.load(in0+offs, mask=m)+tl.load(in1+offs, mask=m), mask=m)
K["add_kernel_reordered"] = (add_kernel_reordered, {"in0":"*fp32","n":"i32","in1":"*fp32","out":"*fp32","BLOCK":"constexpr"}, {"BLOCK":128})


@triton.jit
def mul2_inplace(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0)*BLOCK + tl.arange(0, BLOCK); m = offs < n
    x = tl.load(ptr+offs, mask=m); tl.store(ptr+offs, 2*x, mask=m)
K["mul2_inplace"] = (mul2_inplace, {"ptr":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def atomic_add_kernel(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0)*BLOCK + tl.arange(0, BLOCK); m = offs < n
    tl.atomic_add(out+offs, tl.load(x+offs, mask=m), mask=m)
K["atomic_add_kernel"] = (atomic_add_kernel, {"x":"*fp32","out":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def atomic_cas_kernel(lock, x, out):
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(out, tl.load(x) + 1)
    tl.atomic_xchg(lock, 0)
K["atomic_cas_kernel"] = (atomic_cas_kernel, {"lock":"*i32","x":"*fp32","out":"*fp32"}, {})


@triton.jit
def if_yield_kernel(in0, in1, out, n, flag, BLOCK: tl.constexpr):
    offs = tl.program_id(0)*BLOCK + tl.arange(0, BLOCK); m = offs < n
    if flag > 0:
        a = in0 + 1; b = in1 + 1; c = out + 1
    else:
        a = in0; b = in1; c = out
    tl.store(c + offs, tl.load(a + offs, mask=m) + tl.load(b + offs, mask=m), mask=m)
K["if_yield_kernel"] = (if_yield_kernel, {"in0":"*fp32","in1":"*fp32","out":"*fp32","n":"i32","flag":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def swap_for(a, b, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = a; q = b
    for i in range(n):
        tl.store(p + offs, tl.load(q + offs))
        p, q = q, p
K["swap_for"] = (swap_for, {"a":"*fp32","b":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def swap_while(a, b, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = a; q = b; i = 0
    while i < n:
        tl.store(p + offs, tl.load(q + offs))
        p, q = q, p
        i += 1
K["swap_while"] = (swap_while, {"a":"*fp32","b":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def ptr_loop_for(x, o, n, BLOCK: tl.constexpr):
    xp = x + tl.arange(0, BLOCK)
    op = o + tl.arange(0, BLOCK)
    for i in range(0, n):
        tl.store(op, tl.load(xp))
        xp += BLOCK
        op += BLOCK
K["ptr_loop_for"] = (ptr_loop_for, {"x": "*fp16", "o": "*fp16", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 32})


@triton.jit
def ptr_loop_while(x, o, n, BLOCK: tl.constexpr):
    xp = x + tl.arange(0, BLOCK)
    op = o + tl.arange(0, BLOCK)
    i = 0
    while i < n:
        tl.store(op, tl.load(xp))
        xp += BLOCK
        op += BLOCK
        i += 1
K["ptr_loop_while"] = (ptr_loop_while, {"x": "*fp16", "o": "*fp16", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 32})


@triton.jit
def desc_loop_kernel(x, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    dx = tl.make_tensor_descriptor(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do = tl.make_tensor_descriptor(out, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    for i in range(0, M, BM):
        do.store([i, 0], dx.load([i, 0]))
K["desc_loop_kernel"] = (desc_loop_kernel, {"x": "*fp16", "out": "*fp16", "M": "i32", "N": "i32", "BM": "constexpr", "BN": "constexpr"},
                         {"BM": 16, "BN": 16})


@triton.jit(noinline=True)
def helper_id(p):
    return p

@triton.jit
def helper_call_kernel(x, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    out2 = helper_id(out)
    tl.store(out2 + offs, tl.load(x + offs))
K["helper_call_kernel"] = (helper_call_kernel, {"x":"*fp32","out":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit(noinline=True)
def inner_store(ptr, n):
    tl.store(ptr + n, 1.0)


@triton.jit
def outer_kernel(in_ptr, out_ptr, n):
    inner_store(out_ptr, n)
    tl.store(out_ptr, tl.load(in_ptr))
K["outer_kernel"] = (outer_kernel, {"in_ptr":"*fp32","out_ptr":"*fp32","n":"i32"}, {})


@triton.jit
def reduce_kernel(a, c, N: tl.constexpr):
    r = tl.arange(0, N)
    ptrs = a + r[:, None]*N + r[None, :]
    m = tl.sum(tl.load(ptrs), axis=1)
    tl.store(c + r, m)
K["reduce_kernel"] = (reduce_kernel, {"a":"*fp32","c":"*fp32","N":"constexpr"}, {"N":16})


@triton.jit
def scan_kernel(a, c, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(c + r, tl.cumsum(tl.load(a + r), axis=0))
K["scan_kernel"] = (scan_kernel, {"a":"*fp32","c":"*fp32","N":"constexpr"}, {"N":16})


@triton.jit
def argmax_kernel(a, c, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(c, tl.argmax(tl.load(a + r), axis=0))
K["argmax_kernel"] = (argmax_kernel, {"a":"*fp32","c":"*i32","N":"constexpr"}, {"N":16})


@triton.jit
def asm_pure(x, y, N: tl.constexpr):
    r = tl.arange(0, N)
    v = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(x + r)], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y + r, v)
K["asm_pure"] = (asm_pure, {"x":"*i32","y":"*i32","N":"constexpr"}, {"N":16})


@triton.jit
def asm_impure(x, y, N: tl.constexpr):
    r = tl.arange(0, N)
    v = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(x + r)], dtype=tl.int32, is_pure=False, pack=1)
    tl.store(y + r, v)
K["asm_impure"] = (asm_impure, {"x":"*i32","y":"*i32","N":"constexpr"}, {"N":16})


@triton.jit
def desc_store_kernel(x, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    dx = tl.make_tensor_descriptor(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do = tl.make_tensor_descriptor(out, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do.store([0, 0], dx.load([0, 0]))
K["desc_store_kernel"] = (desc_store_kernel, {"x":"*fp16","out":"*fp16","M":"i32","N":"i32","BM":"constexpr","BN":"constexpr"}, {"BM":16,"BN":16})


@triton.jit
def desc_reduce_kernel(x, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    dx = tl.make_tensor_descriptor(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do = tl.make_tensor_descriptor(out, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do.atomic_add([0, 0], dx.load([0, 0]))
K["desc_reduce_kernel"] = (desc_reduce_kernel, {"x":"*fp32","out":"*fp32","M":"i32","N":"i32","BM":"constexpr","BN":"constexpr"}, {"BM":16,"BN":16})


@triton.jit
def desc_scatter_kernel(x, out, idx, M, N, BM: tl.constexpr, BN: tl.constexpr):
    dx = tl.make_tensor_descriptor(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do = tl.make_tensor_descriptor(out, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    rows = tl.load(idx + tl.arange(0, BM))
    do.scatter(dx.load([0, 0]), rows, 0)
K["desc_scatter_kernel"] = (desc_scatter_kernel, {"x":"*fp16","out":"*fp16","idx":"*i32","M":"i32","N":"i32","BM":"constexpr","BN":"constexpr"}, {"BM":8,"BN":16})


@triton.jit
def desc_param_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    out_desc.store([0, 0], in_desc.load([0, 0]))
K["desc_param_kernel"] = (desc_param_kernel, {"in_desc":"tensordesc<fp16[16, 16]>","out_desc":"tensordesc<fp16[16, 16]>","BM":"constexpr","BN":"constexpr"}, {"BM":16,"BN":16})


@triton.jit
def loaded_ptr_kernel(ptrs, x, N: tl.constexpr):
    r = tl.arange(0, N)
    p = tl.load(ptrs).to(tl.pointer_type(tl.float32))
    tl.store(p + r, tl.load(x + r))
K["loaded_ptr_kernel"] = (loaded_ptr_kernel, {"ptrs":"*i64","x":"*fp32","N":"constexpr"}, {"N":16})


@triton.jit
def scatter_kernel(x, idx, out, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(out + tl.load(idx + r), tl.load(x + r))
K["scatter_kernel"] = (scatter_kernel, {"x":"*fp32","idx":"*i32","out":"*fp32","N":"constexpr"}, {"N":16})


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M); num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
K["matmul_kernel"] = (matmul_kernel, {"a_ptr":"*fp16","b_ptr":"*fp16","c_ptr":"*fp16","M":"i32","N":"i32","K":"i32","stride_am":"i32","stride_ak":"i32","stride_bk":"i32","stride_bn":"i32","stride_cm":"i32","stride_cn":"i32","BLOCK_M":"constexpr","BLOCK_N":"constexpr","BLOCK_K":"constexpr","GROUP_M":"constexpr"}, {"BLOCK_M":64,"BLOCK_N":64,"BLOCK_K":32,"GROUP_M":8})


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    start = tl.program_id(0); step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step):
        offs = tl.arange(0, BLOCK); m = offs < n_cols
        x = tl.load(in_ptr + row*in_stride + offs, mask=m, other=-float('inf'))
        x = x - tl.max(x, axis=0); num = tl.exp(x); y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row*out_stride + offs, y, mask=m)
K["softmax_kernel"] = (softmax_kernel, {"out_ptr":"*fp32","in_ptr":"*fp32","in_stride":"i32","out_stride":"i32","n_rows":"i32","n_cols":"i32","BLOCK":"constexpr"}, {"BLOCK":256})


@triton.jit
def early_return(x, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(x + offs))
K["early_return"] = (early_return, {"x":"*fp32","out":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def pipelined(x, out, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.range(0, n, num_stages=3):
        acc += tl.load(x + i * BLOCK + tl.arange(0, BLOCK))
    tl.device_assert(n > 0, "n must be positive")
    tl.store(out + tl.arange(0, BLOCK), acc)
K["pipelined"] = (pipelined, {"x":"*fp32","out":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def atomic_counter(x, counter, out, BLOCK: tl.constexpr):
    idx = tl.atomic_add(counter, 1)
    tl.store(out + idx * BLOCK + tl.arange(0, BLOCK), tl.load(x + tl.arange(0, BLOCK)))
K["atomic_counter"] = (atomic_counter, {"x":"*fp32","counter":"*i32","out":"*fp32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def where_ptr(a, b, c, flag, BLOCK: tl.constexpr):
    p = tl.where(flag > 0, a, b)
    tl.store(p + tl.arange(0, BLOCK), tl.load(c + tl.arange(0, BLOCK)))
K["where_ptr"] = (where_ptr, {"a":"*fp32","b":"*fp32","c":"*fp32","flag":"i32","BLOCK":"constexpr"}, {"BLOCK":64})


@triton.jit
def join_split(a, b, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    pa = a + r; pb = b + r
    j = tl.join(pa, pb)
    p0, p1 = tl.split(j)
    tl.store(p0, tl.load(p1))
K["join_split"] = (join_split, {"a":"*fp32","b":"*fp32","BLOCK":"constexpr"}, {"BLOCK":64})



# Helpers a kernel calls, shown in its file's header too.
HELPERS = {"helper_call_kernel": [helper_id], "outer_kernel": [inner_store]}


def python_of(name, fn, sig, consts):
    lines = []
    for f in HELPERS.get(name, []) + [fn]:
        lines += inspect.getsource(f.fn).rstrip().splitlines()
    lines.append("signature=%r, constexprs=%r" % (sig, consts))
    return "".join("//   " + l + "\n" for l in lines)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    site = os.path.dirname(os.path.dirname(triton.__file__)) + "/"
    for name, (fn, sig, consts) in K.items():
        for nodebug in ((False, True) if name == "add_kernel" else (False,)):
            text = make(fn, sig, consts, nodebug)
            text = text.replace(root + "/", "").replace(site, "")
            out = name + (".nodebug" if nodebug else "") + ".ttir"
            head = "// made by: tests/kernels/ttir_hand/make_ttir.py (Triton %s, %s) from:\n" % (
                triton.__version__, "str_nodebug()" if nodebug else "str(module)")
            with open(os.path.join(here, out), "w") as f:
                f.write(head + python_of(name, fn, sig, consts) + text)


if __name__ == "__main__":
    sys.exit(main())
