// Shape rules of the view ops: reshape/view (one -1 inferred), permute, transpose, t, expand,
// squeeze, unsqueeze, flatten, slice, select, narrow, split, chunk and as_strided, and of the
// view inverses slice_scatter, select_scatter and as_strided_scatter. Symbolic dims pass
// through where the rule does not need their value; where it does, the rule says so.
#include <algorithm>
#include <string>

#include "ops/strided_geometry.h"
#include "ops/type_rules.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

// Product of the static dims of `s` and its symbolic dims.
struct SplitProduct {
  int64_t fixed = 1;
  std::vector<Dim> symbols;
};
SplitProduct split_product(const std::vector<Dim>& dims) {
  SplitProduct p;
  for (const Dim& d : dims) {
    if (d.is_static())
      p.fixed *= d.value();
    else
      p.symbols.push_back(d);
  }
  return p;
}

Expected<std::vector<Shape>> one(Shape s) { return std::vector<Shape>{std::move(s)}; }

Dim product(const std::vector<Dim>& dims) {
  Dim p = 1;
  for (const Dim& d : dims) p = p * d;
  return p;
}

std::string sym_ints_str(const std::vector<SymExpr>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].to_string();
  return s + "]";
}

// reshape/view to sizes that name symbols ([B, T, -1, 16]): each size is its expression, and
// the element counts must agree; where only the symbols' values can tell, a guard says so.
Expected<std::vector<Shape>> reshape_to_symbolic(const TypeCall& call, const std::vector<SymExpr>& target) {
  const Shape& in = operand_type(call, 0).shape;
  int infer_at = -1;
  std::vector<SymExpr> known_factors;
  for (size_t i = 0; i < target.size(); ++i) {
    const SymExpr& t = target[i];
    if (t.is_constant() && t.constant_value() == -1) {
      if (infer_at >= 0)
        return make_error(call.name(), ": only one dimension can be inferred, got shape ", sym_ints_str(target));
      infer_at = static_cast<int>(i);
      continue;
    }
    if (t.is_constant() && t.constant_value() < 0)
      return make_error(call.name(), ": invalid shape dimension ", t.constant_value(), " in ", sym_ints_str(target));
    known_factors.push_back(t);
  }
  const SymExpr known = SymExpr::product(known_factors);
  const SymExpr numel = product(in.dims()).expr();
  std::vector<Dim> out;
  for (const SymExpr& t : target) out.push_back(Dim(t));
  if (infer_at < 0) {
    if (!(known == numel)) {
      if (known.is_constant() && numel.is_constant())
        return make_error(call.name(), ": shape '", sym_ints_str(target), "' is invalid for input of size ",
                          numel.to_string());
      call.assume(ShapeGuard{numel, GuardRel::Eq, known});
    }
    return one(Shape(std::move(out)));
  }
  if (known.is_constant() && known.constant_value() == 0)
    return make_error(call.name(), ": cannot infer -1 next to a 0 size (input ", in.to_string(), ", shape ",
                      sym_ints_str(target), ")");
  if (std::optional<SymExpr> q = SymExpr::exact_div(numel, known)) {
    out[static_cast<size_t>(infer_at)] = Dim(*q);
  } else if (known.is_constant()) {
    Dim d = Dim(SymExpr::floor_div(numel, known.constant_value()));
    call.assume(ShapeGuard{numel, GuardRel::Eq, d.expr() * known});
    out[static_cast<size_t>(infer_at)] = d;
  } else {
    return make_error(call.name(), ": cannot infer the -1 of shape ", sym_ints_str(target), " for input ",
                      in.to_string(), ": ", numel.to_string(), " is not a multiple of ", known.to_string(),
                      " for every value of the symbols");
  }
  return one(Shape(std::move(out)));
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_reshape(const TypeCall& call) {
  const bool is_view = call.op() == OpKind::View;
  const AttrValue& target_attr = call.attr(is_view ? "size" : "shape");
  if (target_attr.is_sym_ints()) return reshape_to_symbolic(call, target_attr.as_sym_ints());
  const std::vector<int64_t>& target = target_attr.as_ints();
  const Shape& in = operand_type(call, 0).shape;
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (infer_at >= 0)
        return make_error(call.name(), ": only one dimension can be inferred, got shape ", ints_str(target));
      infer_at = static_cast<int>(i);
    } else if (target[i] < 0) {
      return make_error(call.name(), ": invalid shape dimension ", target[i], " in ", ints_str(target));
    } else {
      known *= target[i];
    }
  }
  std::vector<Dim> out(target.begin(), target.end());
  SplitProduct p = split_product(in.dims());
  if (!p.symbols.empty()) {
    // The element count is an expression; the static target sizes must account for it.
    const SymExpr numel = product(in.dims()).expr();
    if (infer_at < 0) {
      // fixed * (product of the symbolic dims) == known, stated as product == known / fixed.
      const SymExpr symbolic = product(p.symbols).expr();
      if (p.fixed == 0 ? known != 0 : known % p.fixed != 0)
        return make_error(call.name(), ": shape '", ints_str(target), "' is invalid for input of size ",
                          numel.to_string());
      if (p.fixed != 0) call.assume(ShapeGuard{symbolic, GuardRel::Eq, SymExpr(known / p.fixed)});
      return one(Shape(std::move(out)));
    }
    if (known == 0)
      return make_error(call.name(), ": cannot infer -1 next to a 0 size (input ", in.to_string(), ", shape ",
                        ints_str(target), ")");
    if (std::optional<SymExpr> q = SymExpr::exact_div(numel, SymExpr(known))) {
      out[static_cast<size_t>(infer_at)] = Dim(*q);
    } else {
      // Not divisible symbolically: floor(numel / known), assuming no remainder.
      Dim d = Dim(SymExpr::floor_div(numel, known));
      call.assume(ShapeGuard{numel, GuardRel::Eq, d.expr() * SymExpr(known)});
      out[static_cast<size_t>(infer_at)] = d;
    }
    return one(Shape(std::move(out)));
  }
  const int64_t numel = p.fixed;
  if (infer_at >= 0) {
    if (known == 0 || numel % known != 0)
      return make_error(call.name(), ": shape '", ints_str(target), "' is invalid for input of size ", numel);
    out[static_cast<size_t>(infer_at)] = numel / known;
  } else if (known != numel) {
    return make_error(call.name(), ": shape '", ints_str(target), "' is invalid for input of size ", numel);
  }
  return one(Shape(std::move(out)));
}

