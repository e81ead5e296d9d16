#include "kernels/ptx_mutation.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace kiln::kernels {

namespace {

// ---------------------------------------------------------------------------------------------
// The value graph of one function: a node per register, parameter and variable, with an edge
// from each node to every operand of every instruction that writes it.

// The roles a value can play in a store address, as a bitmask.
constexpr uint8_t kBase = 1;      // it may be the pointer itself
constexpr uint8_t kBaseHalf = 2;  // a register narrower than a pointer that holds part of one
constexpr uint8_t kOffset = 4;    // it is only added, scaled, into an offset
constexpr uint8_t kPointerRoles = kBase | kBaseHalf;
constexpr uint8_t kRoles[] = {kBase, kBaseHalf, kOffset};

// How an instruction's operand contributes to its result.
enum class Transform : uint8_t {
  Keep,      // it is the value or a part of it (mov, add, sub, cvta, cvt, selp, and, or)
  KeepWide,  // the same, and a narrow operand is half of a wide result (mov.b64 %rd, {%r1, %r2})
  Scale,     // it is multiplied or shifted (mul, shl, mad's factors): the result is an offset
  Mapped,    // a call's result: the roles in which the callee's walk met each argument
  Skip,      // a predicate (selp's condition): it selects, it carries no address
};

struct Edge {
  int src = 0;
  Transform transform = Transform::Keep;
  uint8_t roles = 0;  // for Mapped
};

struct Node {
  int bits = 0;    // width in bits; 0 when unknown (taken as pointer-wide)
  int param = -1;  // the function parameter it is, or -1
  int ret = -1;    // the return parameter it is, or -1
  std::vector<Edge> defs;
  std::vector<int> loads;  // instructions that set it to a value read from memory
};

struct Seed {
  int node = 0;
  uint8_t roles = kBase;
  int inst = -1;  // the writing instruction (a store, or a call that writes)
};

// What a function does with its parameters, as its callers need to know it.
struct Summary {
  std::vector<uint8_t> written;               // per parameter: roles in which a write reaches it
  std::vector<std::vector<uint8_t>> returns;  // per return value, per parameter: roles in which it flows there
  std::vector<bool> return_loaded;            // per return value: may be a pointer read from memory
  std::vector<std::string> loaded_stores;     // "loc: stores through a pointer loaded from memory (...)"
  std::vector<std::string> fallbacks;         // why the analysis gave up
};

// CUDA's device runtime functions that write no memory a parameter points to: printf and
// assert read their arguments; malloc returns fresh heap memory (no parameter's), free releases
// it. Their results derive from no parameter.
bool is_known_runtime_callee(std::string_view name) {
  return name == "vprintf" || name == "__assertfail" || name == "malloc" || name == "free";
}

constexpr size_t kMaxCallDepth = 64;

// ---------------------------------------------------------------------------------------------
// Instruction classes.

bool is_space(std::string_view m) {
  return m == "global" || m == "shared" || m.starts_with("shared::") || m == "local" || m == "param" ||
         m.starts_with("param::") || m == "const" || m == "tex";
}

// The first state space among the modifiers (for cp.* the destination's); "" when generic.
std::string_view first_space(const PtxInstruction& inst) {
  for (size_t i = 1; i < inst.modifiers.size(); ++i)
    if (is_space(inst.modifiers[i])) return inst.modifiers[i];
  return {};
}

bool is_param_space(std::string_view s) { return s == "param" || s.starts_with("param::"); }

int first_address(const PtxInstruction& inst) {
  for (size_t i = 0; i < inst.operands.size(); ++i)
    if (inst.operands[i].kind == PtxOperand::Kind::Address) return static_cast<int>(i);
  return -1;
}

enum class OpClass {
  Compute,         // writes registers only
  Load,            // reads memory into registers
  Write,           // writes memory (the address operand says where)
  Atomic,          // writes memory and reads the old value into a register
  MalformedWrite,  // a memory-writing opcode without an address operand
  Call,
  OtherMemory,    // known to touch no global memory: shared-only, prefetches, barriers
  UnknownMemory,  // an instruction with a memory operand the analysis does not know
};

bool is_write_opcode(const PtxInstruction& inst) {
  const std::string& b = inst.base();
  std::string_view m1 = inst.modifiers.size() > 1 ? std::string_view(inst.modifiers[1]) : "";
  if (b == "st" || b == "red" || b == "sust" || b == "sured" || b == "discard") return true;
  if (b == "wmma") return m1 == "store";
  if (b == "tensormap") return m1 == "replace" || m1 == "cp_fenceproxy";
  if (b == "multimem") return !inst.has_modifier("ld_reduce");
  if (b == "cp") return !inst.has_modifier("prefetch") && !inst.has_modifier("mbarrier");
  return false;
}

bool is_load_opcode(const PtxInstruction& inst) {
  const std::string& b = inst.base();
  return b == "ld" || b == "ldu" || b == "tex" || b == "tld4" || b == "suld" || b == "ldmatrix" ||
         (b == "wmma" && inst.modifiers.size() > 1 && inst.modifiers[1] == "load") ||
         (b == "multimem" && inst.has_modifier("ld_reduce"));
}

// Instructions with a memory operand that cannot write global memory: shared-memory-only
// operations (mbarrier objects and stmatrix live in shared memory), prefetches, cache hints.
bool is_other_memory_opcode(const PtxInstruction& inst) {
  static constexpr std::string_view kBases[] = {
      "prefetch", "prefetchu", "txq",        "suq",  "stmatrix", "mbarrier", "applypriority", "createpolicy",
      "fence",    "tcgen05",   "getctarank", "mapa", "isspacep", "cvta",     "istypep",       "clusterlaunchcontrol"};
  if (std::find(std::begin(kBases), std::end(kBases), inst.base()) != std::end(kBases)) return true;
  return inst.base() == "cp" && (inst.has_modifier("prefetch") || inst.has_modifier("mbarrier"));
}

OpClass classify(const PtxInstruction& inst) {
  const std::string& b = inst.base();
  bool has_address = first_address(inst) >= 0;
  if (b == "call") return OpClass::Call;
  if (b == "cp" && !has_address) return OpClass::Compute;  // cp.async.commit_group, wait_group
  if (b == "atom") return has_address ? OpClass::Atomic : OpClass::MalformedWrite;
  if (is_write_opcode(inst)) return has_address ? OpClass::Write : OpClass::MalformedWrite;
  if (!has_address) return OpClass::Compute;
  if (is_load_opcode(inst)) return OpClass::Load;
  if (is_other_memory_opcode(inst)) return OpClass::OtherMemory;
  return OpClass::UnknownMemory;
}

// How source operand `k` (0 = the first after the destination) contributes to the result.
Transform source_transform(const PtxInstruction& inst, size_t k, bool vector_operand, bool wide_dest) {
  const std::string& b = inst.base();
  if (b == "mul" || b == "mul24" || b == "shl" || b == "shr" || b == "div" || b == "rem") return Transform::Scale;
  if (b == "mad" || b == "mad24" || b == "fma") return k < 2 ? Transform::Scale : Transform::Keep;
  if (b == "selp") return k < 2 ? Transform::Keep : Transform::Skip;
  if (b == "slct") return k < 2 ? Transform::Keep : Transform::Scale;
  if (b == "mov") return vector_operand ? Transform::KeepWide : Transform::Keep;
  static constexpr std::string_view kKeep[] = {"add", "sub", "addc", "subc", "min", "max", "and",
                                               "or",  "xor", "not",  "neg",  "abs", "cvt", "cvta"};
  if (std::find(std::begin(kKeep), std::end(kKeep), b) != std::end(kKeep)) return Transform::Keep;
  // An instruction we do not model: if its result is pointer-wide, any narrow operand may be
  // part of a pointer.
  return wide_dest ? Transform::KeepWide : Transform::Keep;
}

// The names an operand reads: a register, a vector's elements, an address's base.
void collect_names(const PtxOperand& o, std::vector<const std::string*>& out) {
  if (o.kind == PtxOperand::Kind::Name) out.push_back(&o.text);
  if (o.has_base_name()) out.push_back(&o.text);
  if (o.kind != PtxOperand::Kind::Name && o.kind != PtxOperand::Kind::Immediate)
    for (const PtxOperand& e : o.elements) collect_names(e, out);
}

// The registers an instruction's first operand writes (none when it is an address or a sink).
std::vector<const std::string*> destinations(const PtxInstruction& inst) {
  std::vector<const std::string*> out;
  if (inst.operands.empty()) return out;
  const PtxOperand& d = inst.operands.front();
  if (d.kind == PtxOperand::Kind::Name || d.kind == PtxOperand::Kind::Vector || d.kind == PtxOperand::Kind::Pair)
    collect_names(d, out);
  std::erase_if(out, [](const std::string* n) { return *n == "_"; });
  return out;
}

std::string at(const SourceLoc& loc, const std::string& message) { return loc.to_string() + ": " + message; }

// ---------------------------------------------------------------------------------------------

class Analyzer;

// Builds the value graph of one function and walks it.
class FunctionGraph {
 public:
  FunctionGraph(const PtxFunction& f, Analyzer& analyzer);
  Summary summarize();

