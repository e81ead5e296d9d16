// An in-place update through one pointer (C++ linkage: the PTX name is mangled).
__global__ void scale_inplace(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * s;
}
