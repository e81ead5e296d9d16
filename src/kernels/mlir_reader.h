// A reader for MLIR's textual form, as Triton prints TTIR: ops with their results, operands,
// attributes and regions, blocks with their arguments, each op's place in the text and its
// `loc(...)` name (with `#loc` aliases resolved). It knows no dialect: the custom syntax of any
// op is read as "results = name tokens...", where every `%value` in the op's text is an operand,
// in order, except the values the op defines in its header (`scf.for %iv = ...`,
// `iter_args(%a = %init)`, `tt.func @f(%arg0: type)`): a `%name` followed by `=`, or by `:`
// inside parentheses. Those become the entry-block arguments of the region that follows them.
// A malformed input is a Diagnostic at file:line:col; the reader never crashes, and its time
// is linear in the size of the text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kiln::kernels {

using MlirValueId = int32_t;  // index into MlirModule::values
using MlirOpId = int32_t;     // index into MlirModule::ops

struct MlirAttribute {
  std::string key;    // unquoted: "noinline", "ttg.num-warps"
  std::string value;  // the raw text after `=` ("false", "1 : i32", "@f"); empty for a unit attribute

  std::optional<bool> as_bool() const;           // "true" / "false"; a unit attribute is true
  std::optional<int64_t> as_int() const;         // "4 : i32" -> 4
  std::optional<std::string> as_string() const;  // "\"text\"" -> text (escapes decoded)
  std::optional<std::string> as_symbol() const;  // "@helper" -> helper
};

struct MlirBlock {
  std::string label;  // "^bb0"; empty for an entry block printed without a label
  std::vector<MlirValueId> args;
  std::vector<MlirOpId> ops;  // in order; a terminator is the last
};

struct MlirRegion {
  std::vector<MlirBlock> blocks;  // a region printed as `{` `}` with no op has no block
};

struct MlirOp {
  std::string name;      // "tt.store", "scf.for", "tt.reduce" (generic names are unquoted)
  bool generic = false;  // printed in generic form: `"tt.reduce"(%4) ...`
  std::vector<MlirValueId> results;
  std::vector<MlirValueId> operands;      // in the order they appear in the op's text
  std::vector<MlirAttribute> attributes;  // `{...}`, `<{...}>`, `attributes {...}`, in order
  std::string keyword;                    // the first bare word of custom syntax: "fadd", "public", "slt", "x"
  std::string symbol;                     // the first `@symbol` of the op's text, without '@': callee, function
  std::string type_text;                  // the raw text after the op's first ':' outside parentheses
  std::vector<MlirRegion> regions;
  SourceLoc loc;         // where the op's statement starts in the text
  std::string loc_name;  // "pid" from loc("pid"(...)), directly or through a #loc alias
  std::string source;    // the location's "file:line:col" (the Python line), when it has one
  MlirOpId parent = -1;  // the op whose region holds this op; -1 at top level

  const MlirAttribute* attribute(std::string_view key) const;  // null when absent
};

struct MlirValue {
  std::string name;  // as written: "%offs_3", "%7#1", "%arg0"
  std::string type;  // block arguments only: "!tt.ptr<f32>"
  // Block arguments only: the names of the argument's location, outermost first. Triton names a
  // parameter `in0` loc("in0"(#loc)), and renames it when the kernel rebinds it (`a = in0`):
  // loc("a"(#loc15)) with #loc15 = loc("in0"(#loc)) gives {"a", "in0"}.
  std::vector<std::string> loc_names;
  // A result: `op` defines it, `index` is its result number, region == -1. A block argument:
  // `op` owns the region, `region`/`block` say which, `index` is the argument number.
  MlirOpId op = -1;
  int region = -1;
  int block = -1;
  int index = 0;

  bool is_block_arg() const { return region >= 0; }
};

struct MlirModule {
  std::string file;
  std::vector<MlirOp> ops;  // every op, nested ones included; an op precedes its regions' ops
  std::vector<MlirValue> values;
  std::vector<MlirOpId> top_level;  // ops outside any region (usually one `module`)

  const MlirOp& op(MlirOpId id) const { return ops[static_cast<size_t>(id)]; }
  const MlirValue& value(MlirValueId id) const { return values[static_cast<size_t>(id)]; }
};

// Reads MLIR text. `file_name` names the input in diagnostics and in every op's SourceLoc.
// Value names are scoped by region (a nested region sees its enclosing regions' values, sibling
// regions do not see each other's); a use before its definition resolves when the definition
// follows in the same function, and is an error otherwise.
Expected<MlirModule> read_mlir(std::string_view text, std::string_view file_name);

}  // namespace kiln::kernels