 private:
  struct WalkResult {
    std::vector<uint8_t> params;              // roles in which each parameter was met
    std::vector<std::pair<int, int>> loaded;  // (load instruction, seed instruction)
  };

  int node(const std::string& name, int scope);
  int resolve(const std::string& name, int scope);
  int resolve_local(const std::string& name, int scope) const;
  int add_node(int bits);
  void add_instruction(int k);
  void add_compute(const PtxInstruction& inst);
  void add_load(int k, const PtxInstruction& inst);
  void add_read_from_memory(int k, const PtxInstruction& inst);
  void add_write(int k, const PtxInstruction& inst);
  void add_call(int k, const PtxInstruction& inst);
  void add_call_effects(int k, const PtxFunction& callee, const Summary& s, const PtxOperand* args,
                        const PtxOperand* rets);
  void fallback(const PtxInstruction& inst, const std::string& message);
  bool narrow(int n) const;
  uint8_t arrive(uint8_t role, Transform t, int src) const;
  WalkResult walk(const std::vector<Seed>& seeds) const;

  const PtxFunction& f_;
  Analyzer& analyzer_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> node_ids_;
  // node() by (scope, name); the names are views of the module's strings, which outlive this.
  std::unordered_map<int, std::unordered_map<std::string_view, int>> resolved_;
  std::unordered_map<std::string_view, std::vector<int>> locals_by_name_;
  std::vector<Seed> seeds_;
  Summary summary_;
};

// Summaries of the functions of one module, computed on demand.
class Analyzer {
 public:
  explicit Analyzer(const PtxModule& module) : module_(module) {
    for (const PtxVariable& g : module.globals) global_names_.insert(g.name);
  }

