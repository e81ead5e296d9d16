// Experiment (not part of kiln, not built by CMake): long rows ([8192,50257] bf16) softmax and
// layer_norm with the row held in registers, one CTA per row or a cluster of CTAs per row
// (partials through distributed shared memory): as bf16 (exp computed twice, accurate expf) or as
// f32 (exp once, __expf). docs/PERF.md, "Long rows: three hand-written designs". On a GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o held_rows held_rows.cu && ./held_rows [ROWS COLS]
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;
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

// Block-wide (and cluster-wide when C > 1) reduction; slots: __shared__ float[33].
template <int BLOCK, int C, bool MAX>
__device__ float reduce_all(float v, float* slots) {
  v = MAX ? warp_max(v) : warp_sum(v);
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (l == 0) slots[w] = v;
  __syncthreads();
  if (w == 0) {
    float r = l < BLOCK / 32 ? slots[l] : (MAX ? -INFINITY : 0.f);
    r = MAX ? warp_max(r) : warp_sum(r);
    if (l == 0) slots[32] = r;
  }
  if constexpr (C == 1) {
    __syncthreads();
    float r = slots[32];
    __syncthreads();
    return r;
  } else {
    cg::cluster_group cl = cg::this_cluster();
    cl.sync();
    float r = MAX ? -INFINITY : 0.f;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      float p = *cl.map_shared_rank(&slots[32], c);
      r = MAX ? fmaxf(r, p) : r + p;
    }
    cl.sync();
    return r;
  }
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

// MODE 0: softmax; MODE 1: layer_norm with weight and bias (eps 1e-5).
template <int MODE, int BLOCK, int C, int G, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    held(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, const __nv_bfloat16* __restrict__ wt,
         const __nv_bfloat16* __restrict__ bs, int N) {
  __shared__ float slots[33];
  const int rank = C == 1 ? 0 : (int)cg::this_cluster().block_rank();
  const int64_t row = blockIdx.x / C;
  const __nv_bfloat16* xr = x + row * N;
  __nv_bfloat16* yr = y + row * N;
  const int head = min(N, (int)(((16 - ((uintptr_t)xr & 15)) & 15) / 2));
  const int groups = (N - head) / 8, tail = N - head - groups * 8;
  const int me = rank * BLOCK + threadIdx.x;
  constexpr int T = BLOCK * C;
  uint4 v[G];
#pragma unroll
  for (int i = 0; i < G; ++i) {
    const int g = me + i * T;
    if (g < groups) v[i] = reinterpret_cast<const uint4*>(xr + head)[g];
  }
  int extra_i = -1;
  if (me < head)
    extra_i = me;
  else if (me >= 64 && me < 64 + tail)
    extra_i = head + groups * 8 + (me - 64);
  const float e = extra_i >= 0 ? __bfloat162float(xr[extra_i]) : 0.f;
  if constexpr (MODE == 0) {
    float m = extra_i >= 0 ? e : -INFINITY;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
        float f[8];
        unpack(v[i], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) m = fmaxf(m, f[j]);
      }
    m = reduce_all<BLOCK, C, true>(m, slots);
    float s = extra_i >= 0 ? expf(e - m) : 0.f;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
        float f[8];
        unpack(v[i], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) s += expf(f[j] - m);
      }
    s = reduce_all<BLOCK, C, false>(s, slots);
    const float inv = 1.f / s;
#pragma unroll
    for (int i = 0; i < G; ++i) {
      const int g = me + i * T;
      if (g < groups) {
        float f[8];
        unpack(v[i], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) f[j] = expf(f[j] - m) * inv;
        reinterpret_cast<uint4*>(yr + head)[g] = pack(f);
      }
    }
    if (extra_i >= 0) yr[extra_i] = __float2bfloat16(expf(e - m) * inv);
  } else {
    float s = extra_i >= 0 ? e : 0.f;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
        float f[8];
        unpack(v[i], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) s += f[j];
      }
    const float mean = reduce_all<BLOCK, C, false>(s, slots) / N;
    float q = extra_i >= 0 ? (e - mean) * (e - mean) : 0.f;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
        float f[8];
        unpack(v[i], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) q += (f[j] - mean) * (f[j] - mean);
      }
    const float rstd = rsqrtf(reduce_all<BLOCK, C, false>(q, slots) / N + 1e-5f);
    // weight/bias: element k of the row at wt[k]; the row's group g covers k = head + 8g ...
