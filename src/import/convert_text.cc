// The transformer nodes' rewrites (convert_text.h).
#include "import/convert_text.h"

#include <algorithm>
#include <map>
#include <optional>

#include "import/pt2_dtype.h"

namespace kiln::pt2 {
namespace {

using Renames = std::map<std::string, std::string>;

std::string short_target(const std::string& target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  return target.rfind(kPrefix, 0) == 0 ? target.substr(kPrefix.size()) : target;
}

const Argument* find_input(const Node& n, std::string_view name) {
  for (const NamedArgument& in : n.inputs)
    if (in.name == name) return &in.arg;
  return nullptr;
}

void erase_input(Node& n, std::string_view name) {
  std::erase_if(n.inputs, [&](const NamedArgument& in) { return in.name == name; });
}

void set_input(Node& n, const std::string& name, Argument arg) {
  for (NamedArgument& in : n.inputs)
    if (in.name == name) {
      in.arg = std::move(arg);
      return;
    }
  n.inputs.push_back({name, std::move(arg)});
}

Argument int_arg(int64_t v) {
  Argument a;
  a.kind = Argument::Kind::Int;
  a.key = "as_int";
  a.ints = {v};
  return a;
}

Argument tensor_arg(const std::string& name) {
  Argument a;
  a.kind = Argument::Kind::Tensor;
  a.key = "as_tensor";
  a.names = {name};
  return a;
}

Argument dtype_arg(int code) {
  Argument a;
  a.kind = Argument::Kind::ScalarType;
  a.key = "as_scalar_type";
  a.ints = {code};
  return a;
}

Expected<const TensorMeta*> meta_of(const Program& p, const std::string& name) {
  auto it = p.tensor_values.find(name);
  if (it == p.tensor_values.end()) return make_error("value '", name, "' has no entry in tensor_values");
  return &it->second;
}

// The one tensor a node's argument or output names.
Expected<std::string> tensor_name(const Argument* a, std::string_view what) {
  if (!a || a->kind != Argument::Kind::Tensor || a->names.size() != 1 || !a->names[0])
    return make_error(what, " is not a tensor");
  return *a->names[0];
}

// The node's single result's archive dtype.
Expected<int> result_dtype(const Program& p, const Node& n) {
  if (n.outputs.size() != 1) return make_error("it has ", n.outputs.size(), " outputs, expected one");
  KILN_ASSIGN_OR_RETURN(std::string name, tensor_name(&n.outputs[0], "its output"));
  KILN_ASSIGN_OR_RETURN(const TensorMeta* meta, meta_of(p, name));
  return meta->dtype;
}

std::string sizes_text(const std::vector<SymSize>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i ? "," : "") + (sizes[i].value ? std::to_string(*sizes[i].value) : sizes[i].expr);
  return s + "]";
}

// Whether an asserted int list (as_ints) matches recorded sizes or strides; a symbolic
// element (a dynamic program's sym_size.int) matches a dynamic recorded one.
bool ints_match(const Argument& a, const std::vector<SymSize>& recorded) {
  if (a.ints.size() != recorded.size()) return false;
  for (size_t i = 0; i < recorded.size(); ++i) {
    const bool symbolic = i < a.sym_names.size() && !a.sym_names[i].empty();
    if (symbolic ? recorded[i].value.has_value() : !recorded[i].value || *recorded[i].value != a.ints[i]) return false;
  }
  return true;
}

// _assert_tensor_metadata(a, size, stride, dtype, device, layout): every given field must
// agree with what the archive records for `a`.
Status check_asserted_metadata(const Program& p, const Node& n) {
  KILN_ASSIGN_OR_RETURN(std::string name, tensor_name(find_input(n, "a"), "argument 'a'"));
  KILN_ASSIGN_OR_RETURN(const TensorMeta* meta, meta_of(p, name));
  using K = Argument::Kind;
  if (const Argument* d = find_input(n, "dtype"); d && d->kind == K::ScalarType && d->ints[0] != meta->dtype)
    return make_error("it asserts that '", name, "' is ", archive_dtype_name(static_cast<int>(d->ints[0])),
                      " but the graph records ", archive_dtype_name(meta->dtype));
  if (const Argument* s = find_input(n, "size"); s && s->kind == K::Ints && !ints_match(*s, meta->sizes))
    return make_error("it asserts sizes for '", name, "' that differ from the recorded ", sizes_text(meta->sizes));
  if (const Argument* s = find_input(n, "stride"); s && s->kind == K::Ints && !ints_match(*s, meta->strides))
    return make_error("it asserts strides for '", name, "' that differ from the recorded ", sizes_text(meta->strides));
  if (const Argument* d = find_input(n, "device"); d && d->kind == K::Device && d->string != "cpu")
    return make_error("it asserts that '", name, "' is on device '", d->string, "'; kiln imports CPU programs");
  // serde Layout: 7 is torch.strided.
  if (const Argument* l = find_input(n, "layout"); l && l->kind == K::Layout && l->ints[0] != 7)
    return make_error("it asserts that '", name, "' has layout ", l->ints[0], "; kiln imports strided tensors");
  return Status::ok();
}

// The names of a node's results when it has one list output (split_with_sizes, unbind).
Expected<std::vector<std::string>> list_results(const Node& n) {
  if (n.outputs.size() != 1 || n.outputs[0].kind != Argument::Kind::Tensors)
    return make_error("expected one list of tensors as its output");
  std::vector<std::string> names;
  for (const std::optional<std::string>& name : n.outputs[0].names) {
    if (!name) return make_error("an output of the list has no name");
    names.push_back(*name);
  }
  return names;
}

Expected<int64_t> int_input(const Node& n, std::string_view name, int64_t fallback) {
  const Argument* a = find_input(n, name);
  if (!a) return fallback;
  if (a->kind != Argument::Kind::Int || a->symbolic) return make_error("argument '", name, "' is not a static int");
  return a->ints[0];
}

Node derived_node(const Node& n, const std::string& target, const std::string& result) {
  Node out;
  out.target = target;
  out.stack_trace = n.stack_trace;
  out.name = result;
  out.outputs = {tensor_arg(result)};
  return out;
}

// split_with_sizes(self, split_sizes, dim): slice(self, dim, start, start + size) per result.
Status split_into_slices(const Node& n, std::vector<Node>& out) {
  KILN_ASSIGN_OR_RETURN(std::vector<std::string> results, list_results(n));
  const Argument* sizes = find_input(n, "split_sizes");
  if (!sizes || sizes->kind != Argument::Kind::Ints || sizes->symbolic)
    return make_error("argument 'split_sizes' is not a static int list");
  if (sizes->ints.size() != results.size())
    return make_error("it has ", sizes->ints.size(), " sizes but ", results.size(), " results");
  KILN_ASSIGN_OR_RETURN(int64_t dim, int_input(n, "dim", 0));
  const Argument* self = find_input(n, "self");
  if (!self) return make_error("argument 'self' is missing");
  int64_t start = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    Node s = derived_node(n, "torch.ops.aten.slice.Tensor", results[i]);
    s.inputs = {
        {"self", *self}, {"dim", int_arg(dim)}, {"start", int_arg(start)}, {"end", int_arg(start + sizes->ints[i])}};
    start += sizes->ints[i];
    out.push_back(std::move(s));
  }
  return Status::ok();
}

