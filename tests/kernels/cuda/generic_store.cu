// A __noinline__ helper called with a shared-memory pointer and with a global pointer: the
// helper stores through a generic address (`st.f32`, no state space), and the analysis follows
// each call's argument. The shared array is not a parameter; only `out` is written.
__device__ __noinline__ void put(float* p, float v) { *p = v; }

extern "C" __global__ void generic_store(const float* x, float* out, int n) {
  __shared__ float tile[128];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  put(&tile[t % 128], i < n ? x[i] : 0.f);
  __syncthreads();
  if (i < n) put(out + i, tile[(t + 1) % 128]);
}
