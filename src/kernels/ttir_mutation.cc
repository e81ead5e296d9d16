// The TTIR mutation analysis. A walk starts at the address operand of every op that writes
// memory and follows "derives from" backwards to the kernel's parameters. Each step carries a
// mode that says how the value it reached feeds the written address:
//   Pointer    the value is (part of) the address itself;
//   IntAddress an integer that becomes the address (through tt.int_to_ptr, or an op whose way of
//              making a pointer the analysis does not know);
//   Offset     an integer added to an address, a mask, a condition.
// Memory read in Pointer or IntAddress mode means the kernel stores through a pointer loaded
// from memory, which no parameter accounts for: the answer becomes conservative. In Offset mode
// a load ends the walk (a loaded index moves the address within the same tensor), as in the
// reference. The visited set is (value, mode), so a walk visits each value at most three times.
#include "kernels/ttir_mutation.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace kiln::kernels {
namespace {

constexpr uint8_t kPointer = 1;
constexpr uint8_t kIntAddress = 2;
constexpr uint8_t kOffset = 4;
constexpr int kMaxCallDepth = 64;

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Ops that write memory, and which operands address it. The reference lists tt.store,
// tt.atomic_cas, tt.atomic_rmw and the descriptor stores; tt.descriptor_reduce and
// tt.descriptor_scatter write through their descriptor too (the reference misses them).
// tt.experimental_tensormap_create writes the descriptor at operand 0 describing the memory at
// operand 1: both count (the reference follows operand 1 only when operand 0 is stored through).
std::vector<size_t> written_operands(std::string_view name) {
  if (one_of(name, {"tt.store", "tt.atomic_cas", "tt.atomic_rmw", "tt.descriptor_store",
                    "tt.experimental_descriptor_store", "tt.descriptor_reduce", "tt.descriptor_scatter",
                    "ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce", "ttng.async_tma_scatter"}))
    return {0};
  if (name == "tt.experimental_tensormap_create") return {0, 1};
  return {};
}

// Ops whose results are read from memory.
bool reads_memory(std::string_view name) {
  return one_of(name, {"tt.load", "tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_load", "tt.descriptor_gather",
                       "tt.experimental_descriptor_load", "tt.load_tensor_descriptor"});
}

// Region ops whose regions are pure dataflow the walk models; any other op with regions is a
// fallback. (tt.func is the function itself.)
bool known_region_op(std::string_view name) {
  return one_of(name, {"scf.for", "scf.while", "scf.if", "scf.execute_region", "tt.reduce", "tt.scan"});
}

// Ops that move, reshape or select pointers without changing what they point into.
bool pointer_preserving(std::string_view name) {
  return one_of(name, {"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans", "tt.cat", "tt.join",
                       "tt.split", "tt.unsplat", "tt.gather", "tt.addptr", "tt.advance", "tt.make_tensor_ptr",
                       "tt.make_tensor_descriptor", "tt.reinterpret_tensor_descriptor"}) ||
         name.starts_with("arith.") || name.starts_with("math.");
}

// The mode in which operand `i` of `op` feeds a result reached in `mode`.
uint8_t operand_mode(const MlirOp& op, size_t i, uint8_t mode) {
  if (mode == kOffset) return kOffset;
  std::string_view n = op.name;
  if (n == "tt.int_to_ptr") return kIntAddress;
  if (n == "tt.ptr_to_int") return kPointer;
  if (n == "arith.select") return i == 0 ? kOffset : mode;
  if (one_of(n, {"tt.addptr", "tt.advance", "tt.make_tensor_ptr", "tt.make_tensor_descriptor",
                 "tt.reinterpret_tensor_descriptor", "tt.gather"}) &&
      i > 0)
    return mode == kIntAddress ? kIntAddress : kOffset;  // offsets, shapes, strides, indices
  if (n == "tt.bitcast") {  // a pointer-to-pointer cast keeps the mode; int-to-pointer does not
    std::string_view t = op.type_text;
    return contains(t.substr(0, t.find("->")), "!tt.ptr") ? mode : kIntAddress;
  }
  if (pointer_preserving(n)) return mode;
  // An op the walk does not know (tt.call's results, pure inline asm, extern calls): it may make
  // an address out of any operand, so a loaded operand makes the answer conservative.
  return kIntAddress;
}

std::string function_name(const MlirOp& f) {
  if (!f.symbol.empty()) return f.symbol;
  const MlirAttribute* a = f.attribute("sym_name");
  return a && a->as_string() ? *a->as_string() : std::string();
}

bool is_private(const MlirOp& f) {
  const MlirAttribute* a = f.attribute("sym_visibility");
  return f.keyword == "private" || f.keyword == "nested" || (a && a->as_string() && *a->as_string() != "public");
}

std::string callee_name(const MlirOp& call) {
  const MlirAttribute* a = call.attribute("callee");
  if (a && a->as_symbol()) return *a->as_symbol();
  return call.symbol;
}

// What a walk reached: for each parameter of the function, the modes in which a written address
// derives from it; and why the answer must be conservative.
struct Reach {
  std::vector<uint8_t> params;
  std::vector<std::string> conservative;  // a pointer loaded from memory is written through
  std::vector<std::string> fallback;      // something the analysis does not understand

