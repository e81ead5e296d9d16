#include "passes/functionalize.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/printer.h"
#include "ir/view_chain.h"
#include "ops/functional_form.h"
#include "ops/kernel_call_layout.h"
#include "ops/strided_geometry.h"
#include "passes/functionalize_views.h"
#include "support/check.h"

namespace kiln {

namespace {

// One storage: a base tensor and every view taken from it.
struct Storage {
  Value* base = nullptr;     // the base's original value; null for the synthetic base of aliased inputs
  Value* current = nullptr;  // the base's latest value (synthetic: null until first needed)
  int version = 0;           // bumped by every write into the storage
  int input_index = -1;      // the graph input that is the base, if any
  const InputAliasGroup* group = nullptr;
  DType dtype = DType::F32;
};

// What the pass knows of one original tensor value: its storage, and for a view how to make
// it again from its parent. `current` is the view's value as of storage version `version`.
struct Alias {
  int storage = -1;
  bool is_base = false;
  Value* parent = nullptr;  // null: the storage's base
  ViewStep step{OpKind::Reshape, {}, 0};
  int member_input = -1;         // an aliased input: its index
  std::string unreplayable;      // why the view cannot be made again after a write, if it cannot
  std::optional<Layout> layout;  // where its elements sit in the storage (unknown for symbolic shapes)
  int version = 0;
  Value* current = nullptr;
};

// Which input a write lands in.
struct WriteRoot {
  int input = -1;  // -1: an intermediate's storage (or a whole alias group)
  bool through_view = false;
  bool whole_group = false;  // written through the synthetic base itself: every member
};

class Functionalizer {
 public:
  Functionalizer(Graph& g, const FunctionalizeOptions& options, bool is_subgraph)
      : g_(g), options_(options), is_subgraph_(is_subgraph), maker_(g, nullptr, {}), original_(g.clone()) {
    std::vector<Node*> now = g.nodes(), then = original_->nodes();
    for (size_t i = 0; i < now.size(); ++i) original_node_[now[i]] = then[i];
  }

  Expected<ViewAndMutationInfo> run() {
    KILN_TRY(register_inputs());
    for (Node* n : g_.nodes()) KILN_TRY(visit(n));
    maker_.set_position(nullptr, {});
    info_.keep_input_mutations = options_.keep_input_mutations;
    KILN_TRY(finish_outputs());
    if (!is_subgraph_) KILN_TRY(write_back_inputs());
    erase_dead_nodes();
    return info_;
  }

 private:
  // ---- bookkeeping of storages and views ----

  Value* canonical(Value* v) const {
    for (auto it = same_as_.find(v); it != same_as_.end(); it = same_as_.find(v)) v = it->second;
    return v;
  }

  Alias& alias(Value* v) {
    auto it = aliases_.find(canonical(v));
    KILN_CHECK(it != aliases_.end()) << "functionalize: a value of @" << g_.name() << " has no alias record";
    return it->second;
  }

  void add_base(Value* v, int input_index) {
    Storage st;
    st.base = v;
    st.current = v;
    st.input_index = input_index;
    st.dtype = v->type().dtype;
    storages_.push_back(st);
    Alias a;
    a.storage = static_cast<int>(storages_.size()) - 1;
    a.is_base = true;
    a.current = v;
    if (v->type().shape.is_static()) a.layout = packed_layout(v->type().shape.sizes());
    aliases_[v] = a;
  }

  std::string input_name(int i) const { return "%" + g_.input(i)->name(); }