#pragma unroll
    for (int i = 0; i < G; ++i) {
      const int g = me + i * T;
      if (g < groups) {
        float f[8];
        unpack(v[i], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int k = head + g * 8 + j;
          f[j] = (f[j] - mean) * rstd * __bfloat162float(wt[k]) + __bfloat162float(bs[k]);
        }
        reinterpret_cast<uint4*>(yr + head)[g] = pack(f);
      }
    }
    if (extra_i >= 0)
      yr[extra_i] = __float2bfloat16((e - mean) * rstd * __bfloat162float(wt[extra_i]) + __bfloat162float(bs[extra_i]));
  }
}

template <int MODE, int BLOCK, int C, int G, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    heldf(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int N) {
  __shared__ float slots[33];
  const int rank = C == 1 ? 0 : (int)cg::this_cluster().block_rank();
  const int64_t row = blockIdx.x / C;
  const __nv_bfloat16* xr = x + row * N;
  __nv_bfloat16* yr = y + row * N;
  const int head = min(N, (int)(((16 - ((uintptr_t)xr & 15)) & 15) / 2));
  const int groups = (N - head) / 8, tail = N - head - groups * 8;
  const int me = rank * BLOCK + threadIdx.x;
  constexpr int T = BLOCK * C;
  float f[G][8];
#pragma unroll
  for (int i = 0; i < G; ++i) {
    const int g = me + i * T;
    if (g < groups) unpack(reinterpret_cast<const uint4*>(xr + head)[g], f[i]);
  }
  int extra_i = -1;
  if (me < head)
    extra_i = me;
  else if (me >= 64 && me < 64 + tail)
    extra_i = head + groups * 8 + (me - 64);
  float e = extra_i >= 0 ? __bfloat162float(xr[extra_i]) : 0.f;
  if constexpr (MODE == 0) {
    float m = extra_i >= 0 ? e : -INFINITY;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
#pragma unroll
        for (int j = 0; j < 8; ++j) m = fmaxf(m, f[i][j]);
      }
    m = reduce_all<BLOCK, C, true>(m, slots);
    e = extra_i >= 0 ? __expf(e - m) : 0.f;
    float s = e;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          f[i][j] = __expf(f[i][j] - m);
          s += f[i][j];
        }
      }
    s = reduce_all<BLOCK, C, false>(s, slots);
    const float inv = 1.f / s;
#pragma unroll
    for (int i = 0; i < G; ++i) {
      const int g = me + i * T;
      if (g < groups) {
#pragma unroll
        for (int j = 0; j < 8; ++j) f[i][j] *= inv;
        reinterpret_cast<uint4*>(yr + head)[g] = pack(f[i]);
      }
    }
    if (extra_i >= 0) yr[extra_i] = __float2bfloat16(e * inv);
  } else {
    float s = extra_i >= 0 ? e : 0.f;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
#pragma unroll
        for (int j = 0; j < 8; ++j) s += f[i][j];
      }
    const float mean = reduce_all<BLOCK, C, false>(s, slots) / N;
    float q = extra_i >= 0 ? (e - mean) * (e - mean) : 0.f;
#pragma unroll
    for (int i = 0; i < G; ++i)
      if (me + i * T < groups) {
#pragma unroll
        for (int j = 0; j < 8; ++j) q += (f[i][j] - mean) * (f[i][j] - mean);
      }
    const float rstd = rsqrtf(reduce_all<BLOCK, C, false>(q, slots) / N + 1e-5f);
#pragma unroll
    for (int i = 0; i < G; ++i) {
      const int g = me + i * T;
      if (g < groups) {
#pragma unroll
        for (int j = 0; j < 8; ++j) f[i][j] = (f[i][j] - mean) * rstd;
        reinterpret_cast<uint4*>(yr + head)[g] = pack(f[i]);
      }
    }
    if (extra_i >= 0) yr[extra_i] = __float2bfloat16((e - mean) * rstd);
  }
}