  void merge_reasons(const Reach& other) {
    conservative.insert(conservative.end(), other.conservative.begin(), other.conservative.end());
    fallback.insert(fallback.end(), other.fallback.begin(), other.fallback.end());
  }
};

// What the walks of one function found, computed once: from its writes, and from its returned
// values walked as pointers (index 0) or as integer addresses (index 1).
struct FunctionFacts {
  enum State : uint8_t { kNotStarted, kRunning, kDone };
  Reach writes;
  Reach returns[2];
  State state[3] = {kNotStarted, kNotStarted, kNotStarted};  // writes, returns[0], returns[1]
};

class Analyzer;

// One backward walk inside one function.
class Walk {
 public:
  Walk(Analyzer& a, MlirOpId func, Reach& out, int call_depth);
  void add(MlirValueId v, uint8_t mode);
  void run();

 private:
  void step(MlirValueId v, uint8_t mode);
  void step_block_arg(const MlirValue& v, uint8_t mode);
  void step_result(const MlirValue& v, uint8_t mode);
  void step_call(const MlirOp& call, uint8_t mode);
  // Operand `operand` of each terminator named `name` in region `region` of `op`.
  void follow_terminators(const MlirOp& op, size_t region, std::string_view name, size_t operand, uint8_t mode);
  void follow_all_terminator_operands(const MlirOp& op, size_t region, std::string_view name, uint8_t mode);
  void fallback(const MlirOp& at, const std::string& why);

  Analyzer& a_;
  const MlirModule& m_;
  MlirOpId func_;
  Reach& out_;
  int call_depth_;
  std::vector<uint8_t> seen_;
  std::vector<std::pair<MlirValueId, uint8_t>> stack_;
};

class Analyzer {
 public:
  explicit Analyzer(const MlirModule& m) : m_(m) {
    for (MlirOpId id = 0; id < static_cast<MlirOpId>(m.ops.size()); ++id) {
      const MlirOp& op = m.op(id);
      bool in_module = op.parent < 0 || one_of(m.op(op.parent).name, {"module", "builtin.module"});
      if (op.name == "tt.func" && in_module) {
        functions_.push_back(id);
        by_name_.emplace(function_name(op), id);  // the first of a name wins
      }
    }
  }

  const MlirModule& module() const { return m_; }
  const std::vector<MlirOpId>& functions() const { return functions_; }
  MlirOpId find(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? -1 : it->second;
  }

  // What the writes of `func` reach; null while `func` is being analyzed (recursion).
  const Reach* writes(MlirOpId func, int call_depth);
  // What the values `func` returns derive from, walked in `mode` (kPointer or kIntAddress).
  const Reach* returns(MlirOpId func, uint8_t mode, int call_depth);

  std::string place(const MlirOp& op) const { return op.loc.to_string(); }

 private:
  void seed_writes(MlirOpId func, Walk& walk, Reach& out, int call_depth);

