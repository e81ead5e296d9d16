"""The TTIR corpus of kiln's kernel-mutation tests (tests/kernels/ttir/), made on the GPU machine.

For each Triton kernel below it records, in one JSON file:
  - the TTIR PyTorch's own analysis reads (torch's generate_ttir, printed with locations, so
    parameters carry their Python names);
  - PyTorch's answer: the tensor arguments its analysis says the kernel mutates
    (identify_mutated_tensors in PyTorch <= 2.9, identify_accessed_tensors' writes after), and
    whether it fell back to "every tensor" (it logs a warning then);
  - what the kernel really wrote when run on the GPU: every tensor argument is filled with
    random data, the kernel is launched, and the tensors whose bytes changed are listed. A sound
    analysis reports a superset of these.

Run on the device:  python3 tools/kernels/triton_corpus.py $OUT/ttir_corpus.json
Then here:          python3 tools/kernels/split_corpus.py ttir_corpus.json tests/kernels/ttir
The `kiln_expected` field of a case is kiln's intended answer where it deliberately differs from
PyTorch's, with the reason; tests/unit/test_kernel_corpus.cc checks both.
"""
import inspect
import json
import logging
import sys

import torch
import triton
import triton.language as tl
from triton.runtime.autotuner import Autotuner

BLOCK = 128
N = 1000


# ---- 1. plain stores, in-place updates -------------------------------------------------------

@triton.jit
def add_kernel(in0, in1, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(in0 + offs, mask=m) + tl.load(in1 + offs, mask=m), mask=m)


@triton.jit
def add_kernel_reordered(in0, n, in1, out, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(in0 + offs, mask=m) + tl.load(in1 + offs, mask=m), mask=m)


