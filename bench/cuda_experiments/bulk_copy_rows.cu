// Experiment (not part of kiln, not built by CMake): long rows ([8192,50257] bf16) softmax and
// layer_norm by a persistent CTA per SM that double-buffers rows in shared memory with bulk
// asynchronous copies (cp.async.bulk + mbarrier): row r+1 loads while row r is computed from
// shared memory. docs/PERF.md, "Long rows: three hand-written designs". On a GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o bulk_copy_rows bulk_copy_rows.cu && ./bulk_copy_rows [ROWS COLS]
#include <cuda_bf16.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>
#define CK(x)                                                          \
  do {                                                                 \
    cudaError_t e = (x);                                               \
    if (e != cudaSuccess) {                                            \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                         \
    }                                                                  \
  } while (0)

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(~0u, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  return v;
}
template <int BLOCK, bool MAX>
__device__ float block_all(float v, float* slots) {
  v = MAX ? warp_max(v) : warp_sum(v);
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (l == 0) slots[w] = v;
  __syncthreads();
  float r = l < BLOCK / 32 ? slots[l] : (MAX ? -INFINITY : 0.f);
  r = MAX ? warp_max(r) : warp_sum(r);
  __syncthreads();
  return r;
}
__device__ __forceinline__ void unpack(const uint4& v, float f[8]) {
  const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float2 p = __bfloat1622float2(h[i]);
    f[2 * i] = p.x;
    f[2 * i + 1] = p.y;
  }
}
__device__ __forceinline__ uint4 pack(const float f[8]) {
  uint4 v;
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
  return v;
}
__device__ __forceinline__ uint32_t smem_addr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* b) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(b)));
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(b))
      : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, uint32_t phase) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(
                   smem_addr(b)),
               "r"(phase)
               : "memory");
}

// The 16-byte-aligned span holding row `row` (its start rounded down, its end up).
struct Span {
  const char* src;
  uint32_t bytes;
  int lead;
};
__device__ __forceinline__ Span span_of(const __nv_bfloat16* x, int64_t row, int N) {
  const uintptr_t a = (uintptr_t)(x + row * N), e = (uintptr_t)(x + (row + 1) * N);
  const uintptr_t a0 = a & ~uintptr_t(15), e0 = (e + 15) & ~uintptr_t(15);
  return {(const char*)a0, (uint32_t)(e0 - a0), (int)((a - a0) / 2)};
}

