// A scatter through loaded 32-bit indices: out[idx[i]] = x[i]. The loaded index is an
// offset, not a pointer: only `out` is written.
extern "C" __global__ void scatter_i32(const float* x, const int* idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[idx[i]] = x[i];
}