// unbind(self, dim): select(self, dim, i) per result.
Status unbind_into_selects(const Node& n, std::vector<Node>& out) {
  KILN_ASSIGN_OR_RETURN(std::vector<std::string> results, list_results(n));
  KILN_ASSIGN_OR_RETURN(int64_t dim, int_input(n, "dim", 0));
  const Argument* self = find_input(n, "self");
  if (!self) return make_error("argument 'self' is missing");
  for (size_t i = 0; i < results.size(); ++i) {
    Node s = derived_node(n, "torch.ops.aten.select.int", results[i]);
    s.inputs = {{"self", *self}, {"dim", int_arg(dim)}, {"index", int_arg(static_cast<int64_t>(i))}};
    out.push_back(std::move(s));
  }
  return Status::ok();
}

Argument ints_arg(std::vector<int64_t> v) {
  Argument a;
  a.kind = Argument::Kind::Ints;
  a.key = "as_ints";
  a.ints = std::move(v);
  return a;
}

// An int[1] argument of conv1d (a lone int counts too) as the pair {fill, value} of conv2d.
Expected<Argument> widened(const Node& n, std::string_view name, int64_t fallback, int64_t fill) {
  const Argument* a = find_input(n, name);
  if (!a) return ints_arg({fill, fallback});
  if (a->symbolic || (a->kind != Argument::Kind::Ints && a->kind != Argument::Kind::Int) || a->ints.size() != 1)
    return make_error("argument '", name, "' is not one static int");
  return ints_arg({fill, a->ints[0]});
}

