// Stores inside a for loop, a while loop and both arms of an if: `rows` and `lo`/`hi` are
// written, `x` is only read.
extern "C" __global__ void loops_branches(const float* x, float* rows, float* lo, float* hi,
                                          int ncols, int nrows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  float acc = 0.f;
  for (int c = 0; c < ncols; ++c) {
    acc += x[r * ncols + c];
    rows[r * ncols + c] = acc;
  }
  int k = r;
  while (k > 0 && x[k] > acc) {
    k /= 2;
    if (x[k] < 0.f) lo[k] = x[k];
    else hi[k] = x[k];
  }
}
