// The corpus's answers against a GPU (not part of the build; README.md says how to run it):
// loads each NAME.ptx here with the CUDA driver API, launches its kernel on patterned buffers,
// and compares the parameters whose memory changed with NAME.expected: a kernel that writes
// memory its .expected does not list is a failure (the analysis's answer would be unsound);
// an .expected without a `# conservative:` line must be exactly what changed. Memory reached
// through a struct parameter's fields counts as the struct's; memory reached only through a
// pointer loaded from memory prints in parentheses.
#include <cuda.h>

#include <algorithm>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                        \
  do {                                                               \
    CUresult r_ = (x);                                               \
    if (r_ != CUDA_SUCCESS) {                                        \
      const char* s_;                                                \
      cuGetErrorString(r_, &s_);                                     \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); \
      exit(1);                                                       \
    }                                                                \
  } while (0)

constexpr size_t kBytes = 1 << 16;

struct Buf {
  std::string name;
  CUdeviceptr d = 0;
  std::vector<unsigned char> before;
};

struct Launch {
  std::vector<Buf> bufs;                   // named buffers whose changes are reported
  std::vector<std::vector<char>> scalars;  // storage for by-value params
  std::vector<void*> params;
  unsigned grid = 1, block = 256;

  Buf& buf(const std::string& name, std::function<void(std::vector<unsigned char>&)> fill = nullptr) {
    Buf b{name, 0, {}};
    CK(cuMemAlloc(&b.d, kBytes));
    b.before.assign(kBytes, 0);
    if (fill) {
      fill(b.before);
    } else {
      float* f = reinterpret_cast<float*>(b.before.data());
      for (size_t i = 0; i < kBytes / 4; ++i) f[i] = 1.0f + (i % 13) * 0.25f - (i % 3 == 0 ? 5.f : 0.f);
    }
    CK(cuMemcpyHtoD(b.d, b.before.data(), kBytes));
    bufs.push_back(b);
    return bufs.back();
  }
  template <typename T>
  void value(const T& v) {
    scalars.emplace_back(sizeof(T));
    std::memcpy(scalars.back().data(), &v, sizeof(T));
  }
  void ptr(const std::string& name, std::function<void(std::vector<unsigned char>&)> fill = nullptr) {
    value(buf(name, fill).d);
  }
};

template <typename T>
std::function<void(std::vector<unsigned char>&)> fill_with(std::function<T(size_t)> f) {
  return [f](std::vector<unsigned char>& b) {
    T* p = reinterpret_cast<T*>(b.data());
    for (size_t i = 0; i < b.size() / sizeof(T); ++i) p[i] = f(i);
  };
}

std::string read_file(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int failures = 0;

// Names in NAME.expected, and whether it is marked conservative.
std::pair<std::vector<std::string>, bool> read_expected(const std::string& path) {
  std::istringstream in(read_file(path));
  std::vector<std::string> names;
  bool conservative = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# conservative:", 0) == 0) conservative = true;
    if (!line.empty() && line[0] != '#') names.push_back(line);
  }
  return {names, conservative};
}

void compare(const std::string& dir, const std::string& file, const std::vector<std::string>& changed) {
  auto [expected, conservative] = read_expected(dir + "/" + file + ".expected");
  std::vector<std::string> params;  // parameters whose memory changed, in order, once each
  bool unnamed = false;             // memory no parameter names changed
  for (const std::string& c : changed) {
    if (c[0] == '(')
      unnamed = true;
    else if (std::find(params.begin(), params.end(), c) == params.end())
      params.push_back(c);
  }
  bool ok = std::all_of(params.begin(), params.end(), [&](const std::string& p) {
    return std::find(expected.begin(), expected.end(), p) != expected.end();
  });
  if (!conservative) ok = ok && params == expected && !unnamed;
  printf("  %s\n", ok ? "ok" : "MISMATCH with .expected");
  failures += ok ? 0 : 1;
}