@triton.jit
def mul2_inplace(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(ptr + offs, tl.load(ptr + offs, mask=m) * 2, mask=m)


@triton.jit
def two_outputs(x, out_sum, out_prod, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m)
    tl.store(out_sum + offs, v + v, mask=m)
    tl.store(out_prod + offs, v * v, mask=m)


@triton.jit
def strided_2d(x, out, rows, cols, stride_x, stride_o, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < cols
    v = tl.load(x + r * stride_x + c, mask=m)
    tl.store(out + r * stride_o + c, v + 1, mask=m)


@triton.jit
def mask_from_data(x, keep, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    k = tl.load(keep + offs, mask=m, other=0) != 0
    tl.store(out + offs, tl.load(x + offs, mask=m), mask=m & k)


# ---- 2. atomics ------------------------------------------------------------------------------

@triton.jit
def atomic_add_kernel(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_add(out + offs % 8, tl.load(x + offs, mask=m), mask=m)


@triton.jit
def atomic_max_kernel(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_max(out + offs % 4, tl.load(x + offs, mask=m), mask=m)


@triton.jit
def atomic_cas_lock(lock, x, out, n, BLOCK: tl.constexpr):
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(out + offs, mask=m) + tl.load(x + offs, mask=m), mask=m)
    tl.atomic_xchg(lock, 0)


@triton.jit
def atomic_xchg_kernel(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_xchg(out + offs, tl.load(x + offs, mask=m), mask=m)


# ---- 3. control flow: loops and branches -----------------------------------------------------

@triton.jit
def store_in_for(x, out, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    for i in range(ITERS):
        offs = i * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) + i, mask=m)


@triton.jit
def store_in_while(x, out, n, BLOCK: tl.constexpr):
    start = 0
    while start < n:
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m), mask=m)
        start += BLOCK


# PyTorch <= 2.9 passes scalar arguments to Triton as constants, which folds a branch on them
# away: the conditions below read a flag from memory so that scf.if stays in the TTIR.

@triton.jit
def store_in_if(x, out_a, out_b, flag, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m)
    if tl.load(flag) > 0:
        tl.store(out_a + offs, v, mask=m)
    else:
        tl.store(out_b + offs, v, mask=m)


@triton.jit
def if_yields_pointers(in0, in1, out, flag, n, BLOCK: tl.constexpr):
    # SPEC.md 1f scenario 3: three pointers chosen by a branch; only the third is stored through.
    if tl.load(flag) > 0:
        a = in0 + 1
        b = in1 + 1
        c = out + 1
    else:
        a = in0
        b = in1
        c = out
    offs = tl.arange(0, BLOCK)
    m = offs < n - 1
    tl.store(c + offs, tl.load(a + offs, mask=m) + tl.load(b + offs, mask=m), mask=m)


@triton.jit
def store_in_for_if(x, out, flags, n, BLOCK: tl.constexpr):
    for i in range(4):
        offs = i * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        if tl.load(flags + i) != 0:
            tl.store(out + offs, tl.load(x + offs, mask=m), mask=m)


@triton.jit
def pointer_carried_for(x, out, n, BLOCK: tl.constexpr):
    p = out
    q = x
    for i in range(4):
        offs = tl.arange(0, BLOCK)
        m = i * BLOCK + offs < n
        tl.store(p + offs, tl.load(q + offs, mask=m) * 3, mask=m)
        p += BLOCK
        q += BLOCK


@triton.jit
def pointer_swap_loop(a, b, n, BLOCK: tl.constexpr):
    # The pointers trade places every iteration: the second iteration stores through `b`.
    # Only an analysis that follows the loop's back edge (scf.yield -> iter_args) sees it.
    p = a
    q = b
    for i in range(2):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        tl.store(p + offs, tl.load(q + offs, mask=m) + 1, mask=m)
        p, q = q, p


@triton.jit
def pointer_carried_while(x, out, n, BLOCK: tl.constexpr):
    p = out
    done = 0
    while done < n:
        offs = tl.arange(0, BLOCK)
        m = done + offs < n
        tl.store(p + offs, tl.load(x + done + offs, mask=m), mask=m)
        p += BLOCK
        done += BLOCK


# ---- 4. block pointers -----------------------------------------------------------------------

@triton.jit
def block_ptr_for(x, o, M, N_, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    xp = tl.make_block_ptr(x, shape=(M, N_), strides=(stride_m, 1), offsets=(0, 0), block_shape=(BM, BN), order=(1, 0))
    op = tl.make_block_ptr(o, shape=(M, N_), strides=(stride_m, 1), offsets=(0, 0), block_shape=(BM, BN), order=(1, 0))
    for _ in range(0, N_, BN):
        v = tl.load(xp, boundary_check=(0, 1))
        tl.store(op, v * 2, boundary_check=(0, 1))
        xp = tl.advance(xp, (0, BN))
        op = tl.advance(op, (0, BN))


@triton.jit
def block_ptr_while(x, o, M, N_, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    xp = tl.make_block_ptr(x, shape=(M, N_), strides=(stride_m, 1), offsets=(0, 0), block_shape=(BM, BN), order=(1, 0))
    op = tl.make_block_ptr(o, shape=(M, N_), strides=(stride_m, 1), offsets=(0, 0), block_shape=(BM, BN), order=(1, 0))
    col = 0
    while col < N_:
        tl.store(op, tl.load(xp, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))
        xp = tl.advance(xp, (0, BN))
        op = tl.advance(op, (0, BN))
        col += BN


# ---- 5. indices loaded from memory -----------------------------------------------------------

@triton.jit
def scatter_loaded_index(x, idx, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    i = tl.load(idx + offs, mask=m, other=0)
    tl.store(out + i, tl.load(x + offs, mask=m), mask=m)


@triton.jit
def gather_loaded_index(x, idx, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    i = tl.load(idx + offs, mask=m, other=0)
    tl.store(out + offs, tl.load(x + i, mask=m), mask=m)


@triton.jit
def store_through_loaded_pointer(addrs, x, n, BLOCK: tl.constexpr):
    # `addrs` holds device addresses (grouped-GEMM style); the store's pointer comes from memory.
    # PyTorch's walk stops at the load and reports nothing: the write to `x` goes unseen.
    base = tl.load(addrs).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(base + offs, tl.load(base + offs, mask=m) + 1, mask=m)


# ---- 6. helper functions ---------------------------------------------------------------------

@triton.jit
def helper_id(p):
    return p


@triton.jit
def helper_call_returns_pointer(x, out, n, BLOCK: tl.constexpr):
    out2 = helper_id(out)
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out2 + offs, tl.load(x + offs, mask=m), mask=m)


@triton.jit(noinline=True)
def helper_copy_noinline(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


@triton.jit
def helper_noinline_store(x, out, n, BLOCK: tl.constexpr):
    # A `noinline` helper stays a separate tt.func reached by tt.call; it writes its 2nd parameter.
    helper_copy_noinline(x, out, n, BLOCK)


@triton.jit
def helper_store_at(ptr, k):
    tl.store(ptr + k, 7.0)


@triton.jit
def helper_nested_scalar(out_ptr, x, n):
    # SPEC.md 1f scenario 5: the scalar `n` reaches the store's pointer; only out_ptr is reported.
    helper_store_at(out_ptr, n)


# ---- 7. reductions and scans -----------------------------------------------------------------

@triton.jit
def row_sum(a, c, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    v = tl.load(a + rows * stride + cols)
    tl.store(c + tl.arange(0, BM), tl.sum(v, axis=1))


@triton.jit
def row_cumsum(a, c, BN: tl.constexpr):
    cols = tl.arange(0, BN)
    tl.store(c + cols, tl.cumsum(tl.load(a + cols), axis=0))


@triton.jit
def softmax_rows(x, out, cols, stride, BN: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BN)
    m = offs < cols
    v = tl.load(x + r * stride + offs, mask=m, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(out + r * stride + offs, e / tl.sum(e, axis=0), mask=m)


@triton.jit
def matmul_kernel(a, b, c, M, N_, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        av = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        bv = tl.load(b + (k + rk)[:, None] * N_ + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N_), other=0.0)
        acc += tl.dot(av, bv)
    tl.store(c + rm[:, None] * N_ + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N_))


# ---- 8. autotuned ----------------------------------------------------------------------------

@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def autotuned_scale(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) * 0.5, mask=m)


# ---- 9. inline asm ---------------------------------------------------------------------------

@triton.jit
def inline_asm_pure(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(x + offs, mask=m)], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(out + offs, v, mask=m)


@triton.jit
def inline_asm_impure(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(x + offs, mask=m)], dtype=tl.int32,
                                  is_pure=False, pack=1)
    tl.store(out + offs, v, mask=m)


# ---- 10. tensor descriptors (made in the kernel) ---------------------------------------------

@triton.jit
def descriptor_store(x, out, M, N_, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(x, shape=[M, N_], strides=[N_, 1], block_shape=[BM, BN])
    od = tl.make_tensor_descriptor(out, shape=[M, N_], strides=[N_, 1], block_shape=[BM, BN])
    od.store([0, 0], xd.load([0, 0]) + 1)


@triton.jit
def descriptor_atomic_add(x, out, M, N_, BM: tl.constexpr, BN: tl.constexpr):
    # tt.descriptor_reduce: a write PyTorch's list of mutating ops forgot.
    xd = tl.make_tensor_descriptor(x, shape=[M, N_], strides=[N_, 1], block_shape=[BM, BN])
    od = tl.make_tensor_descriptor(out, shape=[M, N_], strides=[N_, 1], block_shape=[BM, BN])
    od.atomic_add([0, 0], xd.load([0, 0]))


@triton.jit
def descriptor_scatter(x, idx, out, M, N_, BM: tl.constexpr, BN: tl.constexpr):
    # tt.descriptor_scatter: also missing from PyTorch's list.
    xd = tl.make_tensor_descriptor(x, shape=[M, N_], strides=[N_, 1], block_shape=[BM, BN])
    od = tl.make_tensor_descriptor(out, shape=[M, N_], strides=[N_, 1], block_shape=[1, BN])
    rows = tl.load(idx + tl.arange(0, BM))
    od.scatter(xd.load([0, 0]), rows, 0)


# ---- 11. a kernel that writes nothing ---------------------------------------------------------

@triton.jit
def reads_only(x, y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m)
    tl.device_assert(tl.sum(v, axis=0) == tl.sum(v, axis=0))


DEVICE = "cuda"


def f32(*shape):
    return torch.randn(*shape, device=DEVICE)


def cases():
    """(name, kernel, kwargs maker, grid, kiln's deliberate difference or None). Integer arguments
    equal to 1 are avoided where they steer control flow: Triton specializes them to constants."""
    idx_perm = lambda: torch.randperm(N, device=DEVICE, dtype=torch.int32)
    yield "add_kernel", add_kernel, lambda: dict(in0=f32(N), in1=f32(N), out=f32(N), n=N, BLOCK=BLOCK), (8,), None
    yield "add_kernel_reordered", add_kernel_reordered, lambda: dict(in0=f32(N), n=N, in1=f32(N), out=f32(N), BLOCK=BLOCK), (8,), None
    yield "mul2_inplace", mul2_inplace, lambda: dict(ptr=f32(N), n=N, BLOCK=BLOCK), (8,), None
    yield "two_outputs", two_outputs, lambda: dict(x=f32(N), out_sum=f32(N), out_prod=f32(N), n=N, BLOCK=BLOCK), (8,), None
    yield "strided_2d", strided_2d, lambda: dict(x=f32(16, 100), out=f32(16, 128), rows=16, cols=100, stride_x=100, stride_o=128, BLOCK=128), (16,), None
    yield "mask_from_data", mask_from_data, lambda: dict(x=f32(N), keep=torch.randint(0, 2, (N,), device=DEVICE, dtype=torch.int32), out=f32(N), n=N, BLOCK=BLOCK), (8,), None
    yield "atomic_add_kernel", atomic_add_kernel, lambda: dict(x=f32(N), out=f32(8), n=N, BLOCK=BLOCK), (8,), None
    yield "atomic_max_kernel", atomic_max_kernel, lambda: dict(x=torch.randint(-100, 100, (N,), device=DEVICE, dtype=torch.int32), out=torch.full((4,), -1000, device=DEVICE, dtype=torch.int32), n=N, BLOCK=BLOCK), (8,), None
    yield "atomic_cas_lock", atomic_cas_lock, lambda: dict(lock=torch.zeros(1, device=DEVICE, dtype=torch.int32), x=f32(BLOCK), out=f32(BLOCK), n=BLOCK, BLOCK=BLOCK), (4,), None
    yield "atomic_xchg_kernel", atomic_xchg_kernel, lambda: dict(x=f32(N), out=f32(N), n=N, BLOCK=BLOCK), (8,), None
    yield "store_in_for", store_in_for, lambda: dict(x=f32(N), out=f32(N), n=N, ITERS=8, BLOCK=BLOCK), (1,), None
    yield "store_in_while", store_in_while, lambda: dict(x=f32(N), out=f32(N), n=N, BLOCK=BLOCK), (1,), None
    yield "store_in_if", store_in_if, lambda: dict(x=f32(BLOCK), out_a=f32(BLOCK), out_b=f32(BLOCK), flag=torch.ones(1, device=DEVICE, dtype=torch.int32), n=BLOCK, BLOCK=BLOCK), (1,), None
    yield "if_yields_pointers", if_yields_pointers, lambda: dict(in0=f32(BLOCK), in1=f32(BLOCK), out=f32(BLOCK), flag=torch.ones(1, device=DEVICE, dtype=torch.int32), n=BLOCK, BLOCK=BLOCK), (1,), None
    yield "store_in_for_if", store_in_for_if, lambda: dict(x=f32(4 * BLOCK), out=f32(4 * BLOCK), flags=torch.tensor([1, 0, 1, 0], device=DEVICE, dtype=torch.int32), n=4 * BLOCK, BLOCK=BLOCK), (1,), None
    yield "pointer_carried_for", pointer_carried_for, lambda: dict(x=f32(4 * BLOCK), out=f32(4 * BLOCK), n=4 * BLOCK, BLOCK=BLOCK), (1,), None
    yield "pointer_swap_loop", pointer_swap_loop, lambda: dict(a=f32(BLOCK), b=f32(BLOCK), n=BLOCK, BLOCK=BLOCK), (1,), (
        ["a", "b"], "the pointers trade places through the loop's iter_args; the second iteration "
        "stores through b. PyTorch maps an iter_arg to its initial value only (no back edge from scf.yield)")
    yield "pointer_carried_while", pointer_carried_while, lambda: dict(x=f32(N), out=f32(N), n=N, BLOCK=BLOCK), (1,), None
    yield "block_ptr_for", block_ptr_for, lambda: dict(x=f32(64, 256), o=f32(64, 256), M=64, N_=256, stride_m=256, BM=64, BN=64), (1,), None
    yield "block_ptr_while", block_ptr_while, lambda: dict(x=f32(64, 256), o=f32(64, 256), M=64, N_=256, stride_m=256, BM=64, BN=64), (1,), None
    yield "scatter_loaded_index", scatter_loaded_index, lambda: dict(x=f32(N), idx=idx_perm(), out=f32(N), n=N, BLOCK=BLOCK), (8,), None
    yield "gather_loaded_index", gather_loaded_index, lambda: dict(x=f32(N), idx=idx_perm(), out=f32(N), n=N, BLOCK=BLOCK), (8,), None

    def loaded_pointer_args():
        x = f32(BLOCK)
        return dict(addrs=torch.tensor([x.data_ptr()], device=DEVICE, dtype=torch.int64), x=x, n=BLOCK, BLOCK=BLOCK)
    yield "store_through_loaded_pointer", store_through_loaded_pointer, loaded_pointer_args, (1,), (
        ["addrs", "x"], "the stored-through pointer is loaded from memory; PyTorch's walk stops at the "
        "load and reports nothing, so the write to x goes unseen. kiln cannot tell which argument the "
        "loaded pointer points into, so it reports every pointer argument written, with that reason")
    yield "helper_call_returns_pointer", helper_call_returns_pointer, lambda: dict(x=f32(BLOCK), out=f32(BLOCK), n=BLOCK, BLOCK=BLOCK), (1,), None
    yield "helper_noinline_store", helper_noinline_store, lambda: dict(x=f32(BLOCK), out=f32(BLOCK), n=BLOCK, BLOCK=BLOCK), (1,), None
    yield "helper_nested_scalar", helper_nested_scalar, lambda: dict(out_ptr=f32(16), x=f32(16), n=3), (1,), None
    yield "row_sum", row_sum, lambda: dict(a=f32(32, 64), c=f32(32), stride=64, BM=32, BN=64), (1,), None
    yield "row_cumsum", row_cumsum, lambda: dict(a=f32(64), c=f32(64), BN=64), (1,), None
    yield "softmax_rows", softmax_rows, lambda: dict(x=f32(16, 100), out=f32(16, 100), cols=100, stride=100, BN=128), (16,), None
    yield "matmul_kernel", matmul_kernel, lambda: dict(a=f32(64, 64), b=f32(64, 64), c=f32(64, 64), M=64, N_=64, K=64, BM=32, BN=32, BK=32), (2, 2), None
    yield "autotuned_scale", autotuned_scale, lambda: dict(x=f32(N), out=f32(N), n=N), None, None
    yield "inline_asm_pure", inline_asm_pure, lambda: dict(x=torch.randint(0, 9, (BLOCK,), device=DEVICE, dtype=torch.int32), y=f32(BLOCK), out=torch.zeros(BLOCK, device=DEVICE, dtype=torch.int32), n=BLOCK, BLOCK=BLOCK), (1,), None
    yield "inline_asm_impure", inline_asm_impure, lambda: dict(x=torch.randint(0, 9, (BLOCK,), device=DEVICE, dtype=torch.int32), y=f32(BLOCK), out=torch.zeros(BLOCK, device=DEVICE, dtype=torch.int32), n=BLOCK, BLOCK=BLOCK), (1,), None
    yield "descriptor_store", descriptor_store, lambda: dict(x=f32(64, 64), out=f32(64, 64), M=64, N_=64, BM=64, BN=64), (1,), None
    yield "descriptor_atomic_add", descriptor_atomic_add, lambda: dict(x=f32(64, 64), out=f32(64, 64), M=64, N_=64, BM=64, BN=64), (1,), (
        ["out"], "tt.descriptor_reduce writes memory; PyTorch's list of mutating ops lacks it")
    yield "descriptor_scatter", descriptor_scatter, lambda: dict(x=f32(8, 64), idx=torch.arange(8, device=DEVICE, dtype=torch.int32), out=f32(8, 64), M=8, N_=64, BM=8, BN=64), (1,), (
        ["out"], "tt.descriptor_scatter writes memory; PyTorch's list of mutating ops lacks it")
    yield "reads_only", reads_only, lambda: dict(x=f32(BLOCK), y=f32(BLOCK), n=BLOCK, BLOCK=BLOCK), (1,), None


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def torch_answer(kernel, kwargs):
    """PyTorch's written tensor names and whether it fell back, by the API this version has."""
    import torch._higher_order_ops.triton_kernel_wrap as tkw
    handler = _Warnings()
    for name in ("torch._dynamo", tkw.__name__, "torch._higher_order_ops.triton_kernel_wrap"):
        logging.getLogger(name).addHandler(handler)
    tma = {}
    if hasattr(tkw, "identify_mutated_tensors"):
        params = inspect.signature(tkw.identify_mutated_tensors).parameters
        names = tkw.identify_mutated_tensors(kernel, kwargs, tma) if len(params) >= 3 else tkw.identify_mutated_tensors(kernel, kwargs)
        api = "identify_mutated_tensors"
    else:
        acc = tkw.identify_accessed_tensors(kernel, kwargs, tma)
        names = [d.name for d in acc.read_writes.writes if isinstance(kwargs.get(d.name), torch.Tensor)]
        api = "identify_accessed_tensors"
    fallback = any("assuming every input is mutated" in m or "Encountered an exception" in m for m in handler.messages)
    return list(names), fallback, api, handler.messages


def use_cpu_without_gpu():
    """Lets Triton and PyTorch lower the kernels to TTIR on a machine without a GPU: CPU tensors
    and a driver that answers a fixed sm_90 target."""
    global DEVICE
    from triton.backends.compiler import GPUTarget
    DEVICE = "cpu"

    class NoGpuDriver:
        def get_current_target(self):
            return GPUTarget("cuda", 90, 32)

        def get_active_torch_device(self):
            return torch.device("cpu")

    triton.runtime.driver.set_active(NoGpuDriver())


def main(out_path, dry_run):
    """dry_run: no GPU (a check of this script here): CPU tensors, a fixed sm_90 target, no launch."""
    import torch._higher_order_ops.triton_kernel_wrap as tkw
    if dry_run:
        use_cpu_without_gpu()
    else:
        # Descriptors made in a kernel need a global scratch allocation at launch.
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    results = []
    torch.manual_seed(0)
    for name, kernel, make, grid, diff in cases():
        jit = kernel.fn if isinstance(kernel, Autotuner) else kernel
        case = {"name": name, "source": inspect.getsource(jit.fn)}
        kwargs = make()
        tensors = [k for k, v in kwargs.items() if isinstance(v, torch.Tensor)]
        case["tensor_args"] = tensors
        try:
            ttir, arg_names = tkw.generate_ttir(kernel, dict(kwargs), {})
            case["ttir"] = str(ttir)
            case["ttir_arg_names"] = list(arg_names)
        except Exception as e:  # recorded: a kernel Triton itself cannot lower here
            case["ttir_error"] = f"{type(e).__name__}: {e}"
        try:
            names, fallback, api, msgs = torch_answer(kernel, dict(kwargs))
            case.update(torch_written=names, torch_fallback=fallback, torch_api=api, torch_warnings=msgs[-3:])
        except Exception as e:
            case["torch_error"] = f"{type(e).__name__}: {e}"
        try:
            if dry_run:
                raise RuntimeError("dry run: not launched")
            before = {k: kwargs[k].clone() for k in tensors}
            launch = {k: v for k, v in kwargs.items()}
            if grid is None:
                kernel[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](**launch)
            else:
                kernel[grid](**launch)
            torch.cuda.synchronize()
            case["gpu_written"] = [k for k in tensors if not torch.equal(before[k], kwargs[k])]
        except Exception as e:
            case["gpu_error"] = f"{type(e).__name__}: {e}"
        if diff:
            case["kiln_expected"], case["kiln_reason"] = diff
        results.append(case)
        print(f"{name:32s} torch={case.get('torch_written')} fb={case.get('torch_fallback')} gpu={case.get('gpu_written')}"
              f"{' ttir_error=' + case['ttir_error'] if 'ttir_error' in case else ''}"
              f"{' gpu_error=' + case['gpu_error'][:80] if 'gpu_error' in case else ''}", flush=True)
    meta = {"torch": torch.__version__, "triton": triton.__version__,
            "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "none"}
    with open(out_path, "w") as f:
        json.dump({"meta": meta, "cases": results}, f, indent=1)
    print(json.dumps(meta))


if __name__ == "__main__":
    main(sys.argv[1], "--dry-run" in sys.argv[2:])
