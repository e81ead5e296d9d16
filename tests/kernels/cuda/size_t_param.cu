// A size_t parameter that is part of the store address: out[n - 1 - i] = in[i]. In the PTX
// `n` is a `.u64` like the pointers; only the CUDA signature says it is not one.
extern "C" __global__ void reverse_copy(float* out, size_t n, const float* in) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[n - 1 - i] = in[i];
}
