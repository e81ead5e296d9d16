// A function template in a namespace, instantiated for float: the PTX name is mangled with the
// namespace and template arguments (_ZN3ops4fill...). Only `out` is written.
namespace ops {
template <typename T>
__global__ void fill(T* out, const T* value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = *value;
}
template __global__ void fill<float>(float*, const float*, int);
}  // namespace ops
