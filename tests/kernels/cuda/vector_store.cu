// Vector loads and stores (float4): `st.global.v4.f32` to `out`.
extern "C" __global__ void vector_store(const float4* x, float4* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    out[i] = make_float4(v.w, v.z, v.y, v.x);
  }
}