  const PtxModule& module() const { return module_; }
  int pointer_bits() const { return module_.address_size; }
  bool is_global(const std::string& name) const { return global_names_.count(name) > 0; }

  Summary summarize(const PtxFunction& f) {
    if (auto it = done_.find(&f); it != done_.end()) return it->second;
    if (std::find(active_.begin(), active_.end(), &f) != active_.end())
      return give_up(f, at(f.loc, "recursive call to " + f.name + " (recursion is not analyzed)"));
    if (active_.size() >= kMaxCallDepth)
      return give_up(f, at(f.loc, "calls nested more than " + std::to_string(kMaxCallDepth) + " deep"));
    active_.push_back(&f);
    Summary s = FunctionGraph(f, *this).summarize();
    active_.pop_back();
    return done_.emplace(&f, std::move(s)).first->second;
  }

 private:
  // Everything written, every parameter returned: what a caller must assume of `f`.
  static Summary give_up(const PtxFunction& f, std::string reason) {
    Summary s;
    s.written.assign(f.params.size(), kBase);
    s.returns.assign(f.returns.size(), std::vector<uint8_t>(f.params.size(), kBase));
    s.return_loaded.assign(f.returns.size(), true);
    s.fallbacks.push_back(std::move(reason));
    return s;
  }

  const PtxModule& module_;
  std::unordered_set<std::string> global_names_;
  std::unordered_map<const PtxFunction*, Summary> done_;
  std::vector<const PtxFunction*> active_;
};

// ---------------------------------------------------------------------------------------------

FunctionGraph::FunctionGraph(const PtxFunction& f, Analyzer& analyzer) : f_(f), analyzer_(analyzer) {
  for (size_t i = 0; i < f.params.size(); ++i)
    nodes_[add_node(f.params[i].is_array() ? 0 : f.params[i].bits())].param = static_cast<int>(i);
  for (size_t i = 0; i < f.returns.size(); ++i)
    nodes_[add_node(f.returns[i].is_array() ? 0 : f.returns[i].bits())].ret = static_cast<int>(i);
  for (size_t i = 0; i < f.locals.size(); ++i) locals_by_name_[f.locals[i].name].push_back(static_cast<int>(i));
}

int FunctionGraph::add_node(int bits) {
  nodes_.push_back(Node{bits, -1, -1, {}, {}});
  return static_cast<int>(nodes_.size()) - 1;
}

// The declaration of `name` visible from `scope`: the innermost enclosing block's.
int FunctionGraph::resolve_local(const std::string& name, int scope) const {
  std::vector<int> candidates;
  for (std::string_view key :
       {std::string_view(name), std::string_view(name).substr(0, name.find_last_not_of("0123456789") + 1)}) {
    auto it = locals_by_name_.find(key);
    if (it == locals_by_name_.end()) continue;
    for (int c : it->second)
      if (f_.locals[c].declares(name)) candidates.push_back(c);
  }
  for (int s = scope; s >= 0 && s < static_cast<int>(f_.scope_parents.size()); s = f_.scope_parents[s])
    for (int c : candidates)
      if (f_.locals[c].scope == s) return c;
  return candidates.empty() ? -1 : candidates.front();
}

// The node of `name` as seen from `scope`: a local (register, call parameter, variable), a
// parameter, a module variable, or an undeclared name (special registers, labels).
int FunctionGraph::node(const std::string& name, int scope) {
  std::unordered_map<std::string_view, int>& seen = resolved_[scope];
  if (auto it = seen.find(name); it != seen.end()) return it->second;
  int id = resolve(name, scope);
  seen.emplace(name, id);
  return id;
}

int FunctionGraph::resolve(const std::string& name, int scope) {
  int local = resolve_local(name, scope);
  std::string key;
  if (local >= 0) {
    key = name + '\x1f' + std::to_string(local);
  } else if (int p = f_.param_index(name); p >= 0) {
    return p;
  } else if (int r = f_.return_index(name); r >= 0) {
    return static_cast<int>(f_.params.size()) + r;
  } else {
    key = name + (analyzer_.is_global(name) ? "\x1fglobal" : "\x1fundeclared");
  }
  auto [it, inserted] = node_ids_.emplace(std::move(key), 0);
  if (inserted) it->second = add_node(local >= 0 && !f_.locals[local].is_array() ? f_.locals[local].bits() : 0);
  return it->second;
}

void FunctionGraph::fallback(const PtxInstruction& inst, const std::string& message) {
  summary_.fallbacks.push_back(at(inst.loc, message));
}

void FunctionGraph::add_instruction(int k) {
  const PtxInstruction& inst = f_.instructions[k];
  switch (classify(inst)) {
    case OpClass::Compute: return add_compute(inst);
    case OpClass::Load: return add_load(k, inst);
    case OpClass::Write: return add_write(k, inst);
    case OpClass::Atomic: add_read_from_memory(k, inst); return add_write(k, inst);
    case OpClass::MalformedWrite: return fallback(inst, inst.opcode + " writes memory but has no address operand");
    case OpClass::Call: return add_call(k, inst);
    case OpClass::OtherMemory: return add_read_from_memory(k, inst);
    case OpClass::UnknownMemory:
      add_read_from_memory(k, inst);
      return fallback(inst, inst.opcode + ": an instruction with a memory operand that the analysis does not know");
  }
}

// The instruction's destinations hold values read from memory.
void FunctionGraph::add_read_from_memory(int k, const PtxInstruction& inst) {
  for (const std::string* d : destinations(inst)) nodes_[node(*d, inst.scope)].loads.push_back(k);
}

void FunctionGraph::add_compute(const PtxInstruction& inst) {
  std::vector<const std::string*> dests = destinations(inst);
  if (dests.empty()) return;
  std::vector<int> dest_nodes;
  bool wide = false;
  for (const std::string* d : dests) {
    dest_nodes.push_back(node(*d, inst.scope));
    wide = wide || !narrow(dest_nodes.back());
  }
  std::vector<const std::string*> srcs;
  for (size_t k = 1; k < inst.operands.size(); ++k) {
    const PtxOperand& o = inst.operands[k];
    Transform t = source_transform(inst, k - 1, o.kind == PtxOperand::Kind::Vector, wide);
    if (t == Transform::Skip) continue;
    srcs.clear();
    collect_names(o, srcs);
    for (const std::string* s : srcs) {
      int src = node(*s, inst.scope);
      for (int d : dest_nodes) nodes_[d].defs.push_back(Edge{src, t, 0});
    }
  }
}

// ld.param reads a parameter (or a call's result); any other load reads memory.
void FunctionGraph::add_load(int k, const PtxInstruction& inst) {
  const PtxOperand& addr = inst.operands[first_address(inst)];
  bool from_param = is_param_space(first_space(inst)) && addr.has_base_name();
  if (!from_param) return add_read_from_memory(k, inst);
  int src = node(addr.text, inst.scope);
  for (const std::string* d : destinations(inst))
    nodes_[node(*d, inst.scope)].defs.push_back(Edge{src, Transform::Keep, 0});
}

// st.param defines a call's argument (or the function's result); a write to global or generic
// memory is a seed of the walk; writes to shared, local and constant memory are neither.
void FunctionGraph::add_write(int k, const PtxInstruction& inst) {
  int a = first_address(inst);
  const PtxOperand& addr = inst.operands[a];
  std::string_view space = first_space(inst);
  if (!addr.has_base_name()) {
    if (space.empty() || space == "global") fallback(inst, inst.opcode + " writes to a constant address " + addr.text);
    return;
  }
  if (is_param_space(space)) {
    int slot = node(addr.text, inst.scope);
    std::vector<const std::string*> srcs;
    for (size_t i = 0; i < inst.operands.size(); ++i)
      if (static_cast<int>(i) != a) collect_names(inst.operands[i], srcs);
    // A wide slot may be filled by narrow stores (st.param.b32 twice, read back as .b64).
    for (const std::string* s : srcs) {
      int src = node(*s, inst.scope);  // before indexing: it may add a node
      nodes_[slot].defs.push_back(Edge{src, Transform::KeepWide, 0});
    }
  } else if (space.empty() || space == "global") {
    seeds_.push_back(Seed{node(addr.text, inst.scope), kBase, k});
  }
}

// call{.uni} (ret...), callee, (arg...): the callee's summary, mapped onto the arguments.
void FunctionGraph::add_call(int k, const PtxInstruction& inst) {
  const std::vector<PtxOperand>& ops = inst.operands;
  size_t i = 0;
  const PtxOperand* rets = i < ops.size() && ops[i].kind == PtxOperand::Kind::List ? &ops[i++] : nullptr;
  if (i >= ops.size() || ops[i].kind != PtxOperand::Kind::Name) return fallback(inst, "a call without a callee");
  const std::string& name = ops[i].text;
  const PtxOperand* args = i + 1 < ops.size() && ops[i + 1].kind == PtxOperand::Kind::List ? &ops[i + 1] : nullptr;
  if (name.starts_with("%") || resolve_local(name, inst.scope) >= 0)
    return fallback(inst, "indirect call through " + name);
  const PtxFunction* callee = analyzer_.module().find(name);
  if (!callee || !callee->has_body) {
    if (!is_known_runtime_callee(name)) fallback(inst, "call to " + name + ", whose body is not in the module");
    return;
  }
  size_t nargs = args ? args->elements.size() : 0, nrets = rets ? rets->elements.size() : 0;
  if (nargs != callee->params.size() || nrets > callee->returns.size())
    return fallback(inst, "call to " + name + " with " + std::to_string(nargs) + " arguments and " +
                              std::to_string(nrets) + " results; it has " + std::to_string(callee->params.size()) +
                              " and " + std::to_string(callee->returns.size()));
  Summary s = analyzer_.summarize(*callee);
  summary_.loaded_stores.insert(summary_.loaded_stores.end(), s.loaded_stores.begin(), s.loaded_stores.end());
  summary_.fallbacks.insert(summary_.fallbacks.end(), s.fallbacks.begin(), s.fallbacks.end());
  add_call_effects(k, *callee, s, args, rets);
}

void FunctionGraph::add_call_effects(int k, const PtxFunction& callee, const Summary& s, const PtxOperand* args,
                                     const PtxOperand* rets) {
  const PtxInstruction& inst = f_.instructions[k];
  std::vector<int> arg_nodes;
  for (size_t p = 0; p < callee.params.size(); ++p) {
    const PtxOperand& a = args->elements[p];
    arg_nodes.push_back(a.kind == PtxOperand::Kind::Name ? node(a.text, inst.scope) : -1);
    if (s.written[p] == 0) continue;
    if (arg_nodes.back() >= 0) {
      seeds_.push_back(Seed{arg_nodes.back(), s.written[p], k});
    } else if (s.written[p] & kPointerRoles) {
      fallback(inst, "passes " + a.text + " to " + callee.name + ", which writes through it");
    }
  }
  for (size_t r = 0; rets && r < rets->elements.size(); ++r) {
    const PtxOperand& ret = rets->elements[r];
    if (ret.kind != PtxOperand::Kind::Name) continue;
    Node& n = nodes_[node(ret.text, inst.scope)];
    for (size_t p = 0; p < arg_nodes.size(); ++p)
      if (s.returns[r][p] != 0 && arg_nodes[p] >= 0)
        n.defs.push_back(Edge{arg_nodes[p], Transform::Mapped, s.returns[r][p]});
    if (s.return_loaded[r]) n.loads.push_back(k);
  }
}

// ---------------------------------------------------------------------------------------------
// The walk: from the seeds back along the edges, tracking each value's role.

bool FunctionGraph::narrow(int n) const {
  int bits = nodes_[n].bits;
  return bits > 0 && bits < analyzer_.pointer_bits();
}

uint8_t FunctionGraph::arrive(uint8_t role, Transform t, int src) const {
  if (t == Transform::Scale) return kOffset;
  if (role != kBase || !narrow(src)) return role;
  return t == Transform::KeepWide ? kBaseHalf : kOffset;
}

FunctionGraph::WalkResult FunctionGraph::walk(const std::vector<Seed>& seeds) const {
  WalkResult r;
  r.params.assign(f_.params.size(), 0);
  struct Item {
    int node;
    uint8_t role;
    int origin;
  };
  std::vector<uint8_t> seen(nodes_.size(), 0);
  std::vector<Item> work;
  auto push = [&](int n, uint8_t role, int origin) {
    if (seen[n] & role) return;
    seen[n] |= role;
    work.push_back(Item{n, role, origin});
  };
  for (const Seed& s : seeds)
    for (uint8_t role : kRoles)
      if (s.roles & role) push(s.node, arrive(role, Transform::Keep, s.node), s.inst);
  std::unordered_set<int> loads_met;
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    const Node& n = nodes_[it.node];
    if (n.param >= 0) r.params[n.param] |= it.role;
    if (it.role & kPointerRoles)
      for (int l : n.loads)
        if (loads_met.insert(l).second) r.loaded.emplace_back(l, it.origin);
    for (const Edge& e : n.defs) {
      if (e.transform != Transform::Mapped) {
        push(e.src, arrive(it.role, e.transform, e.src), it.origin);
      } else if (it.role == kOffset) {
        push(e.src, kOffset, it.origin);
      } else {
        for (uint8_t role : kRoles)
          if (e.roles & role) push(e.src, role, it.origin);
      }
    }
  }
  return r;
}

