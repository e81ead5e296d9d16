// Following view ops (trait View: the result shares its operand 0's storage) back to the
// value that owns the storage: a graph input, or the result of a node that is not a view.
#pragma once

#include "ir/graph.h"

namespace kiln {

inline const Value* storage_root(const Value* v) {
  while (v && v->producer() && v->producer()->info().has(kView)) v = v->producer()->operand(0).value;
  return v;
}

inline Value* storage_root(Value* v) { return const_cast<Value*>(storage_root(static_cast<const Value*>(v))); }

}  // namespace kiln