// Reference: one block per row, plain loops, float.
template <int MODE>
__global__ void ref(const __nv_bfloat16* x, float* y, const __nv_bfloat16* wt, const __nv_bfloat16* bs, int N) {
  __shared__ float slots[33];
  const __nv_bfloat16* xr = x + (int64_t)blockIdx.x * N;
  float* yr = y + (int64_t)blockIdx.x * N;
  if (MODE == 0) {
    float m = -INFINITY;
    for (int i = threadIdx.x; i < N; i += 256) m = fmaxf(m, __bfloat162float(xr[i]));
    m = reduce_all<256, 1, true>(m, slots);
    float s = 0;
    for (int i = threadIdx.x; i < N; i += 256) s += expf(__bfloat162float(xr[i]) - m);
    s = reduce_all<256, 1, false>(s, slots);
    for (int i = threadIdx.x; i < N; i += 256) yr[i] = expf(__bfloat162float(xr[i]) - m) / s;
  } else {
    float s = 0;
    for (int i = threadIdx.x; i < N; i += 256) s += __bfloat162float(xr[i]);
    float mean = reduce_all<256, 1, false>(s, slots) / N;
    float q = 0;
    for (int i = threadIdx.x; i < N; i += 256) {
      float d = __bfloat162float(xr[i]) - mean;
      q += d * d;
    }
    float rstd = rsqrtf(reduce_all<256, 1, false>(q, slots) / N + 1e-5f);
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

int R = 8192, N = 50257;
__nv_bfloat16 *X, *Y, *W, *B, *ONES, *ZEROS;
float* REF;
float copy_ms;

template <int MODE, int BLOCK, int C, int G, int MINB = 1024 / BLOCK>
void run(const char* name) {
  const int64_t n = (int64_t)R * N;
  auto launch = [&] {
    if constexpr (C == 1)
      held<MODE, BLOCK, C, G, MINB><<<R * C, BLOCK>>>(X, Y, W, B, N);
    else {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(R * C);
      cfg.blockDim = dim3(BLOCK);
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = C;
      at[0].val.clusterDim.y = 1;
      at[0].val.clusterDim.z = 1;
      cfg.attrs = at;
      cfg.numAttrs = 1;
      CK(cudaLaunchKernelEx(&cfg, held<MODE, BLOCK, C, G, MINB>, (const __nv_bfloat16*)X, Y, (const __nv_bfloat16*)W,
                            (const __nv_bfloat16*)B, N));
    }
  };
  CK(cudaMemset(Y, 0, n * 2));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  ref<MODE><<<R, 256>>>(X, REF, W, B, N);
  CK(cudaDeviceSynchronize());
  const int64_t m = std::min<int64_t>(n, (int64_t)N * 96);
  std::vector<__nv_bfloat16> y(m);
  std::vector<float> r(m);
  CK(cudaMemcpy(y.data(), Y + (n - m), m * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.data(), REF + (n - m), m * 4, cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < m; ++i) {
    worst = std::max(worst, (double)fabsf(__bfloat162float(y[i]) - r[i]));
    scale = std::max(scale, (double)fabsf(r[i]));
  }
  const float ms = time_ms(launch);
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, held<MODE, BLOCK, C, G, MINB>));
  printf("%-28s %8.3f ms  %5.1f%% of copy  regs %3d  local %4zu B  err %.2e (scale %.2e)\n", name, ms,
         100 * copy_ms / ms, fa.numRegs, fa.localSizeBytes, worst, scale);
}

template <int MODE, int BLOCK, int C, int G, int MINB>
void runf(const char* name) {
  const int64_t n = (int64_t)R * N;
  auto kern = heldf<MODE, BLOCK, C, G, MINB>;
  if (C > 8) CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  auto launch = [&] {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(R * C);
    cfg.blockDim = dim3(BLOCK);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = C;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, kern, (const __nv_bfloat16*)X, Y, N));
  };
  CK(cudaMemset(Y, 0, n * 2));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  ref<MODE == 0 ? 0 : 1><<<R, 256>>>(X, REF, ONES, ZEROS, N);
  CK(cudaDeviceSynchronize());
  const int64_t m = std::min<int64_t>(n, (int64_t)N * 96);
  std::vector<__nv_bfloat16> yv(m);
  std::vector<float> rv(m);
  CK(cudaMemcpy(yv.data(), Y + (n - m), m * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(rv.data(), REF + (n - m), m * 4, cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < m; ++i) {
    worst = std::max(worst, (double)fabsf(__bfloat162float(yv[i]) - rv[i]));
    scale = std::max(scale, (double)fabsf(rv[i]));
  }
  const float ms = time_ms(launch);
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, kern));
  printf("%-34s %8.3f ms  %5.1f%% of copy  regs %3d  local %4zu B  err %.2e (scale %.2e)\n", name, ms,
         100 * copy_ms / ms, fa.numRegs, fa.localSizeBytes, worst, scale);
}

