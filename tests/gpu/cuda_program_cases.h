// Loop programs with hand-written CUDA sources (codegen/cuda/cuda_program_source.h), for the
// CUDA program runtime (runtime/cuda/cuda_program.h) before the emitter exists: the unit tests
// check that each parses and its source fits it (no GPU needed); the GPU test runs each and
// compares it with the loop-IR evaluator. Buffers are numbered inputs first, then as declared.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda/cuda_program_source.h"

namespace kiln::cuda_cases {

struct Case {
  std::string name;
  std::string loops;  // loop IR text (lower/loop_text.h)
  CudaProgramSource source;
};

inline CudaArg buffer_arg(int b) { return CudaArg{CudaArg::Kind::Buffer, b, 0}; }
inline CudaArg scratch_arg(int64_t offset) { return CudaArg{CudaArg::Kind::Scratch, -1, offset}; }
inline CudaArg error_arg() { return CudaArg{CudaArg::Kind::ErrorSlot, -1, 0}; }

inline CudaLaunch launch(std::string symbol, uint32_t grid, uint32_t block, std::vector<CudaArg> args,
                         uint32_t shared_bytes = 0) {
  return CudaLaunch{std::move(symbol), {grid, 1, 1}, {block, 1, 1}, shared_bytes, std::move(args)};
}

constexpr const char* kPrelude = "typedef long long i64;\n";

// out0 = x + y over 1000 floats, staged through 64 KiB of dynamic shared memory (above the
// 48 KiB a launch gets without cuFuncSetAttribute's opt-in).
inline Case pointwise_add() {
  Case c;
  c.name = "pointwise_add";
  c.loops = R"(loops @add(%x: f32[1000], %y: f32[1000]) -> (%out0) {
  buffer %out0 : f32[1000] strides [1]
  kernel @k0 pointwise {
    for i0 in range(1000) {
      %0 = load %x[i0]
      %1 = load %y[i0]
      %2 = add %0, %1 : f32
      store %out0[i0], %2
    }
  }
}
)";
  c.source.prelude = kPrelude;
  c.source.kernel_text = {R"(
extern "C" __global__ void k0_add(const char* x, const char* y, char* out) {
  extern __shared__ float staged[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[16383 - threadIdx.x] = i < 1000 ? ((const float*)x)[i] + ((const float*)y)[i] : 0.0f;
  __syncthreads();
  if (i < 1000) ((float*)out)[i] = staged[16383 - threadIdx.x];
}
)"};
  c.source.launches = {{launch("k0_add", 4, 256, {buffer_arg(0), buffer_arg(1), buffer_arg(2)}, 64 * 1024)}};
  return c;
}

// A kernel that writes its input (in place: the caller's tensor is updated) and an output.
inline Case in_place() {
  Case c;
  c.name = "in_place";
  c.loops = R"(loops @bump(%x: f32[8]) -> (%out0) {
  buffer %out0 : f32[8] strides [1]
  kernel @k0 pointwise {
    for i0 in range(8) {
      %0 = load %x[i0]
      %1 = const 1.0 : f32
      %2 = add %0, %1 : f32
      %3 = mul %0, %0 : f32
      store %x[i0], %2
      store %out0[i0], %3
    }
  }
}
)";
  c.source.prelude = kPrelude;
  c.source.kernel_text = {R"(
extern "C" __global__ void k0_bump(char* x, char* out) {
  int i = threadIdx.x;
  if (i >= 8) return;
  float v = ((float*)x)[i];
  ((float*)x)[i] = v + 1.0f;
  ((float*)out)[i] = v * v;
}
)"};
  c.source.launches = {{launch("k0_bump", 1, 32, {buffer_arg(0), buffer_arg(1)})}};
  return c;
}

// An output laid out column-major (strides [1,2]): the runtime copies it back through staging.
inline Case transposed_output() {
  Case c;
  c.name = "transposed_output";
  c.loops = R"(loops @tr(%x: f32[2,3]) -> (%out0) {
  buffer %out0 : f32[2,3] strides [1,2]
  kernel @k0 pointwise {
    for i0 in range(2) {
      for i1 in range(3) {
        %0 = load %x[3*i0 + i1]
        store %out0[i0 + 2*i1], %0
      }
    }
  }
}
)";
  c.source.prelude = kPrelude;
  c.source.kernel_text = {R"(
extern "C" __global__ void k0_transpose(const char* x, char* out) {
  int t = threadIdx.x;
  if (t < 6) ((float*)out)[t / 3 + 2 * (t % 3)] = ((const float*)x)[t];
}
)"};
  c.source.launches = {{launch("k0_transpose", 1, 32, {buffer_arg(0), buffer_arg(1)})}};
  return c;
}