  Status check_group(const InputAliasGroup& group, std::vector<int>& group_of, int index) const {
    if (group.members.size() < 2) return make_error("functionalize: an aliased-input group needs at least two inputs");
    for (const AliasedInput& m : group.members)
      if (m.input_index < 0 || m.input_index >= g_.num_inputs())
        return make_error("functionalize: aliased input ", m.input_index, " out of range: @", g_.name(), " has ",
                          g_.num_inputs(), " inputs");
    const DType dtype = g_.input(group.members[0].input_index)->type().dtype;
    for (const AliasedInput& m : group.members) {
      int& slot = group_of[static_cast<size_t>(m.input_index)];
      if (slot >= 0)
        return make_error("functionalize: input ", input_name(m.input_index), " is named twice in aliased inputs");
      slot = index;
      const TensorType& type = g_.input(m.input_index)->type();
      if (type.dtype != dtype)
        return make_error("functionalize: aliased inputs must share one dtype, but ", input_name(m.input_index), " is ",
                          dtype_name(type.dtype), " and ", input_name(group.members[0].input_index), " is ",
                          dtype_name(dtype));
      if (!type.shape.is_static() || type.shape.sizes() != m.sizes || m.strides.size() != m.sizes.size())
        return make_error("functionalize: aliased input ", input_name(m.input_index), " of type ", type.to_string(),
                          " does not fit its sizes and strides in the common storage");
      for (int64_t s : m.strides)
        if (s < 0)
          return make_error("functionalize: aliased input ", input_name(m.input_index), " has a negative stride");
      if (m.storage_offset < 0)
        return make_error("functionalize: aliased input ", input_name(m.input_index), " has a negative storage offset");
    }
    return Status::ok();
  }

  Status register_inputs() {
    info_.inputs.resize(static_cast<size_t>(g_.num_inputs()));
    std::vector<int> group_of(static_cast<size_t>(g_.num_inputs()), -1);
    storages_.reserve(static_cast<size_t>(g_.num_inputs()) + options_.aliased_inputs.size());
    for (size_t k = 0; k < options_.aliased_inputs.size(); ++k) {
      const InputAliasGroup& group = options_.aliased_inputs[k];
      KILN_TRY(check_group(group, group_of, static_cast<int>(k)));
      Storage st;
      st.group = &group;
      st.dtype = g_.input(group.members[0].input_index)->type().dtype;
      storages_.push_back(st);
      for (const AliasedInput& m : group.members) {
        Alias a;
        a.storage = static_cast<int>(storages_.size()) - 1;
        a.step = {
            OpKind::AsStrided, {{"size", m.sizes}, {"stride", m.strides}, {"storage_offset", m.storage_offset}}, 0};
        a.member_input = m.input_index;
        a.current = g_.input(m.input_index);
        a.layout = Layout{m.sizes, m.strides, m.storage_offset};
        aliases_[g_.input(m.input_index)] = a;
      }
    }
    for (int i = 0; i < g_.num_inputs(); ++i)
      if (group_of[static_cast<size_t>(i)] < 0) add_base(g_.input(i), i);
    return Status::ok();
  }

  // Results of view node `n` share `parent`'s storage, unless the op had to copy (reshape
  // of a layout no strides express): then they are bases of their own.
  void register_view(Node* n, Value* parent) {
    const Alias p = alias(parent);
    const Storage& st = storages_[static_cast<size_t>(p.storage)];
    for (int i = 0; i < n->num_results(); ++i) {
      Value* r = n->result(i);
      Alias a;
      a.storage = p.storage;
      a.parent = canonical(parent);
      a.step = {n->op(), n->attrs(), i};
      a.version = st.version;
      a.current = r;
      if (p.layout && r->type().shape.is_static()) {
        a.layout = view_layout(a.step, *p.layout, r->type().shape.sizes());
        if (!a.layout) {
          add_base(r, -1);
          continue;
        }
      }
      if (n->op() == OpKind::AsStrided && !p.is_base) {
        // as_strided reads the storage, not its parent: it is a view of the base, at the
        // parent's offset when it names none.
        a.parent = st.base;
        if (!a.step.attrs.find("storage_offset") || a.step.attrs.find("storage_offset")->is_none()) {
          if (p.layout)
            a.step.attrs.set("storage_offset", p.layout->offset);
          else
            a.unreplayable = "as_strided of a view of symbolic shape needs an explicit storage_offset";
        }
      }
      aliases_[r] = a;
    }
  }

