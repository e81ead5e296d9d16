#include "passes/functionalize_views.h"

#include "core/tensor.h"
#include "ops/kernel_index_util.h"
#include "ops/op_call.h"
#include "ops/strided_geometry.h"
#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln {

Expected<std::vector<Value*>> NodeMaker::make(OpKind op, std::vector<Operand> operands, AttrMap attrs) {
  std::vector<TypeOperand> types;
  for (const Operand& o : operands) {
    TypeOperand t;
    if (o.is_value())
      t.type = o.value->type();
    else
      t.literal = o.literal;
    types.push_back(std::move(t));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> result_types, infer_types(TypeCall(op, attrs, types)));
  Node* n = g_.insert_before(before_, {op, std::move(operands), std::move(attrs), std::move(result_types), {}, loc_});
  made_.push_back(n);
  return n->results();
}

Expected<Value*> NodeMaker::make1(OpKind op, std::vector<Operand> operands, AttrMap attrs) {
  KILN_ASSIGN_OR_RETURN(std::vector<Value*> results, make(op, std::move(operands), std::move(attrs)));
  KILN_CHECK(results.size() == 1) << op_info(op).name() << " made " << results.size() << " results";
  return results[0];
}

namespace {

constexpr const char* kOverlapError =
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation.";

Expected<std::vector<int64_t>> static_sizes_of(const ViewStep& step, const Value* v) {
  const Shape& shape = v->type().shape;
  if (!shape.is_static())
    return make_error("functionalize: writing through ", op_info(step.op).name(), " of a tensor of symbolic shape ",
                      shape.to_string(), " is not supported");
  return shape.sizes();
}

// Start and end along the dim of the piece that split/chunk/narrow takes.
struct Range {
  int64_t start, end;
};

Range piece_range(const ViewStep& step, const std::vector<int64_t>& parent_sizes, int dim) {
  const OpCallBase call(step.op, step.attrs);
  const int64_t size = parent_sizes[static_cast<size_t>(dim)];
  if (step.op == OpKind::Narrow) {
    int64_t start = call.attr_int("start");
    if (start < 0) start += size;
    return Range{start, start + call.attr_int("length")};
  }
  const std::vector<int64_t> pieces = step.op == OpKind::Split ? split_sizes(size, call.attr_int("split_size"))
                                                               : chunk_sizes(size, call.attr_int("chunks"));
  int64_t start = 0;
  for (int i = 0; i < step.result_index; ++i) start += pieces[static_cast<size_t>(i)];
  return Range{start, start + pieces[static_cast<size_t>(step.result_index)]};
}

}  // namespace

Layout packed_layout(const std::vector<int64_t>& sizes) { return {sizes, contiguous_strides(sizes), 0}; }

std::optional<Layout> view_layout(const ViewStep& step, const Layout& parent,
                                  const std::vector<int64_t>& result_sizes) {
  const OpCallBase call(step.op, step.attrs);
  const int rank = static_cast<int>(parent.sizes.size());
  Layout out = parent;
  auto dim_attr = [&](const char* name) { return static_cast<size_t>(*wrap_dim(call.attr_int(name), rank)); };
  // Elements start, start + step, ... of dim d.
  auto narrow = [&](size_t d, int64_t start, int64_t length, int64_t every) {
    if (length > 0) out.offset += start * out.strides[d];
    out.sizes[d] = length;
    out.strides[d] *= every;
  };
  switch (step.op) {
    case OpKind::Reshape:
    case OpKind::View:
    case OpKind::Flatten: {
      auto strides = view_strides(parent.sizes, parent.strides, result_sizes);
      if (!strides) return std::nullopt;
      return Layout{result_sizes, *strides, parent.offset};
    }
    case OpKind::Permute: {
      out.sizes.clear();
      out.strides.clear();
      for (int64_t d : call.attr_ints("dims")) {
        const auto w = static_cast<size_t>(*wrap_dim(d, rank));
        out.sizes.push_back(parent.sizes[w]);
        out.strides.push_back(parent.strides[w]);
      }
      return out;
    }
    case OpKind::Transpose:
      if (rank > 0) {
        std::swap(out.sizes[dim_attr("dim0")], out.sizes[dim_attr("dim1")]);
        std::swap(out.strides[dim_attr("dim0")], out.strides[dim_attr("dim1")]);
      }
      return out;
    case OpKind::T:
      if (rank == 2) {
        std::swap(out.sizes[0], out.sizes[1]);
        std::swap(out.strides[0], out.strides[1]);
      }
      return out;
    case OpKind::Expand: {
      const size_t lead = result_sizes.size() - parent.sizes.size();
      out.sizes = result_sizes;
      out.strides.assign(result_sizes.size(), 0);
      for (size_t i = 0; i < parent.sizes.size(); ++i)
        out.strides[lead + i] = parent.sizes[i] == result_sizes[lead + i] ? parent.strides[i] : 0;
      return out;
    }
    case OpKind::Squeeze:
    case OpKind::Unsqueeze: {
      // Both keep the strides of the dims that stay; a new unit dim gets torch's stride.
      out.sizes = result_sizes;
      out.strides.clear();
      if (step.op == OpKind::Unsqueeze) {
        const auto d = static_cast<size_t>(*wrap_dim(call.attr_int("dim"), rank + 1));
        out.strides = parent.strides;
        const int64_t stride = d >= parent.sizes.size() ? 1 : parent.sizes[d] * parent.strides[d];
        out.strides.insert(out.strides.begin() + static_cast<int64_t>(d), stride);
        return out;
      }
      std::vector<bool> drop(parent.sizes.size(), false);
      if (auto dims = call.attr_opt_ints("dim")) {
        for (int64_t d : *dims)
          if (rank > 0)
            drop[static_cast<size_t>(*wrap_dim(d, rank))] = parent.sizes[static_cast<size_t>(*wrap_dim(d, rank))] == 1;
      } else {
        for (size_t i = 0; i < drop.size(); ++i) drop[i] = parent.sizes[i] == 1;
      }
      for (size_t i = 0; i < drop.size(); ++i)
        if (!drop[i]) out.strides.push_back(parent.strides[i]);
      return out;
    }
    case OpKind::Slice: {
      const size_t d = dim_attr("dim");
      const int64_t every = call.attr_int("step");
      const SliceBounds b = slice_bounds(parent.sizes[d], call.attr_opt_int("start"), call.attr_opt_int("end"), every);
      narrow(d, b.start, b.length, every);
      return out;
    }
    case OpKind::Select: {
      const size_t d = dim_attr("dim");
      int64_t index = call.attr_int("index");
      if (index < 0) index += parent.sizes[d];
      out.offset += index * parent.strides[d];
      out.sizes.erase(out.sizes.begin() + static_cast<int64_t>(d));
      out.strides.erase(out.strides.begin() + static_cast<int64_t>(d));
      return out;
    }
    case OpKind::Narrow:
    case OpKind::Split:
    case OpKind::Chunk: {
      const size_t d = dim_attr("dim");
      const Range r = piece_range(step, parent.sizes, static_cast<int>(d));
      narrow(d, r.start, r.end - r.start, 1);
      return out;
    }
    case OpKind::AsStrided:
      return Layout{call.attr_ints("size"), call.attr_ints("stride"),
                    call.attr_opt_int("storage_offset").value_or(parent.offset)};
    default: break;
  }
  KILN_CHECK(false) << "functionalize: no layout rule for " << op_info(step.op).name();
  return std::nullopt;
}