template <int MODE, int BLOCK, bool FASTEXP>
__global__ void __launch_bounds__(BLOCK, 1)
    tma_rows(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, const __nv_bfloat16* __restrict__ wt,
             const __nv_bfloat16* __restrict__ bs, int R, int N, int row_bytes) {
  extern __shared__ __align__(128) char smem[];
  __shared__ uint64_t bar[2];
  __shared__ float slots[32];
  char* buf[2] = {smem, smem + row_bytes};
  if (threadIdx.x == 0) {
    mbar_init(&bar[0]);
    mbar_init(&bar[1]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 0; k < 2; ++k) {
      const int64_t r = blockIdx.x + (int64_t)k * gridDim.x;
      if (r < R) {
        Span s = span_of(x, r, N);
        bulk_load(buf[k], s.src, s.bytes, &bar[k]);
      }
    }
  }
  int it = 0;
  for (int64_t row = blockIdx.x; row < R; row += gridDim.x, ++it) {
    const int b = it & 1;
    mbar_wait(&bar[b], (it >> 1) & 1);
    const Span s = span_of(x, row, N);
    const __nv_bfloat16* xs = reinterpret_cast<const __nv_bfloat16*>(buf[b]) + s.lead;  // element k at xs[k]
    __nv_bfloat16* yr = y + row * N;
    const int head = min(N, (8 - s.lead) & 7), groups = (N - head) / 8, tail = N - head - groups * 8;
    const uint4* xg = reinterpret_cast<const uint4*>(xs + head);
    const int t = threadIdx.x;
    int extra_i = -1;
    if (t < head)
      extra_i = t;
    else if (t >= 64 && t < 64 + tail)
      extra_i = head + groups * 8 + (t - 64);
    const float e = extra_i >= 0 ? __bfloat162float(xs[extra_i]) : 0.f;
    auto ex = [](float v) { return FASTEXP ? __expf(v) : expf(v); };
    if constexpr (MODE == 0) {
      float m = extra_i >= 0 ? e : -INFINITY;
      for (int g = t; g < groups; g += BLOCK) {
        float f[8];
        unpack(xg[g], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) m = fmaxf(m, f[j]);
      }
      m = block_all<BLOCK, true>(m, slots);
      float sum = extra_i >= 0 ? ex(e - m) : 0.f;
      for (int g = t; g < groups; g += BLOCK) {
        float f[8];
        unpack(xg[g], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) sum += ex(f[j] - m);
      }
      sum = block_all<BLOCK, false>(sum, slots);
      const float inv = 1.f / sum;
      for (int g = t; g < groups; g += BLOCK) {
        float f[8];
        unpack(xg[g], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) f[j] = ex(f[j] - m) * inv;
        reinterpret_cast<uint4*>(yr + head)[g] = pack(f);
      }
      if (extra_i >= 0) yr[extra_i] = __float2bfloat16(ex(e - m) * inv);
    } else {
      float sum = extra_i >= 0 ? e : 0.f;
      for (int g = t; g < groups; g += BLOCK) {
        float f[8];
        unpack(xg[g], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) sum += f[j];
      }
      const float mean = block_all<BLOCK, false>(sum, slots) / N;
      float q = extra_i >= 0 ? (e - mean) * (e - mean) : 0.f;
      for (int g = t; g < groups; g += BLOCK) {
        float f[8];
        unpack(xg[g], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) q += (f[j] - mean) * (f[j] - mean);
      }
      const float rstd = rsqrtf(block_all<BLOCK, false>(q, slots) / N + 1e-5f);
      const uint4* wg = reinterpret_cast<const uint4*>(wt + head);  // weight rows start aligned (256-byte buffers)
      const uint4* bg = reinterpret_cast<const uint4*>(bs + head);
      const bool wvec = ((uintptr_t)(wt + head) & 15) == 0;
      for (int g = t; g < groups; g += BLOCK) {
        float f[8], w[8], bb[8];
        unpack(xg[g], f);
        if (wvec) {
          unpack(__ldg(&wg[g]), w);
          unpack(__ldg(&bg[g]), bb);
        } else
          for (int j = 0; j < 8; ++j) {
            w[j] = __bfloat162float(wt[head + 8 * g + j]);
            bb[j] = __bfloat162float(bs[head + 8 * g + j]);
          }
#pragma unroll
        for (int j = 0; j < 8; ++j) f[j] = (f[j] - mean) * rstd * w[j] + bb[j];
        reinterpret_cast<uint4*>(yr + head)[g] = pack(f);
      }
      if (extra_i >= 0)
        yr[extra_i] =
            __float2bfloat16((e - mean) * rstd * __bfloat162float(wt[extra_i]) + __bfloat162float(bs[extra_i]));
    }
    __syncthreads();  // every thread is done with buf[b]
    if (threadIdx.x == 0) {
      const int64_t next = row + 2 * (int64_t)gridDim.x;
      if (next < R) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        Span n = span_of(x, next, N);
        bulk_load(buf[b], n.src, n.bytes, &bar[b]);
      }
    }
  }
}