Summary FunctionGraph::summarize() {
  for (size_t k = 0; k < f_.instructions.size(); ++k) add_instruction(static_cast<int>(k));
  WalkResult w = walk(seeds_);
  summary_.written = std::move(w.params);
  for (auto [load, origin] : w.loaded) {
    const PtxInstruction& l = f_.instructions[load];
    summary_.loaded_stores.push_back(at(
        f_.instructions[origin].loc,
        "stores through a pointer loaded from memory (" + l.opcode + " at line " + std::to_string(l.loc.line) + ")"));
  }
  for (size_t r = 0; r < f_.returns.size(); ++r) {
    WalkResult rw = walk({Seed{static_cast<int>(f_.params.size() + r), kBase, -1}});
    summary_.returns.push_back(std::move(rw.params));
    summary_.return_loaded.push_back(!rw.loaded.empty());
  }
  return std::move(summary_);
}

// ---------------------------------------------------------------------------------------------
// The kernel's answer.

Expected<const PtxFunction*> choose_function(const PtxModule& module, const PtxAnalysisOptions& options) {
  std::string entries;
  for (const PtxFunction& f : module.functions)
    if (f.is_entry && f.has_body) entries += (entries.empty() ? "" : ", ") + f.name;
  if (entries.empty()) entries = "none";
  if (!options.function.empty()) {
    const PtxFunction* f = module.find(options.function);
    if (!f || !f->has_body)
      return make_error(module.file, ": no function named ", options.function, " (entries: ", entries, ")");
    return f;
  }
  if (options.signature) {
    for (const PtxFunction& f : module.functions)
      if (f.is_entry && f.has_body && options.signature->matches_ptx_name(f.name)) return &f;
    return make_error(module.file, ": no .entry is the kernel ", options.signature->name, " (entries: ", entries, ")");
  }
  if (const PtxFunction* f = module.first_entry()) return f;
  return make_error(module.file, ": no .entry in the module");
}