  // The base's current value. The synthetic base of aliased inputs is built on first use:
  // a member that covers the whole common storage packed, or else zeros the size of the
  // storage with each member scattered to its place.
  Expected<Value*> base_value(int storage) {
    Storage& st = storages_[static_cast<size_t>(storage)];
    if (st.current) return st.current;
    KILN_CHECK(st.group) << "functionalize: a storage without a base value";
    int64_t extent = 0;
    for (const AliasedInput& m : st.group->members)
      extent = std::max(extent, strided_storage_extent(m.sizes, m.strides, m.storage_offset));
    for (const AliasedInput& m : st.group->members) {
      Value* in = g_.input(m.input_index);
      if (!covers_packed(m, extent)) continue;
      if (m.sizes.size() == 1) return st.current = in;
      KILN_ASSIGN_OR_RETURN(st.current, maker_.make1(OpKind::Reshape, {in}, {{"shape", AttrValue::Ints{extent}}}));
      return st.current;
    }
    KILN_ASSIGN_OR_RETURN(Value * base,
                          maker_.make1(OpKind::Zeros, {}, {{"size", AttrValue::Ints{extent}}, {"dtype", st.dtype}}));
    for (const AliasedInput& m : st.group->members) {
      KILN_ASSIGN_OR_RETURN(
          base, maker_.make1(OpKind::AsStridedScatter, {base, g_.input(m.input_index)},
                             {{"size", m.sizes}, {"stride", m.strides}, {"storage_offset", m.storage_offset}}));
    }
    return st.current = base;
  }

  // Whether `m` lays its elements out packed over all `extent` elements of the storage.
  static bool covers_packed(const AliasedInput& m, int64_t extent) {
    if (m.storage_offset != 0) return false;
    int64_t expected = 1;
    for (size_t d = m.sizes.size(); d-- > 0;) {
      if (m.sizes[d] != 1 && m.strides[d] != expected) return false;
      expected *= m.sizes[d];
    }
    return expected == extent;
  }

  Expected<Value*> parent_value(const Alias& a) {
    if (a.parent) return current(a.parent);
    return base_value(a.storage);
  }

  // The value `v` (an original value) has now: replayed from its base if a write came since.
  Expected<Value*> current(Value* v) {
    Alias& a = alias(v);
    const Storage& st = storages_[static_cast<size_t>(a.storage)];
    if (a.is_base) return st.current;
    if (a.version == st.version) return a.current;
    if (!a.unreplayable.empty())
      return make_error("functionalize: cannot replay a view after a write: ", a.unreplayable);
    KILN_ASSIGN_OR_RETURN(Value * parent, parent_value(a));
    KILN_ASSIGN_OR_RETURN(a.current, replay_view(maker_, a.step, parent));
    a.version = st.version;
    return a.current;
  }

  // Records that `target` (an original value) now holds `value`, propagating the write to its base.
  Status write(Value* target, Value* value) {
    Alias& a = alias(target);
    Storage& st = storages_[static_cast<size_t>(a.storage)];
    if (a.is_base) {
      st.current = value;
      ++st.version;
      return Status::ok();
    }
    if (!a.unreplayable.empty()) return make_error("functionalize: cannot write through a view: ", a.unreplayable);
    KILN_ASSIGN_OR_RETURN(Value * parent, parent_value(a));
    KILN_ASSIGN_OR_RETURN(Value * updated_parent, scatter_into_parent(maker_, a.step, parent, value));
    if (a.parent) {
      KILN_TRY(write(a.parent, updated_parent));
    } else {
      st.current = updated_parent;
      ++st.version;
    }
    a.current = value;
    a.version = st.version;
    return Status::ok();
  }

  WriteRoot root_of(Value* v) {
    WriteRoot r;
    const Alias* a = &alias(v);
    const Storage& st = storages_[static_cast<size_t>(a->storage)];
    r.through_view = !a->is_base && a->member_input < 0;
    while (true) {
      if (a->is_base) {
        r.input = st.input_index;
        return r;
      }
      if (a->member_input >= 0) {
        r.input = a->member_input;
        return r;
      }
      if (!a->parent) {
        r.whole_group = true;
        return r;
      }
      a = &alias(a->parent);
    }
  }

  // ---- the walk ----

  std::string node_text(Node* n) const {
    auto it = original_node_.find(n);
    return print_node(it != original_node_.end() ? *it->second : *n);
  }

  Status in_node(Status s, Node* n) const {
    if (s) return s;
    s.error().with_loc(n->loc());
    s.error().add_context("while functionalizing " + node_text(n));
    return s;
  }

  Status functionalize_subgraphs(Node* n) {
    for (int i = 0; i < n->num_subgraphs(); ++i) {
      Graph& body = *n->subgraph(i);
      Functionalizer inner(body, {}, /*is_subgraph=*/true);
      KILN_ASSIGN_OR_RETURN(ViewAndMutationInfo info, inner.run());
      for (int k = 0; k < body.num_inputs(); ++k)
        if (info.inputs[static_cast<size_t>(k)].kind != MutationKind::None)
          return make_error("functionalize: subgraph '", n->info().schema.subgraph_args()[static_cast<size_t>(i)]->name,
                            "' of ", node_text(n), " mutates its input %", body.input(k)->name(),
                            "; only tensors a subgraph creates may be updated in place")
              .with_loc(n->loc());
    }
    return Status::ok();
  }