template <int MODE>
__global__ void ref(const __nv_bfloat16* x, float* y, const __nv_bfloat16* wt, const __nv_bfloat16* bs, int N) {
  __shared__ float slots[32];
  const __nv_bfloat16* xr = x + (int64_t)blockIdx.x * N;
  float* yr = y + (int64_t)blockIdx.x * N;
  if (MODE == 0) {
    float m = -INFINITY;
    for (int i = threadIdx.x; i < N; i += 256) m = fmaxf(m, __bfloat162float(xr[i]));
    m = block_all<256, true>(m, slots);
    float s = 0;
    for (int i = threadIdx.x; i < N; i += 256) s += expf(__bfloat162float(xr[i]) - m);
    s = block_all<256, false>(s, slots);
    for (int i = threadIdx.x; i < N; i += 256) yr[i] = expf(__bfloat162float(xr[i]) - m) / s;
  } else {
    float s = 0;
    for (int i = threadIdx.x; i < N; i += 256) s += __bfloat162float(xr[i]);
    float mean = block_all<256, false>(s, slots) / N;
    float q = 0;
    for (int i = threadIdx.x; i < N; i += 256) {
      float d = __bfloat162float(xr[i]) - mean;
      q += d * d;
    }
    float rstd = rsqrtf(block_all<256, false>(q, slots) / N + 1e-5f);
    for (int i = threadIdx.x; i < N; i += 256)
      yr[i] = (__bfloat162float(xr[i]) - mean) * rstd * __bfloat162float(wt[i]) + __bfloat162float(bs[i]);
  }
}
__global__ void fill(__nv_bfloat16* p, int64_t n, uint32_t seed, float scale, float offset) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    p[i] = __float2bfloat16(offset + scale * ((h & 0xffffff) / 16777216.f - 0.5f));
  }
}
template <class F>
float time_ms(F f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int r = 0; r < 20; ++r) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
int R = 8192, N = 50257, SMS = 132;
__nv_bfloat16 *X, *Y, *W, *B;
float* REF;
float copy_ms;

template <int MODE, int BLOCK, bool FAST>
void run(const char* name, int grid_mul) {
  const int64_t n = (int64_t)R * N;
  const int row_bytes = ((N * 2 + 15) / 16 + 1) * 16;
  auto k = tma_rows<MODE, BLOCK, FAST>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * row_bytes));
  const int grid = std::min<int64_t>(R, (int64_t)SMS * grid_mul);
  auto launch = [&] { k<<<grid, BLOCK, 2 * row_bytes>>>(X, Y, W, B, R, N, row_bytes); };
  CK(cudaMemset(Y, 0, n * 2));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  ref<MODE><<<R, 256>>>(X, REF, W, B, N);
  CK(cudaDeviceSynchronize());
  double worst = 0, scale = 0;
  for (int64_t part : {(int64_t)0, n - std::min<int64_t>(n, (int64_t)N * 64)}) {
    const int64_t m = std::min<int64_t>(n, (int64_t)N * 64);
    std::vector<__nv_bfloat16> y(m);
    std::vector<float> r(m);
    CK(cudaMemcpy(y.data(), Y + part, m * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r.data(), REF + part, m * 4, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < m; ++i) {
      worst = std::max(worst, (double)fabsf(__bfloat162float(y[i]) - r[i]));
      scale = std::max(scale, (double)fabsf(r[i]));
    }
  }
  const float ms = time_ms(launch);
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  printf("%-34s %8.3f ms  %5.1f%% of copy  regs %3d  local %4zu B  err %.2e (scale %.2e)\n", name, ms,
         100 * copy_ms / ms, fa.numRegs, fa.localSizeBytes, worst, scale);
}
int main(int argc, char** argv) {
  if (argc > 2) {
    R = atoi(argv[1]);
    N = atoi(argv[2]);
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  SMS = p.multiProcessorCount;
  const int64_t n = (int64_t)R * N;
  CK(cudaMalloc(&X, n * 2 + 256));
  CK(cudaMalloc(&Y, n * 2 + 256));
  CK(cudaMalloc(&REF, n * 4));
  CK(cudaMalloc(&W, N * 2 + 256));
  CK(cudaMalloc(&B, N * 2 + 256));
  fill<<<1024, 256>>>(X, n, 1, 8.f, 0.f);
  fill<<<64, 256>>>(W, N, 2, 1.f, 1.f);
  fill<<<64, 256>>>(B, N, 3, 1.f, 0.f);
  CK(cudaDeviceSynchronize());
  copy_ms = time_ms([&] { CK(cudaMemcpyAsync(Y, X, n * 2, cudaMemcpyDeviceToDevice)); });
  printf("%s: rows %d x %d bf16: copy %.3f ms (%.0f GB/s)\n", p.name, R, N, copy_ms, 2.0 * n * 2 / copy_ms / 1e6);
  run<0, 1024, true>("softmax tma 1024 fastexp", 1);
  run<0, 512, true>("softmax tma 512 fastexp", 1);
  run<0, 1024, false>("softmax tma 1024 expf", 1);
  run<1, 1024, true>("layer_norm tma 1024", 1);
  run<1, 512, true>("layer_norm tma 512", 1);
  return 0;
}
