// optim::SGD: torch.optim.sgd._single_tensor_sgd, element by element.
#include "train/sgd.h"

#include "support/error.h"

namespace kiln::optim {

SGD::SGD(NamedTensors params, SgdOptions options) : Optimizer(std::move(params)), options_(options) {
  if (options_.lr < 0) throw Error(make_error("SGD: invalid learning rate ", options_.lr));
  if (options_.momentum < 0) throw Error(make_error("SGD: invalid momentum ", options_.momentum));
  if (options_.weight_decay < 0) throw Error(make_error("SGD: invalid weight_decay ", options_.weight_decay));
  if (options_.nesterov && (options_.momentum <= 0 || options_.dampening != 0))
    throw Error(make_error("SGD: nesterov momentum requires a momentum and zero dampening"));
  momentum_buffers_.resize(this->params().size());
}

void SGD::update(size_t index, const Tensor& param, const Tensor& grad) {
  const SgdOptions& o = options_;
  std::vector<double> p = to_doubles(param);
  std::vector<double> d = to_doubles(grad);
  if (o.weight_decay != 0)
    for (size_t i = 0; i < d.size(); ++i) d[i] += o.weight_decay * p[i];
  if (o.momentum != 0) {
    Tensor& buffer = momentum_buffers_[index];
    std::vector<double> buf = d;
    if (buffer.defined()) {
      buf = to_doubles(buffer);
      for (size_t i = 0; i < d.size(); ++i) buf[i] = buf[i] * o.momentum + (1 - o.dampening) * d[i];
    } else {
      buffer = Tensor::zeros(param.sizes(), param.dtype());
    }
    assign_doubles(buffer, buf);
    buf = to_doubles(buffer);  // what torch keeps: the buffer rounded to the parameter's dtype
    if (o.nesterov) {
      for (size_t i = 0; i < d.size(); ++i) d[i] += o.momentum * buf[i];
    } else {
      d = buf;
    }
  }
  for (size_t i = 0; i < p.size(); ++i) p[i] -= o.lr * d[i];
  assign_doubles(param, p);
}

}  // namespace kiln::optim