// A sum of 1024 floats in two launches: per-block partials in the scratch workspace, then a
// second pass that adds them in order.
inline Case split_sum() {
  Case c;
  c.name = "split_sum";
  c.loops = R"(loops @total(%x: f32[1024]) -> (%out0) {
  buffer %out0 : f32[] strides []
  kernel @k0 reduction {
    for i0 in range(1024) reduce {
      %0 = load %x[i0]
    }
    %1 = reduce sum %0 : f32
    store %out0[0], %1
  }
}
)";
  c.source.prelude = kPrelude;
  c.source.kernel_text = {R"(
extern "C" __global__ void k0_partials(const char* x, char* partials) {
  __shared__ float sums[256];
  sums[threadIdx.x] = ((const float*)x)[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) sums[threadIdx.x] += sums[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) ((float*)partials)[blockIdx.x] = sums[0];
}
extern "C" __global__ void k0_finish(const char* partials, char* out) {
  float total = 0.0f;
  for (int b = 0; b < 4; ++b) total += ((const float*)partials)[b];
  *(float*)out = total;
}
)"};
  c.source.launches = {{launch("k0_partials", 4, 256, {buffer_arg(0), scratch_arg(256)}),
                        launch("k0_finish", 1, 1, {scratch_arg(256), buffer_arg(1)})}};
  c.source.scratch_bytes = 512;
  return c;
}

// cond %p: then out0 = x + 1 on the GPU; else out0 = 2 * addmm(x^T, x, x), an extern kernel
// the runtime runs on the host (cuBLASLt takes addmm's self only as a bias or laid out as the
// result).
inline Case cond_with_host_addmm() {
  Case c;
  c.name = "cond_with_host_addmm";
  c.loops = R"(loops @choose(%p: bool[], %x: f32[2,2]) -> (%out0) {
  buffer %out0 : f32[2,2] strides [2,1]
  buffer %t0 : f32[2,2] strides [2,1]
  kernel @k0 cond %p {
    then {
      kernel @k1 pointwise {
        for i0 in range(2) {
          for i1 in range(2) {
            %0 = load %x[2*i0 + i1]
            %1 = const 1.0 : f32
            %2 = add %0, %1 : f32
            store %out0[2*i0 + i1], %2
          }
        }
      }
    }
    else {
      kernel @k2 extern addmm(%x as [2,2] strides [1,2] offset 0, %x, %x) {alpha=1, beta=1} -> (%t0)
      kernel @k3 pointwise {
        for i0 in range(2) {
          for i1 in range(2) {
            %0 = load %t0[2*i0 + i1]
            %1 = const 2.0 : f32
            %2 = mul %0, %1 : f32
            store %out0[2*i0 + i1], %2
          }
        }
      }
    }
  }
}
)";
  c.source.prelude = kPrelude;
  c.source.kernel_text = {"", R"(
extern "C" __global__ void k1_add_one(const char* x, char* out) {
  int i = threadIdx.x;
  if (i < 4) ((float*)out)[i] = ((const float*)x)[i] + 1.0f;
}
)",
                          "", R"(
extern "C" __global__ void k3_twice(const char* t, char* out) {
  int i = threadIdx.x;
  if (i < 4) ((float*)out)[i] = ((const float*)t)[i] * 2.0f;
}
)"};
  c.source.launches = {{},
                       {launch("k1_add_one", 1, 32, {buffer_arg(1), buffer_arg(2)})},
                       {},
                       {launch("k3_twice", 1, 32, {buffer_arg(3), buffer_arg(2)})}};
  return c;
}

// while c < x: c = c + 1 (carried %c, next %n), from c = 0; out0 = c.
inline Case count_up() {
  Case c;
  c.name = "count_up";
  c.loops = R"(loops @count(%x: f32[]) -> (%out0) {
  buffer %out0 : f32[] strides []
  buffer %c : f32[] strides []
  buffer %n : f32[] strides []
  buffer %go : bool[] strides []
  kernel @k0 pointwise {
    %0 = const 0.0 : f32
    store %c[0], %0
  }
  kernel @k1 while carry (%c) next (%n) {
    cond %go {
      kernel @k2 pointwise {
        %0 = load %c[0]
        %1 = load %x[0]
        %2 = lt %0, %1 : bool
        store %go[0], %2
      }
    }
    body {
      kernel @k3 pointwise {
        %0 = load %c[0]
        %1 = const 1.0 : f32
        %2 = add %0, %1 : f32
        store %n[0], %2
      }
    }
  }
  kernel @k4 pointwise {
    %0 = load %c[0]
    store %out0[0], %0
  }
}
)";
  // Buffers: x 0, out0 1, c 2, n 3, go 4.
  c.source.prelude = kPrelude;
  c.source.kernel_text = {R"(
extern "C" __global__ void k0_zero(char* c) { *(float*)c = 0.0f; }
)",
                          "", R"(
extern "C" __global__ void k2_less(const char* c, const char* x, char* go) {
  *(unsigned char*)go = *(const float*)c < *(const float*)x ? 1 : 0;
}
)",
                          R"(
extern "C" __global__ void k3_step(const char* c, char* n) { *(float*)n = *(const float*)c + 1.0f; }
)",
                          R"(
extern "C" __global__ void k4_copy(const char* c, char* out) { *(float*)out = *(const float*)c; }
)"};
  c.source.launches = {{launch("k0_zero", 1, 1, {buffer_arg(2)})},
                       {},
                       {launch("k2_less", 1, 1, {buffer_arg(2), buffer_arg(0), buffer_arg(4)})},
                       {launch("k3_step", 1, 1, {buffer_arg(2), buffer_arg(3)})},
                       {launch("k4_copy", 1, 1, {buffer_arg(2), buffer_arg(1)})}};
  return c;
}

