// A scatter through loaded 64-bit indices: the loaded value is scaled by the element size
// (shl) before it is added to `out`, so it is an offset: only `out` is written.
extern "C" __global__ void scatter_i64(const float* x, const long long* idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[idx[i]] = x[i];
}
