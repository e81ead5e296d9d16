// What the attributes of kernel_call / kernel_call_functional mean, decoded once for the type
// rules, the interpreter and functionalization.
//
// `written` lists the argument positions the kernel may write (absent on kernel_call: every
// tensor argument). `views` describes arguments that share one storage, which
// functionalization makes explicit so the functional form can clone it once and keep the
// aliasing the kernel saw in eager execution: per viewed argument, the flat record
//   [arg, group, storage_offset, rank, sizes..., strides...]
// where `group` is the first argument of the same storage. Every member's operand is that
// storage's whole (packed) value, and the kernel sees `as_strided(value, sizes, strides,
// storage_offset)`.
//
// kernel_call_functional returns one result per written unit, in argument order: a written
// argument that is not viewed returns its new value; a group with a written member returns
// its storage's new value once, at the group's first argument.
#pragma once

#include <optional>
#include <vector>

#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

struct KernelArgView {
  int64_t arg = 0;
  int64_t group = 0;  // the first argument of the storage; its operand is the storage
  int64_t storage_offset = 0;
  std::vector<int64_t> sizes, strides;
};

struct KernelCallLayout {
  std::vector<bool> is_tensor;                     // per argument
  std::vector<bool> written;                       // per argument
  std::vector<std::optional<KernelArgView>> view;  // per argument
  std::vector<int64_t> result_args;                // the argument whose operand each result replaces
};

// Decodes and checks the attributes against `is_tensor` (one entry per argument); errors
// name the op and the attribute.
Expected<KernelCallLayout> decode_kernel_call(const OpCallBase& call, std::vector<bool> is_tensor);

// The flat `views` attribute for these records.
std::vector<int64_t> encode_kernel_views(const std::vector<KernelArgView>& views);

}  // namespace kiln
