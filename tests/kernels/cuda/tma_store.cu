// Hopper bulk stores from shared memory, written as inline PTX: a TMA tensor store through the
// tensor map `out_map` (a __grid_constant__ parameter: the store writes the tensor it
// describes) and a plain bulk copy to `dst`. `x` is only read. The tensor map type is declared
// here as cuda.h declares CUtensorMap (128 opaque bytes), so NVRTC compiles it without cuda.h.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};

extern "C" __global__ void tma_store(const __grid_constant__ TensorMap out_map, float* dst,
                                     const float* x) {
  __shared__ alignas(128) float tile[64];
  int t = threadIdx.x;
  if (t < 64) tile[t] = x[blockIdx.x * 64 + t];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    unsigned smem = (unsigned)__cvta_generic_to_shared(tile);
    int c0 = blockIdx.x * 64;
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
                 ::"l"(&out_map), "r"(c0), "r"(smem) : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;"
                 ::"l"(dst + c0), "r"(smem) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