// A new value `name` of sizes `sizes` with the dtype of `like`, recorded in the program.
void add_value(Program& p, const std::string& name, const TensorMeta& like, const std::vector<int64_t>& sizes) {
  TensorMeta meta;
  meta.dtype = like.dtype;
  for (int64_t s : sizes) meta.sizes.push_back(SymSize{s, ""});
  p.tensor_values[name] = std::move(meta);
}

std::vector<int64_t> static_sizes_of(const TensorMeta& m) {
  std::vector<int64_t> out;
  for (const SymSize& s : m.sizes) out.push_back(s.value.value_or(-1));
  return out;
}

// conv1d(input [N,C,L], weight [O,C/g,K], ...): conv2d on a height of 1, by unsqueeze at -2
// of input and weight, stride/padding/dilation {1,s}, {0,p}, {1,d}, then squeeze(-2).
Status conv1d_as_conv2d(Program& p, const Node& n, std::vector<Node>& out) {
  KILN_ASSIGN_OR_RETURN(std::string input, tensor_name(find_input(n, "input"), "argument 'input'"));
  KILN_ASSIGN_OR_RETURN(std::string weight, tensor_name(find_input(n, "weight"), "argument 'weight'"));
  KILN_ASSIGN_OR_RETURN(std::string result, tensor_name(n.outputs.empty() ? nullptr : &n.outputs[0], "its output"));
  KILN_ASSIGN_OR_RETURN(const TensorMeta* in_meta, meta_of(p, input));
  KILN_ASSIGN_OR_RETURN(const TensorMeta* w_meta, meta_of(p, weight));
  KILN_ASSIGN_OR_RETURN(const TensorMeta* out_meta, meta_of(p, result));
  std::vector<int64_t> in_sizes = static_sizes_of(*in_meta), w_sizes = static_sizes_of(*w_meta),
                       out_sizes = static_sizes_of(*out_meta);
  if (in_sizes.size() != 3 || w_sizes.size() != 3 || out_sizes.size() != 3)
    return make_error("kiln imports conv1d of batched 3-d inputs only");
  KILN_ASSIGN_OR_RETURN(Argument stride, widened(n, "stride", 1, 1));
  KILN_ASSIGN_OR_RETURN(Argument padding, widened(n, "padding", 0, 0));
  KILN_ASSIGN_OR_RETURN(Argument dilation, widened(n, "dilation", 1, 1));
  const TensorMeta like = *out_meta;
  auto unsqueezed = [&](const std::string& of, std::vector<int64_t> sizes) {
    std::string name = result + "_" + of + "_2d";
    sizes.insert(sizes.end() - 1, 1);
    add_value(p, name, like, sizes);
    Node u = derived_node(n, "torch.ops.aten.unsqueeze.default", name);
    u.inputs = {{"self", tensor_arg(of)}, {"dim", int_arg(-2)}};
    out.push_back(std::move(u));
    return name;
  };
  std::string input_2d = unsqueezed(input, in_sizes);
  std::string weight_2d = unsqueezed(weight, w_sizes);
  std::string conv = result + "_2d";
  add_value(p, conv, like, {out_sizes[0], out_sizes[1], 1, out_sizes[2]});
  Node c = derived_node(n, "torch.ops.aten.conv2d.default", conv);
  c.inputs = {{"input", tensor_arg(input_2d)}, {"weight", tensor_arg(weight_2d)}};
  if (const Argument* bias = find_input(n, "bias")) c.inputs.push_back({"bias", *bias});
  c.inputs.push_back({"stride", stride});
  c.inputs.push_back({"padding", padding});
  c.inputs.push_back({"dilation", dilation});
  if (const Argument* groups = find_input(n, "groups")) c.inputs.push_back({"groups", *groups});
  out.push_back(std::move(c));
  Node sq = derived_node(n, "torch.ops.aten.squeeze.dim", result);
  sq.inputs = {{"self", tensor_arg(conv)}, {"dim", int_arg(-2)}};
  out.push_back(std::move(sq));
  return Status::ok();
}

