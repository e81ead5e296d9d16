// Tensor::to_string: PyTorch's tensor printing (torch/_tensor_str.py) with kiln's dtype names.
//   tensor([[1.0000, 2.0000],
//           [3.0000, 4.0000]], dtype=f32)
// Floats print with 4 decimals, or in scientific notation when the nonzero finite magnitudes
// span more than 1000x or reach 1e8 (or fall below 1e-4 for non-integer values); integers
// print without decimals, bools as True/False; every element is right-aligned to the widest.
// Tensors with more than 1000 elements are summarized: each dim longer than 6 shows its first
// and last 3 entries around "...". Unlike torch, the dtype is always printed.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace kiln {

namespace {

constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 80;
constexpr int kPrecision = 4;

std::string format_fixed(double v, bool sci) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), sci ? "%.*e" : "%.*f", kPrecision, v);
  return buf;
}

// Formats the elements of one tensor, padded to a common width.
class Formatter {
 public:
  Formatter(const Tensor& t, const std::vector<int64_t>& shown) : t_(t) {
    if (is_floating(t.dtype())) {
      bool any = false, int_mode = true;
      double lo = 0, hi = 0;
      for (int64_t i : shown) {
        double v = t.item_double(i);
        if (!std::isfinite(v) || v == 0) continue;
        double a = std::fabs(v);
        lo = any ? std::min(lo, a) : a;
        hi = any ? std::max(hi, a) : a;
        any = true;
        int_mode = int_mode && std::ceil(v) == v;
      }
      if (any) sci_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode && lo < 1.0e-4);
    }
    for (int64_t i : shown) width_ = std::max(width_, static_cast<int>(raw(i).size()));
  }

  int width() const { return width_; }
  std::string format(int64_t flat) const {
    std::string s = raw(flat);
    return std::string(static_cast<size_t>(std::max(0, width_ - static_cast<int>(s.size()))), ' ') + s;
  }

 private:
  std::string raw(int64_t flat) const {
    if (t_.dtype() == DType::Bool) return t_.item_int(flat) ? "True" : "False";
    if (is_floating(t_.dtype())) return format_fixed(t_.item_double(flat), sci_);
    return std::to_string(t_.item_int(flat));
  }

  const Tensor& t_;
  bool sci_ = false;
  int width_ = 1;
};

class Printer {
 public:
  explicit Printer(const Tensor& t)
      : t_(t), row_strides_(contiguous_strides(t.sizes())), summarize_(t.numel() > kThreshold) {}

  std::string print(int indent) {
    std::vector<int64_t> shown;
    collect(0, 0, shown);
    Formatter fmt(t_, shown);
    if (t_.dim() == 0) return fmt.format(0);
    return tensor_str(0, 0, indent, fmt);
  }

 private:
  // Indices along `dim` that are printed (all, or the edge items when summarizing).
  std::vector<int64_t> shown_indices(int dim, bool& elided) const {
    int64_t n = t_.sizes()[static_cast<size_t>(dim)];
    std::vector<int64_t> idx;
    elided = summarize_ && n > 2 * kEdgeItems;
    if (!elided) {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  void collect(int dim, int64_t flat, std::vector<int64_t>& out) const {
    if (dim == t_.dim()) {
      out.push_back(flat);
      return;
    }
    bool elided;
    for (int64_t i : shown_indices(dim, elided))
      collect(dim + 1, flat + i * row_strides_[static_cast<size_t>(dim)], out);
  }

  std::string tensor_str(int dim, int64_t flat, int indent, const Formatter& fmt) const {
    bool elided;
    std::vector<int64_t> idx = shown_indices(dim, elided);
    int64_t stride = row_strides_[static_cast<size_t>(dim)];
    int rank = t_.dim();
    std::vector<std::string> parts;
    for (size_t k = 0; k < idx.size(); ++k) {
      if (elided && k == static_cast<size_t>(kEdgeItems)) parts.push_back(dim + 1 == rank ? " ..." : "...");
      int64_t f = flat + idx[k] * stride;
      parts.push_back(dim + 1 == rank ? fmt.format(f) : tensor_str(dim + 1, f, indent + 1, fmt));
    }
    std::string out = "[";
    if (dim + 1 == rank) {
      // A vector: as many elements per line as fit in the line width.
      int per_line = std::max(1, (kLineWidth - indent) / (fmt.width() + 2));
      for (size_t k = 0; k < parts.size(); ++k) {
        if (k > 0)
          out +=
              k % static_cast<size_t>(per_line) == 0 ? ",\n" + std::string(static_cast<size_t>(indent + 1), ' ') : ", ";
        out += parts[k];
      }
    } else {
      std::string sep = "," + std::string(static_cast<size_t>(rank - dim - 1), '\n') +
                        std::string(static_cast<size_t>(indent + 1), ' ');
      for (size_t k = 0; k < parts.size(); ++k) out += (k ? sep : "") + parts[k];
    }
    return out + "]";
  }

  const Tensor& t_;
  std::vector<int64_t> row_strides_;
  bool summarize_;
};

std::string size_text(const std::vector<int64_t>& sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string Tensor::to_string() const {
  if (!defined()) return "Tensor(undefined)";
  if (is_traced()) return "Tensor(traced, " + type().to_string() + ")";
  require_host("to_string");
  std::string suffix = ", dtype=" + std::string(dtype_name(dtype_)) + ")";
  if (numel() == 0) {
    std::string size = sizes_.size() == 1 ? "" : ", size=" + size_text(sizes_);
    return "tensor([]" + size + suffix;
  }
  const std::string prefix = "tensor(";
  return prefix + Printer(*this).print(static_cast<int>(prefix.size())) + suffix;
}

}  // namespace kiln
