// Ping-pong buffers: the pointers are swapped every iteration of a loop and a third pointer
// is advanced through it, so both `a` and `b` are written and `src` is only read.
extern "C" __global__ void pointer_swap(float* a, float* b, const float* src, int steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float* cur = a;
  float* nxt = b;
  const float* s = src;
  for (int t = 0; t < steps; ++t) {
    nxt[i] = cur[i] * 0.5f + s[i];
    float* tmp = cur;
    cur = nxt;
    nxt = tmp;
    s += n;
  }
}
