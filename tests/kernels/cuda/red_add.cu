// A histogram with three kinds of reductions, none of whose results is used:
// - atomicAdd on `bins`: nvcc 13 emits `atom.global.add` with a dead result (older nvcc emitted
//   `red.global.add`; ptxas still turns it into a RED),
// - __nv_atomic_add on `dropped`: a generic-address `atom.add.relaxed.gpu`,
// - inline PTX `red.global.add.u32` on `total`.
// `values` is only read.
extern "C" __global__ void histogram(const int* values, unsigned* bins, unsigned* total,
                                     int* dropped, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = values[i];
  if (v >= 0 && v < nbins) atomicAdd(&bins[v], 1u);
  else __nv_atomic_add(dropped, 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  asm volatile("red.global.add.u32 [%0], 1;" ::"l"(total) : "memory");
}
