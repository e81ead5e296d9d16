// Atomics whose results are used: atomicAdd on float, atomicMax on int, atomicCAS and
// atomicExch. Each writes its own pointer; `x` is only read; `ticket` receives results.
extern "C" __global__ void atomics_kernel(const float* x, float* sum, int* max_bits, int* lock,
                                          unsigned* flags, int* ticket, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float old = atomicAdd(sum, x[i]);
  int prev = atomicMax(max_bits, __float_as_int(x[i]));
  int got = atomicCAS(lock, 0, i);
  unsigned was = atomicExch(flags + (i & 7), 1u);
  ticket[i] = (int)old + prev + got + (int)was;
}