void run(const std::string& dir, const std::string& file, const std::string& entry, Launch& l) {
  std::string ptx = read_file(dir + "/" + file + ".ptx");
  CUmodule mod;
  CK(cuModuleLoadData(&mod, ptx.c_str()));
  CUfunction fn;
  CK(cuModuleGetFunction(&fn, mod, entry.c_str()));
  for (auto& s : l.scalars) l.params.push_back(s.data());
  CK(cuLaunchKernel(fn, l.grid, 1, 1, l.block, 1, 1, 0, 0, l.params.data(), nullptr));
  CK(cuCtxSynchronize());
  printf("%-20s written:", file.c_str());
  std::vector<unsigned char> after(kBytes);
  std::vector<std::string> changed;
  for (Buf& b : l.bufs) {
    CK(cuMemcpyDtoH(after.data(), b.d, kBytes));
    if (after != b.before) {
      changed.push_back(b.name);
      printf(" %s", b.name.c_str());
    }
    cuMemFree(b.d);
  }
  compare(dir, file, changed);
  cuModuleUnload(mod);
}

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "tests/kernels/cuda";
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  auto idx32 = fill_with<int>([](size_t i) { return int((i * 7) % 256); });
  auto idx64 = fill_with<long long>([](size_t i) { return (long long)((i * 7) % 256); });
  auto zeros = fill_with<int>([](size_t) { return 0; });
  const int n = 256;
  // One launch per corpus kernel: its arguments in parameter order, then the kernel.
  {
    Launch l;
    l.ptr("a");
    l.ptr("b");
    l.ptr("out");
    l.value(n);
    run(dir, "store_plain", "add_kernel", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.value(2.0f);
    l.value(n);
    run(dir, "inplace_scale", "_Z13scale_inplacePffi", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.ptr("sum");
    l.ptr("max_bits", zeros);
    l.ptr("lock", zeros);
    l.ptr("flags", zeros);
    l.ptr("ticket");
    l.value(n);
    run(dir, "atomics", "atomics_kernel", l);
  }
  {
    Launch l;
    l.ptr("values", fill_with<int>([](size_t i) { return int(i % 64) - 8; }));
    l.ptr("bins", zeros);
    l.ptr("total", zeros);
    l.ptr("dropped", zeros);
    l.value(32);
    l.value(n);
    run(dir, "red_add", "histogram", l);
  }
  {
    Launch l;
    l.ptr("x", fill_with<float>([](size_t i) { return i % 4 == 0 ? -1000.f : 10.f; }));
    l.ptr("rows");
    l.ptr("lo");
    l.ptr("hi");
    l.value(4);
    l.value(n);
    run(dir, "loops_branches", "loops_branches", l);
  }
  {
    Launch l;
    l.ptr("a");
    l.ptr("b");
    l.ptr("src");
    l.value(3);
    l.value(n);
    run(dir, "pointer_swap", "pointer_swap", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.ptr("idx", idx32);
    l.ptr("out");
    l.value(n);
    run(dir, "scatter_i32", "scatter_i32", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.ptr("idx", idx64);
    l.ptr("out");
    l.value(n);
    run(dir, "scatter_i64", "scatter_i64", l);
  }
  {
    Launch l;
    std::vector<CUdeviceptr> t;
    for (int k = 0; k < 4; ++k) t.push_back(l.buf("(ptrs[" + std::to_string(k) + "])", zeros).d);
    l.ptr("ptrs", [t](std::vector<unsigned char>& b) { std::memcpy(b.data(), t.data(), t.size() * 8); });
    l.ptr("x");
    l.value(4);
    l.value(n);
    run(dir, "pointer_table", "pointer_table", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.ptr("out");
    l.ptr("aux");
    l.value(n);
    run(dir, "device_helper", "device_helper", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.ptr("out");
    l.value(n);
    run(dir, "vector_store", "vector_store", l);
  }
  {
    Launch l;
    l.value(4 * n);
    l.value(2.f);
    l.ptr("x");
    l.ptr("y");
    run(dir, "grid_stride", "_Z17saxpy_grid_strideifPKfPf", l);
  }
  {
    Launch l;
    l.ptr("out");
    l.value((unsigned long long)n);
    l.ptr("in");
    run(dir, "size_t_param", "reverse_copy", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.ptr("out");
    l.value(n);
    run(dir, "inline_asm_store", "inline_asm_store", l);
  }
  {
    Launch l;
    l.ptr("in");
    l.ptr("out");
    l.value(n);
    run(dir, "shared_staging", "shared_staging", l);
  }
  {
    Launch l;
    l.ptr("a");
    l.ptr("b");
    l.ptr("c");
    l.ptr("d");
    l.value(n);
    run(dir, "restrict_const", "_Z14restrict_constPKfPfS1_S0_i", l);
  }
  {
    Launch l;
    CUdeviceptr in = l.buf("args").d, out = l.buf("args").d;  // the struct's pointers
    struct {
      CUdeviceptr in, out;
      int n;
    } args{in, out, n};
    l.value(args);
    l.value(3.f);
    run(dir, "struct_param", "struct_param", l);
  }
  {
    Launch l;
    l.ptr("out");
    l.ptr("value");
    l.value(n);
    run(dir, "namespaced_template", "_ZN3ops4fillIfEEvPT_PKS1_i", l);
  }
  {
    Launch l;
    l.ptr("x");
    l.ptr("out");
    l.value(n);
    l.block = 128;
    l.grid = 2;
    run(dir, "generic_store", "generic_store", l);
  }
  {
    Launch l;
    CUdeviceptr target = l.buf("out_map").d;
    CUtensorMap map;
    cuuint64_t dims[1] = {4096}, gstrides[1] = {4096 * 4};
    cuuint32_t box[1] = {64}, strides[1] = {1};
    CUresult er =
        cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, reinterpret_cast<void*>(target), dims,
                               gstrides, box, strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (er != CUDA_SUCCESS) {
      printf("tma_store: cuTensorMapEncodeTiled failed (%d)\n", int(er));
      return 1;
    }
    // x differs from the pattern of the other buffers, so the copies change what they write.
    l.value(map);
    l.ptr("dst");
    l.ptr("x", fill_with<float>([](size_t) { return -7.5f; }));
    l.grid = 4;
    l.block = 64;
    run(dir, "tma_store", "tma_store", l);
  }
  printf("%s\n", failures ? "FAILED" : "all kernels write only what their .expected lists");
  return failures ? 1 : 0;
}