Expected<std::vector<Shape>> shape_rule_permute(const TypeCall& call) {
  const Shape& in = operand_type(call, 0).shape;
  const std::vector<int64_t>& dims = call.attr_ints("dims");
  if (static_cast<int>(dims.size()) != in.rank())
    return make_error("permute: number of dims in ", ints_str(dims), " does not match the input's rank ", in.rank());
  std::vector<bool> seen(dims.size(), false);
  std::vector<Dim> out;
  for (int64_t d : dims) {
    KILN_ASSIGN_OR_RETURN(int w, wrap_dim_or_error("permute", d, in.rank()));
    if (seen[static_cast<size_t>(w)]) return make_error("permute: repeated dim ", d, " in ", ints_str(dims));
    seen[static_cast<size_t>(w)] = true;
    out.push_back(in[w]);
  }
  return one(Shape(std::move(out)));
}

Expected<std::vector<Shape>> shape_rule_transpose(const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  if (s.rank() == 0) {
    KILN_TRY(wrap_dim_or_error("transpose", call.attr_int("dim0"), 0));
    KILN_TRY(wrap_dim_or_error("transpose", call.attr_int("dim1"), 0));
    return one(s);
  }
  KILN_ASSIGN_OR_RETURN(int a, wrap_dim_or_error("transpose", call.attr_int("dim0"), s.rank()));
  KILN_ASSIGN_OR_RETURN(int b, wrap_dim_or_error("transpose", call.attr_int("dim1"), s.rank()));
  std::swap(s[a], s[b]);
  return one(s);
}

Expected<std::vector<Shape>> shape_rule_t(const TypeCall& call) {
  const Shape& s = operand_type(call, 0).shape;
  if (s.rank() > 2) return make_error("t: expects a tensor with <= 2 dimensions, but self is ", s.rank(), "D");
  if (s.rank() < 2) return one(s);
  return one(Shape({s[1], s[0]}));
}