  // The value an in-place node computes, typed like its operand 0 (whose operands are current).
  Expected<Value*> functional_value(Node* n) {
    Value* self = n->operand(0).value;
    Value* v = nullptr;
    if (auto twin = functional_form(n->op())) {
      std::vector<Operand> operands(n->operands().begin(), n->operands().end());
      KILN_ASSIGN_OR_RETURN(v, maker_.make1(*twin, std::move(operands), n->attrs()));
    } else if (n->op() == OpKind::CopyInplace) {
      v = n->operand(1).value;
    } else if (n->op() == OpKind::FillInplace && !n->operand(1).is_value()) {
      KILN_ASSIGN_OR_RETURN(
          v, maker_.make1(OpKind::FullLike, {self}, {{"fill_value", AttrValue::from_scalar(n->operand(1).literal)}}));
    } else if (n->op() == OpKind::FillInplace) {
      v = n->operand(1).value;
    } else if (n->op() == OpKind::ZeroInplace) {
      KILN_ASSIGN_OR_RETURN(v, maker_.make1(OpKind::ZerosLike, {self}));
    } else {
      KILN_CHECK(false) << "functionalize: no functional form of " << n->info().name();
    }
    const TensorType& want = self->type();
    if (!(v->type().shape == want.shape)) {
      if (!want.shape.is_static())
        return make_error("functionalize: cannot broadcast ", v->type().to_string(), " to the symbolic shape ",
                          want.to_string(), " of the written tensor");
      KILN_ASSIGN_OR_RETURN(v, maker_.make1(OpKind::Expand, {v}, {{"size", want.shape.sizes()}}));
    }
    if (v->type().dtype != want.dtype) {
      KILN_ASSIGN_OR_RETURN(v, maker_.make1(OpKind::ToCopy, {v}, {{"dtype", want.dtype}}));
    }
    return v;
  }

  void record_input_write(const WriteRoot& root, int storage) {
    auto mark = [&](int input, bool through_view) {
      InputMutation& m = info_.inputs[static_cast<size_t>(input)];
      m.kind = MutationKind::Data;
      m.written_through_view |= through_view;
    };
    if (root.input >= 0) mark(root.input, root.through_view);
    if (root.whole_group)
      for (const AliasedInput& member : storages_[static_cast<size_t>(storage)].group->members)
        mark(member.input_index, true);
  }

  Status rewrite_inplace(Node* n, Value* target) {
    KILN_CHECK(target) << "functionalize: in-place node without a tensor operand 0";
    target = canonical(target);
    KILN_ASSIGN_OR_RETURN(Value * value, functional_value(n));
    KILN_TRY(write(target, value));
    record_input_write(root_of(target), alias(target).storage);
    same_as_[n->result()] = target;
    rewritten_.push_back(n);
    return Status::ok();
  }

  // ---- user kernels ----