int main(int argc, char** argv) {
  if (argc > 2) {
    R = atoi(argv[1]);
    N = atoi(argv[2]);
  }
  const int64_t n = (int64_t)R * N;
  CK(cudaMalloc(&X, n * 2));
  CK(cudaMalloc(&Y, n * 2));
  CK(cudaMalloc(&REF, n * 4));
  CK(cudaMalloc(&W, N * 2));
  CK(cudaMalloc(&B, N * 2));
  fill<<<1024, 256>>>(X, n, 1, 8.f, 0.f);
  fill<<<64, 256>>>(W, N, 2, 1.f, 1.f);
  fill<<<64, 256>>>(B, N, 3, 1.f, 0.f);
  CK(cudaMalloc(&ONES, N * 2));
  CK(cudaMalloc(&ZEROS, N * 2));
  fill<<<64, 256>>>(ONES, N, 5, 0.f, 1.f);
  fill<<<64, 256>>>(ZEROS, N, 6, 0.f, 0.f);
  CK(cudaDeviceSynchronize());
  copy_ms = time_ms([&] { CK(cudaMemcpyAsync(Y, X, n * 2, cudaMemcpyDeviceToDevice)); });
  printf("rows %d x %d bf16: copy %.3f ms (%.0f GB/s)\n", R, N, copy_ms, 2.0 * n * 2 / copy_ms / 1e6);
  run<0, 1024, 1, 7, 1>("softmax bf16 held 1x1024 G7 min1");
  run<0, 512, 2, 7, 2>("softmax bf16 held 2x512 G7 min2");
  run<0, 256, 4, 7, 4>("softmax bf16 held 4x256 G7 min4");
  run<0, 128, 8, 7, 8>("softmax bf16 held 8x128 G7 min8");
  run<0, 1024, 2, 4, 2>("softmax bf16 held 2x1024 G4 min2");
  run<0, 512, 4, 4, 4>("softmax bf16 held 4x512 G4 min4");
  run<0, 256, 8, 4, 8>("softmax bf16 held 8x256 G4 min8");
  run<1, 1024, 1, 7, 1>("layer_norm bf16 held 1x1024 G7 min1");
  run<1, 512, 2, 7, 2>("layer_norm bf16 held 2x512 G7 min2");
  run<1, 256, 4, 7, 4>("layer_norm bf16 held 4x256 G7 min4");
  run<1, 128, 8, 7, 8>("layer_norm bf16 held 8x128 G7 min8");
  run<1, 1024, 2, 4, 2>("layer_norm bf16 held 2x1024 G4 min2");
  run<1, 512, 4, 4, 4>("layer_norm bf16 held 4x512 G4 min4");
  run<1, 256, 8, 4, 8>("layer_norm bf16 held 8x256 G4 min8");
  runf<0, 256, 4, 7, 2>("softmax f32 held 4x256 G7 min2");
  runf<0, 128, 8, 7, 4>("softmax f32 held 8x128 G7 min4");
  runf<0, 256, 8, 4, 4>("softmax f32 held 8x256 G4 min4");
  runf<0, 512, 4, 4, 2>("softmax f32 held 4x512 G4 min2");
  runf<0, 128, 16, 4, 8>("softmax f32 held 16x128 G4 min8");
  runf<2, 256, 4, 7, 2>("norm(no affine) f32 held 4x256 G7 min2");
  runf<2, 128, 8, 7, 4>("norm(no affine) f32 held 8x128 G7 min4");
  runf<2, 256, 8, 4, 4>("norm(no affine) f32 held 8x256 G4 min4");
  runf<2, 512, 4, 4, 2>("norm(no affine) f32 held 4x512 G4 min2");
  runf<2, 128, 16, 4, 8>("norm(no affine) f32 held 16x128 G4 min8");
  return 0;
}
