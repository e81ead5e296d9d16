// Pointers inside a struct passed by value: the PTX parameter is a byte array, and the
// kernel stores through a pointer read from it, so the struct parameter `args` is written.
struct Args {
  const float* in;
  float* out;
  int n;
};

extern "C" __global__ void struct_param(Args args, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args.n) args.out[i] = scale * args.in[i];
}