namespace {

// Whether the interpreter holds `v` in its own packed storage: graph inputs (a precondition)
// and results of ops that allocate (not views, in-place or higher-order results).
bool known_packed(const Value* v) {
  if (v->is_input()) return true;
  const OpInfo& info = v->producer()->info();
  return !info.has(kView) && !info.has(kInplace) && !info.has(kHigherOrder);
}

}  // namespace

Expected<Value*> replay_view(NodeMaker& m, const ViewStep& step, Value* parent) {
  if (step.op == OpKind::AsStrided && !known_packed(parent)) {
    KILN_ASSIGN_OR_RETURN(Value * packed, m.make1(OpKind::Contiguous, {parent}));
    return m.make1(OpKind::AsStrided, {packed}, step.attrs);
  }
  KILN_ASSIGN_OR_RETURN(std::vector<Value*> results, m.make(step.op, {parent}, step.attrs));
  return results[static_cast<size_t>(step.result_index)];
}

Expected<Value*> scatter_into_parent(NodeMaker& m, const ViewStep& step, Value* parent, Value* updated) {
  const OpCallBase call(step.op, step.attrs);
  const int rank = parent->type().shape.rank();
  switch (step.op) {
    case OpKind::Expand: {
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, static_sizes_of(step, parent));
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> view_sizes, static_sizes_of(step, updated));
      if (numel_of(sizes) != numel_of(view_sizes)) return make_error(kOverlapError);
      return m.make1(OpKind::Reshape, {updated}, {{"shape", sizes}});
    }
    case OpKind::Reshape:
    case OpKind::View:
    case OpKind::Flatten:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze: {
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, static_sizes_of(step, parent));
      return m.make1(OpKind::Reshape, {updated}, {{"shape", sizes}});
    }
    case OpKind::Permute: {
      const std::vector<int64_t>& dims = call.attr_ints("dims");
      AttrValue::Ints inverse(dims.size());
      for (int i = 0; i < rank; ++i) inverse[static_cast<size_t>(*wrap_dim(dims[static_cast<size_t>(i)], rank))] = i;
      return m.make1(OpKind::Permute, {updated}, {{"dims", inverse}});
    }
    case OpKind::Transpose:
    case OpKind::T: return m.make1(step.op, {updated}, step.attrs);
    case OpKind::Slice: return m.make1(OpKind::SliceScatter, {parent, updated}, step.attrs);
    case OpKind::Select: return m.make1(OpKind::SelectScatter, {parent, updated}, step.attrs);
    case OpKind::Narrow:
    case OpKind::Split:
    case OpKind::Chunk: {
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, static_sizes_of(step, parent));
      const int dim = *wrap_dim(call.attr_int("dim"), rank);
      const Range r = piece_range(step, sizes, dim);
      return m.make1(OpKind::SliceScatter, {parent, updated},
                     {{"dim", int64_t{dim}}, {"start", r.start}, {"end", r.end}});
    }
    case OpKind::AsStrided: {
      if (strided_may_overlap(call.attr_ints("size"), call.attr_ints("stride"))) return make_error(kOverlapError);
      return m.make1(OpKind::AsStridedScatter, {parent, updated}, step.attrs);
    }
    default: break;
  }
  KILN_CHECK(false) << "functionalize: no view inverse for " << op_info(step.op).name();
  return make_error("unreachable");
}

}  // namespace kiln
