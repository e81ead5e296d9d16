#include "frontend/trace.h"

#include "frontend/nn/module.h"

namespace kiln {
namespace {

thread_local TraceContext* g_active_trace = nullptr;
thread_local uint64_t g_next_serial = 1;

}  // namespace

TraceContext::TraceContext(Graph& graph, const nn::Module* module) : graph_(graph), serial_(g_next_serial++) {
  if (!module) return;
  for (const auto& [name, t] : module->named_parameters())
    module_state_.emplace(key_of(t), std::pair{name, InputRole::Param});
  for (const auto& [name, t] : module->named_buffers())
    module_state_.emplace(key_of(t), std::pair{name, InputRole::Buffer});
}

TraceContext::TraceContext(Graph& graph, TraceContext& parent)
    : graph_(graph), parent_(&parent), serial_(g_next_serial++) {}

TraceContext::Key TraceContext::key_of(const Tensor& t) {
  return {t.storage().get(), t.offset(), t.sizes(), t.strides(), t.dtype()};
}

Tensor TraceContext::wrap(Value* v) {
  return Tensor::traced(v->type(), std::make_shared<TraceHandle>(TraceHandle{this, v, serial_}));
}

bool TraceContext::sees(const TraceHandle& h) const {
  for (const TraceContext* c = this; c; c = c->parent_)
    if (c->owns(h)) return true;
  return false;
}

Expected<Value*> TraceContext::value_of(const Tensor& t) {
  if (!t.defined()) return make_error("an undefined tensor was used in a captured function");
  if (t.is_traced() && owns(*t.trace())) return t.trace()->value;
  if (t.is_traced() && !sees(*t.trace()))
    return make_error(
        "a tensor traced by another capture, or inside a function of cond/while_loop/scan/map that "
        "has returned, was used here; pass it in as an input instead");
  if (!parent_) return lift(t);
  KILN_ASSIGN_OR_RETURN(Value * outer, parent_->value_of(t));
  return lift_closure(outer);
}

Value* TraceContext::lift(const Tensor& t) {
  Key key = key_of(t);
  if (auto it = lifted_values_.find(key); it != lifted_values_.end()) return it->second;
  std::string name;
  InputRole role = InputRole::Buffer;
  if (auto it = module_state_.find(key); it != module_state_.end()) {
    name = it->second.first;
    role = it->second.second;
  } else {
    name = "_tensor_constant" + std::to_string(num_constants_++);
  }
  Value* v = graph_.add_input(std::move(name), t.type(), role);
  lifted_values_.emplace(std::move(key), v);
  lifted_.push_back(t);
  return v;
}

Value* TraceContext::lift_closure(Value* outer) {
  if (auto it = closure_inputs_.find(outer); it != closure_inputs_.end()) return it->second;
  // Named after the outer input it stands for (`fc1.weight`), which reads best when printed.
  std::string name = outer->name().empty() ? "lifted" + std::to_string(closures_.size()) : outer->name();
  Value* v = graph_.add_input(std::move(name), outer->type());
  closure_inputs_.emplace(outer, v);
  closures_.push_back(outer);
  return v;
}

TraceContext* active_trace() { return g_active_trace; }

TraceScope::TraceScope(TraceContext* ctx) : previous_(g_active_trace) { g_active_trace = ctx; }

TraceScope::~TraceScope() { g_active_trace = previous_; }

}  // namespace kiln
