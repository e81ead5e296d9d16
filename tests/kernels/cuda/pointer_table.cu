// A table of output pointers: each thread stores through a pointer loaded from `ptrs`. The
// written memory is not any parameter's: the analysis cannot name it and reports every
// pointer parameter written.
extern "C" __global__ void pointer_table(float** ptrs, const float* x, int nptrs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ptrs[i % nptrs][i] = x[i];
}
