// A store written as inline PTX: the analysis reads it like any other store.
extern "C" __global__ void inline_asm_store(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] + 1.f;
    asm volatile("st.global.f32 [%0], %1;" ::"l"(out + i), "f"(v) : "memory");
  }
}