// The ops whose result may share its input's storage: an in-place op on one of their
// results (or on a graph input) would write through to another value.
bool makes_views(const std::string& t) {
  static const char* const kViews[] = {
      "view",           "reshape",    "permute",          "t",        "transpose", "unsqueeze",  "squeeze",   "expand",
      "flatten",        "slice",      "select",           "alias",    "detach",    "split",      "chunk",     "unbind",
      "narrow",         "as_strided", "split_with_sizes", "diagonal", "unfold",    "contiguous", "expand_as", "view_as",
      "_reshape_alias", "unflatten",  "movedim",          "swapaxes"};
  if (t.rfind("aten.", 0) != 0) return false;
  std::string op = t.substr(5, t.find('.', 5) - 5);  // "aten.view.default" -> "view"
  return std::find(std::begin(kViews), std::end(kViews), op) != std::end(kViews);
}

// What the rewrite knows of the values so far.
struct State {
  Renames renames;
  std::map<std::string, std::string> producers;  // value -> the op that made it ("aten.add.Tensor")
  std::map<std::string, std::string> roots;      // a view (or a write through one) -> its base
  std::map<std::string, Node> slices;            // slice and select nodes, by result
  std::map<std::string, size_t> last_use;        // by name: the last node reading it (SIZE_MAX: an output)
  size_t index = 0;                              // the node being rewritten
};

// The value `name` stands for now: through aliases and in-place writes, to the last one.
std::string renamed(std::string name, const Renames& renames) {
  for (auto it = renames.find(name); it != renames.end(); it = renames.find(name)) name = it->second;
  return name;
}

// The new value an in-place node computes, as an out-of-place node named after its result;
// copy_ of a value of the same type is that value (nothing to emit, `result` renamed).
Status out_of_place(const Program& p, Node& n, const std::string& t, const std::string& self, const std::string& result,
                    std::vector<Node>& out, State& st) {
  if (t == "aten.copy_.default") {
    KILN_ASSIGN_OR_RETURN(std::string src, tensor_name(find_input(n, "src"), "argument 'src'"));
    KILN_ASSIGN_OR_RETURN(const TensorMeta* src_meta, meta_of(p, src));
    KILN_ASSIGN_OR_RETURN(const TensorMeta* self_meta, meta_of(p, self));
    if (src_meta->dtype != self_meta->dtype || static_sizes_of(*src_meta) != static_sizes_of(*self_meta))
      return make_error("copy_ that broadcasts or converts its source is not imported");
    st.renames[result] = src;
    return Status::ok();
  }
  if (t == "aten.fill_.Scalar") {
    const Argument* value = find_input(n, "value");
    if (!value) return make_error("argument 'value' is missing");
    Argument v = *value;
    n.inputs = {{"self", tensor_arg(self)}, {"fill_value", v}};
    n.target = "torch.ops.aten.full_like.default";
  } else {
    size_t underscore = t.find("_.");
    n.target = "torch.ops." + t.substr(0, underscore) + t.substr(underscore + 1);
  }
  out.push_back(n);
  return Status::ok();
}

// A value sharing `base`'s storage, other than `except`, that a later node reads.
std::optional<std::string> alias_read_later(const State& st, const std::string& base, const std::string& except) {
  for (const auto& [name, root] : st.roots) {
    if (root != base || name == except) continue;
    auto use = st.last_use.find(name);
    if (use != st.last_use.end() && use->second > st.index) return name;
  }
  return std::nullopt;
}

