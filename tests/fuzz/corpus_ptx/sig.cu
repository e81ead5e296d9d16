namespace ops {
template <typename T>
__global__ void __launch_bounds__(256) fill(T* __restrict__ out, const T* value, int n) {}
template __global__ void fill<float>(float*, const float*, int);
}
extern "C" { __global__ void k(float* out, size_t n, const float x[]) {} }
