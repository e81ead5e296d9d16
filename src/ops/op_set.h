// OpSet: a set of ops as a plain value, one bit per row of ops.def. Options that list ops
// (LowerOptions::allowed_mutations) hold one: it copies and compares without allocating, and,
// unlike a std::set member, keeps the options structs trivial to designated-initialize (GCC 12
// warns a false maybe-uninitialized on a std::set inside a braced options value at -O2).
#pragma once

#include <bitset>
#include <cstddef>
#include <initializer_list>

#include "ops/op_kind.h"

namespace kiln {

class OpSet {
 public:
  OpSet() = default;
  OpSet(std::initializer_list<OpKind> ops) {  // NOLINT: implicit, `allowed_mutations = {OpKind::Sum}`
    for (OpKind op : ops) insert(op);
  }

  void insert(OpKind op) { bits_.set(index(op)); }
  bool contains(OpKind op) const { return bits_.test(index(op)); }
  bool empty() const { return bits_.none(); }
  bool operator==(const OpSet& o) const { return bits_ == o.bits_; }

 private:
  static size_t index(OpKind op) { return static_cast<size_t>(op); }
  std::bitset<kNumOps> bits_;
};

}  // namespace kiln