  const MlirModule& m_;
  std::vector<MlirOpId> functions_;
  std::unordered_map<std::string, MlirOpId> by_name_;
  std::unordered_map<MlirOpId, FunctionFacts> facts_;
};

std::vector<MlirValueId> params_of(const MlirModule& m, MlirOpId func) {
  const MlirOp& f = m.op(func);
  if (f.regions.empty() || f.regions[0].blocks.empty()) return {};
  return f.regions[0].blocks[0].args;
}

Walk::Walk(Analyzer& a, MlirOpId func, Reach& out, int call_depth)
    : a_(a), m_(a.module()), func_(func), out_(out), call_depth_(call_depth), seen_(m_.values.size(), 0) {
  out_.params.assign(params_of(m_, func).size(), 0);
}

void Walk::add(MlirValueId v, uint8_t mode) {
  if (v < 0 || static_cast<size_t>(v) >= seen_.size()) return;
  for (uint8_t bit : {kPointer, kIntAddress, kOffset}) {
    if (!(mode & bit) || (seen_[static_cast<size_t>(v)] & bit)) continue;
    seen_[static_cast<size_t>(v)] |= bit;
    stack_.emplace_back(v, bit);
  }
}

void Walk::run() {
  while (!stack_.empty()) {
    auto [v, mode] = stack_.back();
    stack_.pop_back();
    step(v, mode);
  }
}

void Walk::fallback(const MlirOp& at, const std::string& why) { out_.fallback.push_back(a_.place(at) + ": " + why); }

void Walk::step(MlirValueId v, uint8_t mode) {
  const MlirValue& val = m_.value(v);
  if (val.op < 0) return;
  if (val.is_block_arg())
    step_block_arg(val, mode);
  else
    step_result(val, mode);
}

void Walk::follow_terminators(const MlirOp& op, size_t region, std::string_view name, size_t operand, uint8_t mode) {
  bool found = false;
  if (region < op.regions.size()) {
    for (const MlirBlock& b : op.regions[region].blocks) {
      if (b.ops.empty() || m_.op(b.ops.back()).name != name) continue;
      const MlirOp& t = m_.op(b.ops.back());
      if (operand < t.operands.size()) {
        add(t.operands[operand], mode);
        found = true;
      }
    }
  }
  if (!found)
    fallback(op, "no " + std::string(name) + " gives value " + std::to_string(operand) + " (" + op.name + ")");
}

void Walk::follow_all_terminator_operands(const MlirOp& op, size_t region, std::string_view name, uint8_t mode) {
  if (region >= op.regions.size()) return;
  for (const MlirBlock& b : op.regions[region].blocks)
    if (!b.ops.empty() && m_.op(b.ops.back()).name == name)
      for (MlirValueId v : m_.op(b.ops.back()).operands) add(v, mode);
}

// A block argument: a parameter, or a value a structured op passes into its region.
void Walk::step_block_arg(const MlirValue& v, uint8_t mode) {
  const MlirOp& owner = m_.op(v.op);
  size_t i = static_cast<size_t>(v.index);
  if (v.op == func_ && v.region == 0 && v.block == 0) {
    if (i < out_.params.size()) out_.params[i] |= mode;
    return;
  }
  if (owner.name == "scf.for" && v.region == 0 && v.block == 0) {
    if (i == 0) {  // the induction variable: from the bounds and the step
      for (size_t k = 0; k < 3 && k < owner.operands.size(); ++k) add(owner.operands[k], mode);
      return;
    }
    // An iter_arg: its init, and (the back edge the reference does not model) what the
    // previous iteration yielded. Without it a pointer swapped between iter_args is lost.
    if (i + 2 < owner.operands.size()) add(owner.operands[i + 2], mode);
    follow_terminators(owner, 0, "scf.yield", i - 1, mode);
    return;
  }
  if (owner.name == "scf.while" && v.block == 0) {
    if (v.region == 0) {  // "before": the inits, and the back edge from "after"'s yield
      if (i < owner.operands.size()) add(owner.operands[i], mode);
      follow_terminators(owner, 1, "scf.yield", i, mode);
    } else {  // "after": what scf.condition forwards (its operands after the condition)
      follow_terminators(owner, 0, "scf.condition", i + 1, mode);
    }
    return;
  }
  if ((owner.name == "tt.reduce" || owner.name == "tt.scan") && !owner.operands.empty() && v.block == 0) {
    add(owner.operands[i % owner.operands.size()], mode);  // N operands, 2N combine arguments
    return;
  }
  fallback(owner, "cannot follow block argument " + v.name + " (" + owner.name + ")");
}

void Walk::step_result(const MlirValue& v, uint8_t mode) {
  const MlirOp& op = m_.op(v.op);
  size_t k = static_cast<size_t>(v.index);
  const std::string& n = op.name;
  if (reads_memory(n)) {
    // A loaded offset moves an address within its tensor; a loaded address is unknown memory.
    if (mode != kOffset) {
      std::string from = op.source.empty() ? n : n + " at " + op.source;
      out_.conservative.push_back(a_.place(op) + ": stores through a pointer loaded from memory (" + from + ")");
    }
    return;
  }
  if (n == "scf.for") {
    if (k + 3 < op.operands.size()) add(op.operands[k + 3], mode);
    follow_terminators(op, 0, "scf.yield", k, mode);
  } else if (n == "scf.while") {
    follow_terminators(op, 0, "scf.condition", k + 1, mode);
  } else if (n == "scf.if" || n == "scf.execute_region") {
    // Result k takes operand k of each branch's yield, not all of them (the reference's
    // "yield fix-up"): a pointer chosen by the branch is written, its siblings are not.
    for (size_t r = 0; r < op.regions.size(); ++r) follow_terminators(op, r, "scf.yield", k, mode);
  } else if (n == "tt.reduce" || n == "tt.scan") {
    for (MlirValueId o : op.operands) add(o, mode);
    follow_all_terminator_operands(op, 0, n + ".return", mode);
  } else if (n == "tt.call" && mode != kOffset) {
    step_call(op, mode);
  } else {
    for (size_t i = 0; i < op.operands.size(); ++i) add(op.operands[i], operand_mode(op, i, mode));
  }
}

// A call's result reached as an address: what the callee's returned values derive from, mapped
// back to the call's operands (so a helper that returns a loaded pointer is seen).
void Walk::step_call(const MlirOp& call, uint8_t mode) {
  MlirOpId callee = a_.find(callee_name(call));
  if (callee < 0) return fallback(call, "call to @" + callee_name(call) + ", which the module does not define");
  if (call_depth_ >= kMaxCallDepth) return fallback(call, "calls nested too deeply");
  const Reach* r = a_.returns(callee, mode, call_depth_ + 1);
  if (!r) return fallback(call, "recursive call to @" + callee_name(call));
  out_.merge_reasons(*r);
  for (size_t i = 0; i < r->params.size() && i < call.operands.size(); ++i) add(call.operands[i], r->params[i]);
}

// The seeds of a function's writes walk, and the reasons its ops force a fallback.
void Analyzer::seed_writes(MlirOpId func, Walk& walk, Reach& out, int call_depth) {
  std::vector<MlirOpId> todo;
  auto push_children = [&](const MlirOp& op) {
    for (const MlirRegion& r : op.regions)
      for (const MlirBlock& b : r.blocks) todo.insert(todo.end(), b.ops.rbegin(), b.ops.rend());
  };
  push_children(m_.op(func));
  while (!todo.empty()) {
    MlirOpId id = todo.back();
    todo.pop_back();
    const MlirOp& op = m_.op(id);
    push_children(op);
    if (!op.regions.empty() && !known_region_op(op.name))
      out.fallback.push_back(place(op) + ": op with regions the analysis does not know (" + op.name + ")");
    if (op.name == "tt.elementwise_inline_asm") {
      const MlirAttribute* pure = op.attribute("pure");
      if (!pure || pure->as_bool() != true) out.fallback.push_back(place(op) + ": impure inline asm (" + op.name + ")");
    }
    for (size_t i : written_operands(op.name))
      if (i < op.operands.size()) walk.add(op.operands[i], kPointer);
    if (op.name != "tt.call") continue;
    // The caller's operand i is written when the callee's parameter i is.
    std::string name = callee_name(op);
    MlirOpId callee = find(name);
    const Reach* r = nullptr;
    if (callee < 0)
      out.fallback.push_back(place(op) + ": call to @" + name + ", which the module does not define");
    else if (call_depth >= kMaxCallDepth)
      out.fallback.push_back(place(op) + ": calls nested too deeply");
    else if (!(r = writes(callee, call_depth + 1)))
      out.fallback.push_back(place(op) + ": recursive call to @" + name);
    if (!r) continue;
    out.merge_reasons(*r);
    for (size_t i = 0; i < r->params.size() && i < op.operands.size(); ++i) walk.add(op.operands[i], r->params[i]);
  }
  if (m_.op(func).regions.empty()) out.fallback.push_back(place(m_.op(func)) + ": function has no body");
}

const Reach* Analyzer::writes(MlirOpId func, int call_depth) {
  FunctionFacts& f = facts_[func];
  if (f.state[0] == FunctionFacts::kRunning) return nullptr;
  if (f.state[0] == FunctionFacts::kDone) return &f.writes;
  f.state[0] = FunctionFacts::kRunning;
  Reach out;
  Walk walk(*this, func, out, call_depth);
  seed_writes(func, walk, out, call_depth);
  walk.run();
  f.writes = std::move(out);  // `f` survives the inserts of nested calls: the map is node-based
  f.state[0] = FunctionFacts::kDone;
  return &f.writes;
}

const Reach* Analyzer::returns(MlirOpId func, uint8_t mode, int call_depth) {
  int slot = mode == kPointer ? 1 : 2;
  FunctionFacts& f = facts_[func];
  if (f.state[slot] == FunctionFacts::kRunning) return nullptr;
  if (f.state[slot] == FunctionFacts::kDone) return &f.returns[slot - 1];
  f.state[slot] = FunctionFacts::kRunning;
  Reach out;
  Walk walk(*this, func, out, call_depth);
  std::vector<MlirOpId> todo(1, func);
  while (!todo.empty()) {  // every tt.return of the function, nested ones included
    const MlirOp& op = m_.op(todo.back());
    todo.pop_back();
    if (op.name == "tt.return")
      for (MlirValueId v : op.operands) walk.add(v, mode);
    for (const MlirRegion& r : op.regions)
      for (const MlirBlock& b : r.blocks) todo.insert(todo.end(), b.ops.begin(), b.ops.end());
  }
  walk.run();
  f.returns[slot - 1] = std::move(out);
  f.state[slot] = FunctionFacts::kDone;
  return &f.returns[slot - 1];
}

// The name the parameter was declared with: the innermost name of its location (Triton wraps
// it when the kernel rebinds the parameter: loc("a"(loc("in0"(...))))); else the SSA name
// unless it is %argN or a number; else "arg<i>".
std::string param_name(const MlirValue& v, size_t i) {
  if (!v.loc_names.empty() && !v.loc_names.back().empty()) return v.loc_names.back();
  std::string_view n = v.name;
  if (n.starts_with("%")) n.remove_prefix(1);
  bool numbered = n.starts_with("arg") && n.size() > 3 &&
                  std::all_of(n.begin() + 3, n.end(), [](char c) { return c >= '0' && c <= '9'; });
  bool digits = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (n.empty() || numbered || digits) return "arg" + std::to_string(i);
  return std::string(n);
}

void append_unique(std::vector<std::string>& out, const std::vector<std::string>& more) {
  for (const std::string& s : more)
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
}

MutationAnalysis summarize(const MlirModule& m, MlirOpId func, const Reach& r) {
  MutationAnalysis result;
  result.function = function_name(m.op(func));
  result.fallback = !r.fallback.empty();
  append_unique(result.reasons, r.fallback);
  append_unique(result.reasons, r.conservative);
  std::vector<MlirValueId> params = params_of(m, func);
  for (size_t i = 0; i < params.size(); ++i) {
    const MlirValue& v = m.value(params[i]);
    ParamMutation p;
    p.name = param_name(v, i);
    p.type = v.type;
    p.is_pointer = contains(v.type, "!tt.ptr") || contains(v.type, "!tt.tensordesc");
    bool proved = i < r.params.size() && r.params[i] != 0;
    p.written = p.is_pointer && (proved || !result.reasons.empty());
    if (p.written && !proved) p.reason = result.reasons.front();
    result.params.push_back(std::move(p));
  }
  return result;
}

}  // namespace

Expected<MutationAnalysis> analyze_ttir(const MlirModule& module, const TtirAnalysisOptions& options) {
  Analyzer a(module);
  if (a.functions().empty()) return make_error(module.file, ": no tt.func in the module");
  MlirOpId func = -1;
  if (options.function.empty()) {
    for (MlirOpId f : a.functions())
      if (func < 0 && !is_private(module.op(f))) func = f;
    if (func < 0) func = a.functions().front();
  } else if ((func = a.find(options.function)) < 0) {
    std::string names;
    for (MlirOpId f : a.functions()) names += (names.empty() ? "@" : ", @") + function_name(module.op(f));
    return make_error(module.file, ": no tt.func @", options.function, " (the module has ", names, ")");
  }
  const Reach* r = a.writes(func, 0);
  return summarize(module, func, *r);
}

Expected<MutationAnalysis> analyze_ttir_text(std::string_view text, std::string_view file_name,
                                             const TtirAnalysisOptions& options) {
  KILN_ASSIGN_OR_RETURN(MlirModule m, read_mlir(text, file_name));
  return analyze_ttir(m, options);
}

}  // namespace kiln::kernels