namespace {

// expand to sizes that name symbols ([B, -1, T, T]): -1 keeps the input's dim, a dim of 1
// takes the size, and any other dim must equal it (a guard where only the values can tell).
Expected<std::vector<Shape>> expand_to_symbolic(const TypeCall& call, const std::vector<SymExpr>& size) {
  const Shape& in = operand_type(call, 0).shape;
  const int rank = static_cast<int>(size.size());
  if (rank < in.rank())
    return make_error("expand: the number of sizes provided (", rank,
                      ") must be greater or equal to the number of dimensions in the tensor (", in.rank(), ")");
  std::vector<Dim> out;
  const int lead = rank - in.rank();
  for (int i = 0; i < rank; ++i) {
    const SymExpr& want = size[static_cast<size_t>(i)];
    const bool keep = want.is_constant() && want.constant_value() == -1;
    if (want.is_constant() && want.constant_value() < -1)
      return make_error("expand: invalid size ", want.constant_value(), " in ", sym_ints_str(size));
    if (i < lead) {
      if (keep)
        return make_error("expand: the expanded size -1 is not allowed in a leading, non-existing dimension ", i);
      out.push_back(Dim(want));
      continue;
    }
    const Dim& have = in[i - lead];
    if (keep || have.expr() == want) {
      out.push_back(have);
    } else if (have == 1 || have.is_symbolic() || !want.is_constant()) {
      // A static size other than 1 against a symbol: they must be equal when the graph runs.
      if (!(have == 1)) call.assume(ShapeGuard{have.expr(), GuardRel::Eq, want});
      out.push_back(Dim(want));
    } else {
      return make_error("expand: the expanded size of the tensor (", want.to_string(),
                        ") must match the existing size (", have.to_string(), ") at non-singleton dimension ", i,
                        ".  Target sizes: ", sym_ints_str(size), ".  Tensor sizes: ", in.to_string());
    }
  }
  return one(Shape(std::move(out)));
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_expand(const TypeCall& call) {
  const Shape& in = operand_type(call, 0).shape;
  if (call.attr("size").is_sym_ints()) return expand_to_symbolic(call, call.attr("size").as_sym_ints());
  const std::vector<int64_t>& size = call.attr_ints("size");
  const int rank = static_cast<int>(size.size());
  if (rank < in.rank())
    return make_error("expand: the number of sizes provided (", rank,
                      ") must be greater or equal to the number of dimensions in the tensor (", in.rank(), ")");
  std::vector<Dim> out;
  const int lead = rank - in.rank();
  for (int i = 0; i < rank; ++i) {
    const int64_t want = size[static_cast<size_t>(i)];
    if (i < lead) {
      if (want < 0)
        return make_error("expand: the expanded size -1 is not allowed in a leading, non-existing dimension ", i);
      out.push_back(want);
      continue;
    }
    const Dim& have = in[i - lead];
    if (want == -1 || have == want || (have.is_symbolic() && want >= 0)) {
      out.push_back(want == -1 ? have : Dim(want));
    } else if (have == 1 && want >= 0) {
      out.push_back(want);
    } else {
      return make_error("expand: the expanded size of the tensor (", want, ") must match the existing size (",
                        have.to_string(), ") at non-singleton dimension ", i, ".  Target sizes: ", ints_str(size),
                        ".  Tensor sizes: ", in.to_string());
    }
  }
  return one(Shape(std::move(out)));
}

Expected<std::vector<Shape>> shape_rule_squeeze(const TypeCall& call) {
  const Shape& in = operand_type(call, 0).shape;
  std::vector<bool> drop(static_cast<size_t>(in.rank()), false);
  if (auto dims = call.attr_opt_ints("dim")) {
    for (int64_t d : *dims) {
      KILN_ASSIGN_OR_RETURN(int w, wrap_dim_or_error("squeeze", d, in.rank()));
      if (in.rank() == 0) continue;
      if (in[w].is_symbolic())
        return make_error("squeeze: cannot tell whether symbolic dim ", in[w].symbol_name(), " (dim ", d, ") is 1");
      drop[static_cast<size_t>(w)] = in[w] == 1;
    }
  } else {
    for (int i = 0; i < in.rank(); ++i) drop[static_cast<size_t>(i)] = in[i] == 1;
  }
  std::vector<Dim> out;
  for (int i = 0; i < in.rank(); ++i)
    if (!drop[static_cast<size_t>(i)]) out.push_back(in[i]);
  return one(Shape(std::move(out)));
}

Expected<std::vector<Shape>> shape_rule_unsqueeze(const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("unsqueeze", call.attr_int("dim"), s.rank() + 1));
  s.dims().insert(s.dims().begin() + d, Dim(1));
  return one(s);
}

Expected<std::vector<Shape>> shape_rule_flatten(const TypeCall& call) {
  const Shape& in = operand_type(call, 0).shape;
  if (in.rank() == 0) {
    KILN_TRY(wrap_dim_or_error("flatten", call.attr_int("start_dim"), 0));
    KILN_TRY(wrap_dim_or_error("flatten", call.attr_int("end_dim"), 0));
    return one(Shape({1}));
  }
  KILN_ASSIGN_OR_RETURN(int start, wrap_dim_or_error("flatten", call.attr_int("start_dim"), in.rank()));
  KILN_ASSIGN_OR_RETURN(int end, wrap_dim_or_error("flatten", call.attr_int("end_dim"), in.rank()));
  if (start > end) return make_error("flatten: start_dim (", start, ") cannot come after end_dim (", end, ")");
  std::vector<Dim> merged(in.dims().begin() + start, in.dims().begin() + end + 1);
  Dim d = product(merged);
  std::vector<Dim> out(in.dims().begin(), in.dims().begin() + start);
  out.push_back(d);
  out.insert(out.end(), in.dims().begin() + end + 1, in.dims().end());
  return one(Shape(std::move(out)));
}

namespace {

// The shape of self[dim, start:end:step] (slice, and the slice slice_scatter writes);
// errors start with `op`.
Expected<Shape> slice_shape(std::string_view op, const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  if (s.rank() == 0) return make_error(op, ": cannot be applied to a 0-dim tensor");
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error(op, call.attr_int("dim"), s.rank()));
  const int64_t step = call.attr_int("step");
  if (step <= 0) return make_error(op, ": step must be positive, got ", step);
  auto start = call.attr_opt_int("start");
  auto end = call.attr_opt_int("end");
  if (s[d].is_symbolic()) {
    // Bounds resolve against T without clamping, assuming each lies inside [0, T] and
    // end >= start (guards): x[:, :-1] gives T-1 with T >= 1.
    const SymExpr t = s[d].expr();
    auto bound = [&](std::optional<int64_t> b, const SymExpr& dflt) -> SymExpr {
      if (!b || *b == INT64_MAX) return dflt;
      if (*b == 0) return SymExpr(0);
      call.assume(ShapeGuard{t, GuardRel::Ge, SymExpr(*b >= 0 ? *b : -*b)});
      return *b >= 0 ? SymExpr(*b) : t + SymExpr(*b);
    };
    const SymExpr lo = bound(start, SymExpr(0)), hi = bound(end, t);
    const SymExpr len = hi - lo;
    if (len.is_constant()) {
      s[d] = Dim(len.constant_value() > 0 ? (len.constant_value() + step - 1) / step : 0);
      return s;
    }
    if (!lo.is_constant() || lo.constant_value() != 0) call.assume(ShapeGuard{hi, GuardRel::Ge, lo});
    s[d] = Dim(SymExpr::floor_div(len + SymExpr(step - 1), step));
    return s;
  }
  s[d] = slice_bounds(s[d].value(), start, end, step).length;
  return s;
}

// The shape of self.select(dim, index) (select, and the slice select_scatter writes).
Expected<Shape> select_shape(std::string_view op, const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  if (s.rank() == 0) return make_error(op, ": cannot be applied to a 0-dim tensor");
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error(op, call.attr_int("dim"), s.rank()));
  const int64_t index = call.attr_int("index");
  if (s[d].is_static() && (index < -s[d].value() || index >= s[d].value()))
    return make_error(op, ": index ", index, " out of range for tensor of size ", s.to_string(), " at dimension ", d);
  s.dims().erase(s.dims().begin() + d);
  return s;
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_slice(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(Shape s, slice_shape("slice", call));
  return one(std::move(s));
}

Expected<std::vector<Shape>> shape_rule_select(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(Shape s, select_shape("select", call));
  return one(std::move(s));
}

Expected<std::vector<Shape>> shape_rule_narrow(const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  if (s.rank() == 0) return make_error("narrow: cannot be applied to a 0-dim tensor");
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("narrow", call.attr_int("dim"), s.rank()));
  const int64_t length = call.attr_int("length");
  int64_t start = call.attr_int("start");
  if (length < 0) return make_error("narrow: length must be non-negative, got ", length);
  if (s[d].is_static()) {
    const int64_t size = s[d].value();
    if (start < -size || start > size)
      return make_error("narrow: start (", start, ") out of range for dimension ", d, " of size ", size);
    if (start < 0) start += size;
    if (start + length > size)
      return make_error("narrow: start (", start, ") + length (", length, ") exceeds dimension size (", size, ")");
  }
  s[d] = length;
  return one(s);
}