// An in-place node (add_/sub_/mul_/div_, masked_fill_, fill_, copy_, index_put_) as functional
// nodes: on a fresh value (made by an op that is not a view) whose views are not read later,
// its out-of-place op, later uses of the written value reading the result; on a slice or select
// of a fresh value, or a chain of them, also a slice_scatter/select_scatter per level writing the
// result back into the base, later uses of the base reading that, provided no other view of the
// base is read later. Graph inputs and other views are errors.
Status functionalize_inplace(const Program& p, Node n, const std::string& t, Program& prog, State& st) {
  KILN_ASSIGN_OR_RETURN(std::string self, tensor_name(find_input(n, "self"), "argument 'self'"));
  KILN_ASSIGN_OR_RETURN(std::string result, tensor_name(n.outputs.empty() ? nullptr : &n.outputs[0], "its output"));
  auto producer = st.producers.find(self);
  if (producer == st.producers.end())
    return make_error("it writes in place to the graph input '", self, "', which kiln does not import");
  if (!st.roots.count(self)) {
    if (std::optional<std::string> view = alias_read_later(st, self, ""))
      return make_error("it writes in place to '", self, "', and '", *view,
                        "', a view of it, is read later; kiln does not import that");
    KILN_TRY(out_of_place(p, n, t, self, result, prog.nodes, st));
    st.renames[self] = result;
    return Status::ok();
  }
  // The chain of slices and selects from the base to `self`, innermost first (swin_t's
  // img_mask[:, h, w, :] = cnt writes through a slice of a slice).
  std::string base = st.roots.at(self);
  std::vector<const Node*> chain;
  bool from_base = false;
  for (std::string cur = self; !from_base;) {
    auto slice = st.slices.find(cur);
    if (slice == st.slices.end()) break;
    Expected<std::string> viewed = tensor_name(find_input(slice->second, "self"), "self");
    if (!viewed) break;
    chain.push_back(&slice->second);
    from_base = *viewed == base;
    cur = *viewed;
  }
  if (!from_base || st.roots.count(base) || !st.producers.count(base) || renamed(base, st.renames) != base)
    return make_error("it writes in place to '", self, "', a view made by ", producer->second,
                      ", which kiln does not import (only slices and selects of a fresh value)");
  if (std::optional<std::string> other = alias_read_later(st, base, self))
    return make_error("it writes in place to '", self, "', a view of '", base, "', and '", *other,
                      "', another view of it, is read later; kiln does not import that");
  KILN_TRY(out_of_place(p, n, t, self, result, prog.nodes, st));
  std::string written = renamed(result, st.renames);
  // Each level's new value is the one below scattered into the view it was taken from.
  for (const Node* view : chain) {
    const std::string parent = *tensor_name(find_input(*view, "self"), "self");
    const bool is_slice = short_target(view->target) == "aten.slice.Tensor";
    const std::string scatter = result + "_into_" + parent;
    Node s = derived_node(
        n, is_slice ? "torch.ops.aten.slice_scatter.default" : "torch.ops.aten.select_scatter.default", scatter);
    s.inputs = {{"self", tensor_arg(parent)}, {"src", tensor_arg(written)}};
    for (const NamedArgument& in : view->inputs)
      if (in.name != "self") s.inputs.push_back(in);
    KILN_ASSIGN_OR_RETURN(const TensorMeta* parent_meta, meta_of(prog, parent));
    prog.tensor_values[scatter] = *parent_meta;
    prog.nodes.push_back(std::move(s));
    st.producers[scatter] = "aten.slice_scatter.default";
    written = scatter;
  }
  st.renames[base] = written;
  st.renames[self] = renamed(result, st.renames);
  st.roots[result] = base;
  return Status::ok();
}

// view(x) where x comes from an op that lays its result out by strides (transpose, permute,
// expand, slice, ...) becomes reshape: PyTorch may have laid x out otherwise than kiln does
// (the CPU sdpa returns [B,S,H,D]-strided memory, so the core form's transpose(1, 2) of it is
// contiguous and PyTorch views it, where kiln's transpose of its contiguous sdpa result is
// not). The values are the same, and the imported graph writes nothing in place.
Status view_of_relaid_value(Node& n, const State& st) {
  KILN_ASSIGN_OR_RETURN(std::string self, tensor_name(find_input(n, "self"), "argument 'self'"));
  auto producer = st.producers.find(self);
  if (producer == st.producers.end()) return Status::ok();
  static const char* const kRelaying[] = {"aten.transpose.int",  "aten.permute.default",   "aten.t.default",
                                          "aten.expand.default", "aten.slice.Tensor",      "aten.select.int",
                                          "aten.narrow.default", "aten.as_strided.default"};
  if (std::find(std::begin(kRelaying), std::end(kRelaying), producer->second) == std::end(kRelaying))
    return Status::ok();
  n.target = "torch.ops.aten.reshape.default";
  for (NamedArgument& in : n.inputs)
    if (in.name == "size") in.name = "shape";
  return Status::ok();
}

bool is_inplace(const std::string& t) {
  for (const char* op : {"aten.add_.", "aten.sub_.", "aten.mul_.", "aten.div_.", "aten.masked_fill_.", "aten.fill_.",
                         "aten.copy_.", "aten.index_put_."})
    if (t.rfind(op, 0) == 0) return true;
  return false;
}

// cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing) and
// nll_loss (the core forms'): kiln's cross_entropy and nll_loss, whose reduction is ATen's
// name rather than its enum (0 none, 1 mean, 2 sum).
Status loss_reduction(Node& n, const std::string& kiln_target) {
  n.target = kiln_target;
  for (NamedArgument& in : n.inputs) {
    if (in.name != "reduction") continue;
    if (in.arg.kind != Argument::Kind::Int || in.arg.ints[0] < 0 || in.arg.ints[0] > 2)
      return make_error("argument 'reduction' is not 0, 1 or 2 (none, mean, sum)");
    static const char* const kNames[] = {"none", "mean", "sum"};
    Argument name;
    name.kind = Argument::Kind::String;
    name.key = "as_string";
    name.string = kNames[in.arg.ints[0]];
    in.arg = std::move(name);
  }
  return Status::ok();
}

// pad(self, pad, mode="constant", value=None): constant_pad_nd(self, pad, value or 0); the
// other modes (reflect, replicate, circular) are not imported.
Status pad_as_constant_pad(Node& n) {
  if (const Argument* mode = find_input(n, "mode"); mode && mode->kind != Argument::Kind::None) {
    if (mode->kind != Argument::Kind::String || mode->string != "constant")
      return make_error("pad mode '", mode->string, "' is not imported (kiln has constant_pad_nd only)");
  }
  erase_input(n, "mode");
  if (const Argument* value = find_input(n, "value"); value && value->kind == Argument::Kind::None)
    erase_input(n, "value");
  n.target = "torch.ops.aten.constant_pad_nd.default";
  return Status::ok();
}

// The core form's convolution of a 3-D input (Whisper's conv1d, decomposed) as conv1d: it is
// that when it is not transposed and has no output padding; the rest stays for the vision pass,
// which imports the 2-D ones and refuses the others with their reason.
bool is_conv1d_convolution(const Program& p, const Node& n) {
  Expected<std::string> input = tensor_name(find_input(n, "input"), "argument 'input'");
  if (!input) return false;
  auto meta = p.tensor_values.find(*input);
  if (meta == p.tensor_values.end() || meta->second.sizes.size() != 3) return false;
  const Argument* transposed = find_input(n, "transposed");
  if (transposed && !(transposed->kind == Argument::Kind::Bool && !transposed->bools[0])) return false;
  const Argument* output_padding = find_input(n, "output_padding");
  return !output_padding ||
         (output_padding->kind == Argument::Kind::Ints &&
          std::all_of(output_padding->ints.begin(), output_padding->ints.end(), [](int64_t v) { return v == 0; }));
}

bool is_creation(const std::string& t) {
  return t == "aten.arange.start" || t == "aten.arange.start_step" || t == "aten.full.default" ||
         t == "aten.zeros.default" || t == "aten.ones.default";
}