  // kernel_call -> kernel_call_functional. The tensors the kernel writes come back as new
  // values and are written like an in-place op's target. Arguments that share a storage with
  // a written one are passed as views of that storage's whole value, so the functional call
  // clones it once and the kernel sees the aliasing it saw in eager execution.
  Status rewrite_kernel_call(Node* n, const std::vector<Value*>& originals) {
    std::vector<bool> is_tensor;
    for (Value* v : originals) is_tensor.push_back(v != nullptr);
    KILN_ASSIGN_OR_RETURN(KernelCallLayout layout, decode_kernel_call(OpCallBase(n->op(), n->attrs()), is_tensor));
    std::map<int, std::vector<size_t>> by_storage;  // storage -> its tensor arguments (in order: deterministic output)
    for (size_t a = 0; a < originals.size(); ++a)
      if (originals[a]) by_storage[alias(originals[a]).storage].push_back(a);
    std::vector<Operand> operands(n->operands().begin(), n->operands().end());
    std::vector<KernelArgView> views;
    std::unordered_map<size_t, int> group_storage;  // a view group's first argument -> its storage
    for (auto& [storage, args] : by_storage) {
      bool written = false;
      for (size_t a : args) written |= layout.written[a];
      if (args.size() < 2 || !written) continue;
      std::sort(args.begin(), args.end());
      KILN_ASSIGN_OR_RETURN(Value * base, base_value(storage));
      for (size_t a : args) {
        const std::optional<Layout>& l = alias(originals[a]).layout;
        if (!l)
          return make_error(
              "functionalize: kernel arguments ", args[0], " and ", args[1],
              " share storage and the kernel writes one; that needs their layouts, which a symbolic shape hides");
        views.push_back({static_cast<int64_t>(a), static_cast<int64_t>(args[0]), l->offset, l->sizes, l->strides});
        operands[a] = Operand(base);
      }
      group_storage[args[0]] = storage;
    }
    std::sort(views.begin(), views.end(), [](const KernelArgView& x, const KernelArgView& y) { return x.arg < y.arg; });
    AttrMap attrs;
    attrs.set("kernel", n->attrs().find("kernel")->as_string());
    if (const AttrValue* grid = n->attrs().find("grid")) attrs.set("grid", *grid);
    std::vector<int64_t> written;
    for (size_t a = 0; a < layout.written.size(); ++a)
      if (layout.written[a]) written.push_back(static_cast<int64_t>(a));
    attrs.set("written", written);
    if (!views.empty()) attrs.set("views", encode_kernel_views(views));
    KILN_ASSIGN_OR_RETURN(KernelCallLayout functional,
                          decode_kernel_call(OpCallBase(OpKind::KernelCallFunctional, attrs), is_tensor));
    KILN_ASSIGN_OR_RETURN(std::vector<Value*> results,
                          maker_.make(OpKind::KernelCallFunctional, std::move(operands), attrs));
    for (size_t r = 0; r < results.size(); ++r) {
      const size_t a = static_cast<size_t>(functional.result_args[r]);
      if (functional.view[a]) {
        KILN_TRY(write_storage(group_storage.at(a), results[r]));
      } else {
        Value* target = canonical(originals[a]);
        KILN_TRY(write(target, results[r]));
        record_input_write(root_of(target), alias(target).storage);
      }
    }
    rewritten_.push_back(n);
    return Status::ok();
  }

  // Records that the whole of `storage` now holds `value` (packed, the base's type).
  Status write_storage(int storage, Value* value) {
    Storage& st = storages_[static_cast<size_t>(storage)];
    if (st.base) {
      KILN_TRY(write(st.base, value));
      record_input_write(root_of(st.base), storage);
      return Status::ok();
    }
    st.current = value;
    ++st.version;
    record_input_write(WriteRoot{-1, true, true}, storage);
    return Status::ok();
  }

  Status visit(Node* n) {
    maker_.set_position(n, n->loc());
    KILN_TRY(functionalize_subgraphs(n));
    std::vector<Value*> originals;
    for (const Operand& o : n->operands()) originals.push_back(o.value);
    std::vector<Value*> now(originals.size(), nullptr);
    for (size_t i = 0; i < originals.size(); ++i)
      if (originals[i]) {
        Expected<Value*> cur = current(originals[i]);
        if (!cur) return in_node(cur.error(), n);
        now[i] = *cur;
      }
    for (size_t i = 0; i < now.size(); ++i)
      if (now[i] && now[i] != originals[i]) g_.set_operand(n, static_cast<int>(i), now[i]);
    if (n->info().has(kInplace)) return in_node(rewrite_inplace(n, originals[0]), n);
    if (n->op() == OpKind::KernelCall) return in_node(rewrite_kernel_call(n, originals), n);
    if (n->info().has(kView) && originals[0]) {
      register_view(n, originals[0]);
      return Status::ok();
    }
    for (Value* r : n->results()) add_base(r, -1);
    return Status::ok();
  }

  // ---- the end of the graph ----

  OutputAlias output_alias(const std::vector<Value*>& outputs, size_t j) {
    Value* o = canonical(outputs[j]);
    const Alias& a = alias(o);
    const Storage& st = storages_[static_cast<size_t>(a.storage)];
    if (a.is_base) {
      if (st.input_index >= 0) return {OutputAliasKind::IsInput, st.input_index};
      return {OutputAliasKind::NonAlias, -1};
    }
    if (a.member_input >= 0) return {OutputAliasKind::IsInput, a.member_input};
    if (st.input_index >= 0 || st.group) {
      WriteRoot root = root_of(o);
      return {OutputAliasKind::AliasOfInput, root.input >= 0 ? root.input : st.group->members[0].input_index};
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      const Alias& other = alias(outputs[k]);
      if (k != j && other.is_base && other.storage == a.storage)
        return {OutputAliasKind::AliasOfOutput, static_cast<int>(k)};
    }
    return {OutputAliasKind::AliasOfIntermediate, -1};
  }

