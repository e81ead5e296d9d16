// kiln_optimizer_trace OUT_DIR sgd|adamw [key=value ...]: runs kiln's SGD or AdamW for a few
// steps on two f32 parameters with seeded random gradients and writes, as .npy, the initial
// parameters (a_init, b_init), each step's gradients (grad{s}_a, grad{s}_b) and the
// parameters after each step (a{s}, b{s}). Step 2 gives `b` no gradient, so it is skipped.
// run_optimizer_oracle.py replays the same gradients through torch.optim and compares.
// Keys: steps lr momentum dampening weight_decay nesterov beta1 beta2 eps amsgrad.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "core/npy.h"
#include "support/error.h"
#include "train/adamw.h"
#include "train/sgd.h"

namespace {

using kiln::Tensor;

bool save(const std::string& dir, const std::string& name, const Tensor& t) {
  kiln::Status s = kiln::write_npy(dir + "/" + name + ".npy", t);
  if (!s) std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
  return s.is_ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: kiln_optimizer_trace OUT_DIR sgd|adamw [key=value ...]\n");
    return 2;
  }
  const std::string dir = argv[1], kind = argv[2];
  std::map<std::string, double> opt = {{"steps", 5},        {"lr", 0.01},    {"momentum", 0}, {"dampening", 0},
                                       {"weight_decay", 0}, {"nesterov", 0}, {"beta1", 0.9},  {"beta2", 0.999},
                                       {"eps", 1e-8},       {"amsgrad", 0}};
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || !opt.count(arg.substr(0, eq))) {
      std::fprintf(stderr, "kiln_optimizer_trace: bad option '%s'\n", arg.c_str());
      return 2;
    }
    opt[arg.substr(0, eq)] = std::atof(arg.c_str() + eq + 1);
  }
  const Tensor a = Tensor::randn({3, 4}, 1), b = Tensor::randn({5}, 2);
  if (!save(dir, "a_init", a) || !save(dir, "b_init", b)) return 1;
  kiln::optim::NamedTensors params = {{"a", a}, {"b", b}};
  try {
    std::unique_ptr<kiln::optim::Optimizer> optimizer;
    if (kind == "sgd") {
      optimizer =
          std::make_unique<kiln::optim::SGD>(params, kiln::optim::SgdOptions{.lr = opt["lr"],
                                                                             .momentum = opt["momentum"],
                                                                             .dampening = opt["dampening"],
                                                                             .weight_decay = opt["weight_decay"],
                                                                             .nesterov = opt["nesterov"] != 0});
    } else if (kind == "adamw") {
      optimizer =
          std::make_unique<kiln::optim::AdamW>(params, kiln::optim::AdamWOptions{.lr = opt["lr"],
                                                                                 .betas = {opt["beta1"], opt["beta2"]},
                                                                                 .eps = opt["eps"],
                                                                                 .weight_decay = opt["weight_decay"],
                                                                                 .amsgrad = opt["amsgrad"] != 0});
    } else {
      std::fprintf(stderr, "kiln_optimizer_trace: unknown optimizer '%s'\n", kind.c_str());
      return 2;
    }
    for (int s = 0; s < static_cast<int>(opt["steps"]); ++s) {
      const std::string step = std::to_string(s);
      kiln::optim::NamedTensors grads = {{"a", Tensor::randn({3, 4}, 100 + static_cast<uint64_t>(s))}};
      if (s != 2) grads.emplace_back("b", Tensor::randn({5}, 200 + static_cast<uint64_t>(s)));
      for (const auto& [name, g] : grads)
        if (!save(dir, "grad" + step + "_" + name, g)) return 1;
      optimizer->step(grads);
      if (!save(dir, "a" + step, a) || !save(dir, "b" + step, b)) return 1;
    }
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "%s\n", e.diagnostic().to_string().c_str());
    return 1;
  }
  return 0;
}