// The rewrite of one node, appended to `out.nodes` (new values' metadata to
// `out.tensor_values`); dropped nodes append nothing.
Status convert(const Program& p, Node n, Program& out, State& st) {
  Renames& renames = st.renames;
  std::string t = short_target(n.target);
  if (t == "aten.conv1d.default") return conv1d_as_conv2d(out, n, out.nodes);
  if (t == "aten.convolution.default" && is_conv1d_convolution(out, n)) {
    erase_input(n, "transposed");
    erase_input(n, "output_padding");
    return conv1d_as_conv2d(out, n, out.nodes);
  }
  if (is_inplace(t)) return functionalize_inplace(p, std::move(n), t, out, st);
  if (t == "aten.view.default") KILN_TRY(view_of_relaid_value(n, st));
  if (t == "aten._assert_tensor_metadata.default") return check_asserted_metadata(p, n);
  // dropout in eval mode (train false) is its input, as PyTorch computes it (no draw; in place,
  // it writes the input unchanged); kept, it would hide attention from the fusion patterns
  // (gpt2_eager: softmax -> dropout -> matmul).
  const bool dropout = t == "aten.dropout.default" || t == "aten.dropout_.default";
  const Argument* train = dropout ? find_input(n, "train") : nullptr;
  const bool eval_dropout = train && train->kind == Argument::Kind::Bool && !train->bools[0];
  if (t == "aten.alias.default" || t == "aten.detach.default" || eval_dropout) {
    const char* operand = t == "aten.dropout.default" ? "input" : "self";  // dropout_'s is self
    KILN_ASSIGN_OR_RETURN(std::string in,
                          tensor_name(find_input(n, operand), "argument '" + std::string(operand) + "'"));
    KILN_ASSIGN_OR_RETURN(std::string result, tensor_name(n.outputs.empty() ? nullptr : &n.outputs[0], "its output"));
    renames[result] = in;
    return Status::ok();
  }
  if (t == "aten.cross_entropy_loss.default") KILN_TRY(loss_reduction(n, "torch.ops.aten.cross_entropy.default"));
  if (t == "aten.nll_loss.default") KILN_TRY(loss_reduction(n, "torch.ops.aten.nll_loss.default"));
  if (t == "aten.copy.default") {
    // copy(self, src), functional: src when it has self's type (the core form of copy_).
    KILN_ASSIGN_OR_RETURN(std::string self, tensor_name(find_input(n, "self"), "argument 'self'"));
    KILN_ASSIGN_OR_RETURN(std::string result, tensor_name(n.outputs.empty() ? nullptr : &n.outputs[0], "its output"));
    return out_of_place(p, n, "aten.copy_.default", self, result, out.nodes, st);
  }
  if (t == "aten.pad.default") KILN_TRY(pad_as_constant_pad(n));
  if (t == "aten.split_with_sizes.default") return split_into_slices(n, out.nodes);
  if (t == "aten.unbind.int") return unbind_into_selects(n, out.nodes);
  if (t == "aten.arange.default") {
    n.target = "torch.ops.aten.arange.start";
    n.inputs.insert(n.inputs.begin(), NamedArgument{"start", int_arg(0)});
    t = "aten.arange.start";
  }
  if (t == "aten.new_ones.default" || t == "aten.new_zeros.default" || t == "aten.new_full.default") {
    erase_input(n, "self");
    t = t == "aten.new_ones.default"    ? "aten.ones.default"
        : t == "aten.new_zeros.default" ? "aten.zeros.default"
                                        : "aten.full.default";
    n.target = "torch.ops." + t;
  }
  if (is_creation(t)) {
    KILN_ASSIGN_OR_RETURN(int dtype, result_dtype(p, n));
    set_input(n, "dtype", dtype_arg(dtype));
  }
  if (t == "aten.type_as.default") {
    KILN_ASSIGN_OR_RETURN(int dtype, result_dtype(p, n));
    erase_input(n, "other");
    set_input(n, "dtype", dtype_arg(dtype));
    n.target = "torch.ops.aten._to_copy.default";
  }
  out.nodes.push_back(std::move(n));
  return Status::ok();
}

void rename_uses(Argument& a, const Renames& renames) {
  for (std::optional<std::string>& name : a.names)
    if (name) name = renamed(*name, renames);
}

}  // namespace

Expected<Program> convert_text_nodes(const Program& program) {
  Program out = program;
  out.nodes.clear();
  State st;
  for (size_t i = 0; i < program.nodes.size(); ++i)
    for (const NamedArgument& in : program.nodes[i].inputs)
      for (const std::optional<std::string>& name : in.arg.names)
        if (name) st.last_use[*name] = i;
  for (const OutputSpec& spec : program.output_specs) st.last_use[spec.arg] = SIZE_MAX;
  for (const Node& original : program.nodes) {
    Node n = original;
    for (NamedArgument& in : n.inputs) rename_uses(in.arg, st.renames);
    std::string t = short_target(original.target);
    if (makes_views(t) && !n.inputs.empty() && !n.inputs[0].arg.names.empty() && n.inputs[0].arg.names[0]) {
      const std::string& of = *n.inputs[0].arg.names[0];
      std::string root = st.roots.count(of) ? st.roots.at(of) : of;
      for (const Argument& o : n.outputs)
        for (const std::optional<std::string>& name : o.names)
          if (name) st.roots[*name] = root;
      if ((t == "aten.slice.Tensor" || t == "aten.select.int") && !n.outputs.empty() && !n.outputs[0].names.empty() &&
          n.outputs[0].names[0])
        st.slices[*n.outputs[0].names[0]] = n;
    }
    Status converted = convert(program, std::move(n), out, st);
    if (!converted) return make_error("node %", original.name, " (", t, "): ", converted.error().message());
    for (const Argument& o : original.outputs)
      for (const std::optional<std::string>& name : o.names)
        if (name && !st.producers.count(*name)) st.producers[*name] = t;
    ++st.index;
  }
  const Renames& renames = st.renames;
  for (Argument& a : out.outputs) rename_uses(a, renames);
  for (OutputSpec& spec : out.output_specs) spec.arg = renamed(spec.arg, renames);
  return out;
}

}  // namespace kiln::pt2