  Status finish_outputs() {
    const std::vector<Value*> outputs = g_.outputs();
    info_.num_user_outputs = static_cast<int>(outputs.size());
    for (size_t j = 0; j < outputs.size(); ++j) info_.outputs.push_back(output_alias(outputs, j));
    std::vector<Value*> now;
    for (Value* o : outputs) {
      KILN_ASSIGN_OR_RETURN(Value * cur, current(o));
      now.push_back(cur);
    }
    g_.set_outputs(now);
    return Status::ok();
  }

  // The graph input whose storage `v` shares at run time (through view ops), if any.
  const Value* runtime_input_of(const Value* v) const {
    v = storage_root(v);
    return v && v->is_input() ? v : nullptr;
  }

  // Inputs that share storage with input `i` at run time: itself, or its alias group.
  bool shares_storage_with_written(const Value* input) {
    const Alias& a = alias(const_cast<Value*>(input));
    for (int w : info_.write_back_inputs)
      if (alias(g_.input(w)).storage == a.storage) return true;
    return false;
  }

  Status write_back_inputs() {
    for (int i = 0; i < g_.num_inputs(); ++i)
      if (info_.inputs[static_cast<size_t>(i)].kind != MutationKind::None) info_.write_back_inputs.push_back(i);
    std::vector<Value*> finals;
    for (int i : info_.write_back_inputs) {
      KILN_ASSIGN_OR_RETURN(Value * final_value, current(g_.input(i)));
      // A final value that still reads an input's memory would see an earlier write-back.
      const Value* reads = runtime_input_of(final_value);
      if (reads && shares_storage_with_written(reads)) {
        KILN_ASSIGN_OR_RETURN(final_value, maker_.make1(OpKind::Clone, {final_value}));
      }
      finals.push_back(final_value);
    }
    std::vector<Value*> outputs = g_.outputs();
    for (size_t k = 0; k < finals.size(); ++k) {
      Value* input = g_.input(info_.write_back_inputs[k]);
      if (options_.keep_input_mutations) {
        KILN_TRY(maker_.make1(OpKind::CopyInplace, {input, finals[k]}));
      } else {
        outputs.push_back(finals[k]);
      }
    }
    g_.set_outputs(outputs);
    return Status::ok();
  }

  // The rewritten in-place nodes, then views and nodes this pass made that nothing reads.
  void erase_dead_nodes() {
    for (auto it = rewritten_.rbegin(); it != rewritten_.rend(); ++it) g_.erase(*it);
    std::unordered_set<const Node*> made(maker_.made().begin(), maker_.made().end());
    std::unordered_set<const Value*> outputs(g_.outputs().begin(), g_.outputs().end());
    std::vector<Node*> nodes = g_.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Node* n = *it;
      if (n->has_users() || !n->info().is_pure() || n->num_subgraphs() > 0) continue;
      if (!n->info().has(kView) && !made.count(n)) continue;
      bool is_output = false;
      for (Value* r : n->results()) is_output |= outputs.count(r) > 0;
      if (!is_output) g_.erase(n);
    }
  }

  Graph& g_;
  FunctionalizeOptions options_;
  bool is_subgraph_;
  NodeMaker maker_;
  std::unique_ptr<Graph> original_;  // the graph as it came, for error messages
  std::unordered_map<const Node*, const Node*> original_node_;
  std::vector<Storage> storages_;
  std::unordered_map<Value*, Alias> aliases_;
  std::unordered_map<Value*, Value*> same_as_;  // in-place results -> the tensor they alias
  std::vector<Node*> rewritten_;
  ViewAndMutationInfo info_;
};

}  // namespace

Expected<ViewAndMutationInfo> functionalize(Graph& g, const FunctionalizeOptions& options) {
  Functionalizer f(g, options, /*is_subgraph=*/false);
  return f.run();
}

}  // namespace kiln