bool is_integer_type(std::string_view t) { return t.size() >= 3 && (t[1] == 'u' || t[1] == 'b' || t[1] == 's'); }

// Without a signature: an integer of pointer width (or wider, under 32-bit addressing).
bool may_be_pointer(const PtxVariable& p, const CudaParam* sig, int pointer_bits) {
  if (p.is_array()) return true;  // a struct or tensor map passed by value may hold pointers
  if (sig) return sig->is_pointer;
  return is_integer_type(p.type) && p.bits() >= pointer_bits;
}

std::vector<std::string> collect_reasons(const Summary& s) {
  constexpr size_t kMaxReasons = 20;
  std::vector<std::string> out;
  for (const std::vector<std::string>* list : {&s.fallbacks, &s.loaded_stores})
    for (const std::string& r : *list)
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  if (out.size() > kMaxReasons) {
    size_t more = out.size() - kMaxReasons;
    out.resize(kMaxReasons);
    out.push_back("... and " + std::to_string(more) + " more");
  }
  return out;
}

MutationAnalysis make_result(const PtxFunction& f, const Summary& s, const CudaKernelSignature* sig, int pointer_bits) {
  MutationAnalysis r;
  r.function = f.name;
  r.fallback = !s.fallbacks.empty();
  r.reasons = collect_reasons(s);
  for (size_t i = 0; i < f.params.size(); ++i) {
    const PtxVariable& p = f.params[i];
    const CudaParam* sp = sig ? &sig->params[i] : nullptr;
    ParamMutation m;
    m.name = sp && !sp->name.empty() ? sp->name : "arg" + std::to_string(i);
    m.type = sp ? sp->type : p.type + (p.is_array() ? "[" + std::to_string(p.array_size) + "]" : "");
    m.is_pointer = may_be_pointer(p, sp, pointer_bits);
    bool proven = s.written[i] != 0;
    m.written = m.is_pointer && (proven || !r.reasons.empty());
    if (m.written && !proven) m.reason = r.reasons.front();
    r.params.push_back(std::move(m));
  }
  return r;
}

}  // namespace

Expected<MutationAnalysis> analyze_ptx(const PtxModule& module, const PtxAnalysisOptions& options) {
  KILN_ASSIGN_OR_RETURN(const PtxFunction* f, choose_function(module, options));
  const CudaKernelSignature* sig = options.signature ? &*options.signature : nullptr;
  if (sig && sig->params.size() != f->params.size())
    return make_error(module.file, ": the signature of ", sig->name, " has ", sig->params.size(),
                      " parameters, .entry ", f->name, " has ", f->params.size());
  Analyzer analyzer(module);
  Summary s = analyzer.summarize(*f);
  return make_result(*f, s, sig, module.address_size);
}

}  // namespace kiln::kernels
