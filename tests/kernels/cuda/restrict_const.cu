// A __restrict__/const mix: `c` is non-const but only read, `b` is written; `a` is read through
// the read-only cache (ld.global.nc).
__global__ void restrict_const(const float* __restrict__ a, float* __restrict__ b,
                               float* c, const float* const d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * c[i] + d[i];
}