namespace {

// Shapes of the pieces of split/chunk along `d`.
Expected<std::vector<Shape>> pieces(const TypeCall& call, const std::vector<int64_t>& sizes, int d) {
  std::vector<Shape> out;
  for (int64_t n : sizes) {
    Shape s = operand_type(call, 0).shape;
    s[d] = n;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_split(const TypeCall& call) {
  const Shape& s = operand_type(call, 0).shape;
  if (s.rank() == 0) return make_error("split: cannot be applied to a 0-dim tensor");
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("split", call.attr_int("dim"), s.rank()));
  KILN_ASSIGN_OR_RETURN(int64_t size, static_dim("split", s[d], "the split dim"));
  const int64_t split_size = call.attr_int("split_size");
  if (split_size < 0) return make_error("split: split_size must be non-negative, got ", split_size);
  if (split_size == 0 && size != 0)
    return make_error("split: split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  return pieces(call, split_sizes(size, split_size), d);
}

Expected<std::vector<Shape>> shape_rule_chunk(const TypeCall& call) {
  const Shape& s = operand_type(call, 0).shape;
  if (s.rank() == 0) return make_error("chunk: cannot be applied to a 0-dim tensor");
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("chunk", call.attr_int("dim"), s.rank()));
  KILN_ASSIGN_OR_RETURN(int64_t size, static_dim("chunk", s[d], "the chunked dim"));
  const int64_t chunks = call.attr_int("chunks");
  if (chunks <= 0) return make_error("chunk: expects `chunks` to be greater than 0, got: ", chunks);
  return pieces(call, chunk_sizes(size, chunks), d);
}

namespace {

// as_strided's attributes: sizes and strides of one length, none negative.
Status check_strided_attrs(std::string_view op, const TypeCall& call) {
  const std::vector<int64_t>& size = call.attr_ints("size");
  const std::vector<int64_t>& stride = call.attr_ints("stride");
  if (size.size() != stride.size())
    return make_error(op, ": mismatch in length of strides and shape (size ", ints_str(size), ", stride ",
                      ints_str(stride), ")");
  for (int64_t n : size)
    if (n < 0) return make_error(op, ": negative size ", n, " in ", ints_str(size));
  for (int64_t n : stride)
    if (n < 0) return make_error(op, ": negative strides are not supported, got ", ints_str(stride));
  if (auto offset = call.attr_opt_int("storage_offset"); offset && *offset < 0)
    return make_error(op, ": negative storage offset ", *offset);
  return Status::ok();
}

// The scatter ops' src (operand 1) must have exactly the shape of the slice it replaces.
Status check_src_shape(std::string_view op, const TypeCall& call, const Shape& slice) {
  const Shape& src = operand_type(call, 1).shape;
  bool same = src.rank() == slice.rank();
  for (int i = 0; same && i < src.rank(); ++i)
    same = src[i].is_symbolic() || slice[i].is_symbolic() || src[i] == slice[i];
  if (same) return Status::ok();
  return make_error(op, ": expected src to have a size equal to the slice of self. src size = ", src.to_string(),
                    ", slice size = ", slice.to_string());
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_as_strided(const TypeCall& call) {
  KILN_TRY(check_strided_attrs("as_strided", call));
  const std::vector<int64_t>& size = call.attr_ints("size");
  return one(Shape(std::vector<Dim>(size.begin(), size.end())));
}

Expected<std::vector<Shape>> shape_rule_slice_scatter(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(Shape slice, slice_shape("slice_scatter", call));
  KILN_TRY(check_src_shape("slice_scatter", call, slice));
  return one(operand_type(call, 0).shape);
}

Expected<std::vector<Shape>> shape_rule_select_scatter(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(Shape slice, select_shape("select_scatter", call));
  KILN_TRY(check_src_shape("select_scatter", call, slice));
  return one(operand_type(call, 0).shape);
}

Expected<std::vector<Shape>> shape_rule_as_strided_scatter(const TypeCall& call) {
  KILN_TRY(check_strided_attrs("as_strided_scatter", call));
  const std::vector<int64_t>& size = call.attr_ints("size");
  KILN_TRY(check_src_shape("as_strided_scatter", call, Shape(std::vector<Dim>(size.begin(), size.end()))));
  const Shape& self = operand_type(call, 0).shape;
  // The result is a packed copy of self, so the geometry must stay inside self's elements.
  if (self.is_static()) {
    const int64_t need =
        strided_storage_extent(size, call.attr_ints("stride"), call.attr_opt_int("storage_offset").value_or(0));
    if (need > self.numel())
      return make_error("as_strided_scatter: size ", ints_str(size), ", stride ", ints_str(call.attr_ints("stride")),
                        " and storage offset ", call.attr_opt_int("storage_offset").value_or(0), " reach ", need,
                        " elements, but self ", self.to_string(), " has ", self.numel());
  }
  return one(self);
}

}  // namespace kiln
