// A complete kiln program outside the kiln tree: defines an MLP with the C++ API, captures
// it with a symbolic batch dim, prints the graph, and checks that the interpreter computes
// exactly what eager execution does; then compiles it for the CPU (generated C++ kernels)
// and checks the compiled result at two batch sizes. Exits 0 on agreement, 1 otherwise.
#include <cmath>
#include <cstdio>

#include <kiln/kiln.h>

using namespace kiln;

struct Mlp : nn::Module {
  nn::Linear fc1{8, 16, true, /*seed=*/1};
  nn::Linear fc2{16, 4, true, /*seed=*/2};

  Mlp() {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) { return fc2(gelu(fc1(x))); }
};

int main() {
  Mlp model;
  auto captured =
      capture(CaptureFn1([&](std::span<const Tensor> in) { return model.forward(in[0]); }), {Tensor::randn({2, 8}, 0)},
              {.dynamic = {{0, "B"}}, .name = "mlp", .input_names = {"x"}, .module = &model});
  if (!captured) {
    std::fprintf(stderr, "%s\n", captured.error().to_string().c_str());
    return 1;
  }
  std::printf("%s", print_graph(*captured->graph).c_str());

  Tensor x = Tensor::randn({5, 8}, 1);
  Tensor eager = model.forward(x);
  auto interpreted = captured->run(std::vector<Tensor>{x});
  if (!interpreted) {
    std::fprintf(stderr, "%s\n", interpreted.error().to_string().c_str());
    return 1;
  }
  const bool agree = (*interpreted)[0].equal(eager);
  std::printf("eager %s interpreted\n", agree ? "==" : "!=");

  // compile(): the same function as C++ kernels for this CPU, specialized to each batch size.
  double worst = 0;
  try {
    CompiledFunction mlp = compile(CaptureFn1([&](std::span<const Tensor> in) { return model.forward(in[0]); }),
                                   {Tensor::randn({2, 8}, 0)}, {.device = Device::cpu()},
                                   {.dynamic = {{0, "B"}}, .name = "mlp", .input_names = {"x"}, .module = &model});
    for (int64_t batch : {5, 3}) {
      Tensor xb = Tensor::randn({batch, 8}, 2);
      Tensor want = model.forward(xb), got = mlp({xb})[0];
      for (int64_t i = 0; i < want.numel(); ++i)
        worst = std::fmax(worst, std::fabs(got.item_double(i) - want.item_double(i)));
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  const bool close = worst < 1e-5;
  std::printf("compiled for the CPU: largest difference from eager %.3g\n", worst);
  return agree && close ? 0 : 1;
}