// out0[j] = x[i[j]] with the index checked: an index outside [-4, 4) sets the error slot.
inline Case checked_gather() {
  Case c;
  c.name = "checked_gather";
  c.loops = R"(loops @pick(%x: f32[4], %i: i64[2]) -> (%out0) {
  buffer %out0 : f32[2] strides [1]
  kernel @k0 pointwise {
    for i0 in range(2) {
      %0 = load %i[i0]
      %1 = indirect %0, size 4, wrap, index dim 0 at "%2 = index(%x, %i) : f32[2]"
      %2 = load %x[%1]
      store %out0[i0], %2
    }
  }
}
)";
  c.source.prelude = kPrelude;
  c.source.kernel_text = {R"(
extern "C" __global__ void k0_pick(const char* x, const char* index, char* out, int* error) {
  int j = threadIdx.x;
  if (j >= 2) return;
  i64 at = ((const i64*)index)[j];
  if (at < 0) at += 4;
  if (at < 0 || at >= 4) { *error = 1; return; }
  ((float*)out)[j] = ((const float*)x)[at];
}
)"};
  c.source.launches = {{launch("k0_pick", 1, 32, {buffer_arg(0), buffer_arg(1), buffer_arg(2), error_arg()})}};
  return c;
}

// The matmul family as extern kernels (no CUDA text: cuBLASLt runs them), in `dtype` ("f32",
// "bf16", "f16"): mm; bmm whose right operand is a transposed view; matmul broadcasting a
// matrix over a batch; linear with a bias over a 3-d input; linear without one; addmm of a bias
// scaled by alpha; baddbmm with beta times a matrix (cuBLASLt's C); attention's scores of heads
// read out of [batch, seq, heads, dim], whose batch dims do not collapse (a call per batch).
inline Case matmuls(const std::string& dtype) {
  Case c;
  c.name = "matmuls " + dtype;
  c.loops =
      R"(loops @matmuls(%x: T[64,32], %y: T[32,48], %p: T[4,16,32], %q: T[4,24,32], %w: T[24,32], %b: T[24], %e: T[48], %s: T[4,16,48], %r: T[4,32,48], %h: T[2,8,4,8]) -> (%out0, %out1, %out2, %out3, %out4, %out5, %out6, %out7) {
  buffer %out0 : T[64,48] strides [48,1]
  buffer %out1 : T[4,16,24] strides [384,24,1]
  buffer %out2 : T[4,16,48] strides [768,48,1]
  buffer %out3 : T[4,16,24] strides [384,24,1]
  buffer %out4 : T[64,24] strides [24,1]
  buffer %out5 : T[64,48] strides [48,1]
  buffer %out6 : T[4,16,48] strides [768,48,1]
  buffer %out7 : T[2,4,8,8] strides [256,64,8,1]
  kernel @k0 extern mm(%x, %y) -> (%out0)
  kernel @k1 extern bmm(%p, %q as [4,32,24] strides [768,1,32] offset 0) -> (%out1)
  kernel @k2 extern matmul(%p, %y) -> (%out2)
  kernel @k3 extern linear(%p, %w, %b) -> (%out3)
  kernel @k4 extern linear(%x, %w) -> (%out4)
  kernel @k5 extern addmm(%e, %x, %y) {alpha=2} -> (%out5)
  kernel @k6 extern baddbmm(%s, %p, %r) {alpha=0.5, beta=-1.5} -> (%out6)
  kernel @k7 extern matmul(%h as [2,4,8,8] strides [256,8,32,1] offset 0, %h as [2,4,8,8] strides [256,8,1,32] offset 0) -> (%out7)
}
)";
  for (size_t at = c.loops.find("T["); at != std::string::npos; at = c.loops.find("T[", at))
    c.loops.replace(at, 1, dtype);
  c.source.kernel_text.assign(8, "");
  c.source.launches.resize(8);
  return c;
}

// A kernel that sets the error slot though every index is in range (an emitter's bug): the
// evaluator, run to name the index, finds none, and the error says so.
inline Case false_alarm() {
  Case c = pointwise_add();
  c.name = "false_alarm";
  c.source.kernel_text = {R"(
extern "C" __global__ void k0_alarm(const char* x, const char* y, char* out, int* error) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1000) ((float*)out)[i] = ((const float*)x)[i] + ((const float*)y)[i];
  if (i == 0) *error = 1;
}
)"};
  c.source.launches = {{launch("k0_alarm", 4, 256, {buffer_arg(0), buffer_arg(1), buffer_arg(2), error_arg()})}};
  return c;
}

inline std::vector<Case> all_cases() {
  return {pointwise_add(),  transposed_output(), in_place(),      split_sum(),    cond_with_host_addmm(), count_up(),
          checked_gather(), matmuls("f32"),      matmuls("bf16"), matmuls("f16"), false_alarm()};
}

}  // namespace kiln::cuda_cases
