// A __noinline__ device helper that stores: the kernel's store happens in a `.func` reached
// by `call.uni`. It is called twice, with `out` and with `aux`; `x` is only read.
__device__ __noinline__ void store_scaled(float* p, int i, float v) { p[i] = 2.f * v; }

extern "C" __global__ void device_helper(const float* x, float* out, float* aux, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store_scaled(out, i, x[i]);
  if (x[i] < 0.f) store_scaled(aux, i, -x[i]);
}
