// Reads PTX text (what nvcc -ptx and NVRTC produce, and hand-written PTX) into functions:
// `.entry` kernels and `.func` device functions with their parameters, the registers and
// other variables declared in their bodies (with the block scope each is declared in),
// labels, and instructions (guard, full opcode with its modifiers, structured operands).
//
// The reader checks structure, not semantics: directives and instructions it does not know
// are kept or skipped, never rejected. Malformed input (an unterminated comment or string, a
// body without its closing brace, an instruction without ';', a bad operand) is a Diagnostic
// at file:line:col; the reader never crashes or hangs, and its time and memory are linear in
// the input (a declaration `%r<1000000>` is kept as one line, not a million registers).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kiln::kernels {

// One operand of an instruction.
//   Name       %rd1, %tid.x, k_param_0, $L__BB0_2, _ (text; `offset` for `gvar+8`; `negated` for !%p)
//   Immediate  4, -1, 0x10, 0f3F800000 (text as written)
//   Address    [%rd1+16], [k_param_0], [tmap, {%r1, %r2}] (text = base, offset, elements = what
//              follows the base after a comma, e.g. the coordinates of a tensor access)
//   Vector     {%f1, %f2, %f3, %f4}
//   Pair       %p|%q (the two destinations of setp, shfl)
//   List       (param0, param1) (a call's arguments and return values)
//   Expression anything else (text as written; elements = the names found in it)
struct PtxOperand {
  enum class Kind { Name, Immediate, Address, Vector, Pair, List, Expression };
  Kind kind = Kind::Name;
  std::string text;
  int64_t offset = 0;
  bool negated = false;
  std::vector<PtxOperand> elements;
  int col = 0;

  // An Address whose base is a name (a register or a symbol), not a number.
  bool has_base_name() const;
};

struct PtxInstruction {
  std::string guard;  // "%p1" of "@%p1" or "@!%p1"; empty when unguarded
  bool guard_negated = false;
  std::string opcode;                  // with every modifier: "st.global.v4.f32"
  std::vector<std::string> modifiers;  // split at single dots: {"cp", "async", "bulk", "global", "shared::cta"}
  std::vector<PtxOperand> operands;
  int scope = 0;  // the block it sits in (PtxFunction::scope_parents)
  SourceLoc loc;

  const std::string& base() const { return modifiers.front(); }  // "st"
  bool has_modifier(std::string_view m) const;
};

// A variable: a parameter, or a `.reg`/`.param`/`.local`/`.shared`/`.global`/`.const`
// declaration in a body or at module level. `%r<10>` declares %r0..%r9 (name "%r", count 10).
struct PtxVariable {
  std::string space;  // ".param", ".reg", ".local", ".shared", ".global", ".const", ...
  std::string type;   // ".u64", ".b32", ".pred", ".b8"; empty when none was given
  std::string name;
  int count = -1;         // N of `name<N>`; -1 for a single name
  int array_size = -1;    // N of `name[N]`; 0 for `name[]`; -1 for a scalar
  int vector = 1;         // 2 or 4 for `.v2`/`.v4`
  std::string ptr_space;  // the state space of a parameter's `.ptr` attribute (".global"), if any
  int scope = 0;          // the block it is declared in; 0 for parameters and module variables
  SourceLoc loc;

  // The width in bits of one element: .b64 -> 64, .pred -> 1; 0 when the type is unknown.
  int bits() const;
  bool is_array() const { return array_size >= 0; }
  // Whether `reg` is a name this declaration declares (%r5 for %r<10>).
  bool declares(std::string_view reg) const;
};

struct PtxLabel {
  std::string name;
  int instruction = 0;  // index of the instruction it names (== instructions.size() at the end)
  SourceLoc loc;
};

struct PtxFunction {
  std::string name;
  bool is_entry = false;  // .entry (a kernel) or .func
  std::string linkage;    // ".visible", ".extern", ".weak", ".common" or empty
  std::vector<PtxVariable> params;
  std::vector<PtxVariable> returns;  // a .func's return parameters
  bool has_body = false;             // false for a prototype `.extern .func f(...);`
  std::vector<PtxVariable> locals;   // declared in the body, each with its scope
  std::vector<int> scope_parents;    // scope 0 is the body; scope_parents[s] encloses s (-1 for 0)
  std::vector<PtxInstruction> instructions;
  std::vector<PtxLabel> labels;
  SourceLoc loc;

  // The parameter (or return parameter) called `name`, or -1.
  int param_index(std::string_view name) const;
  int return_index(std::string_view name) const;
};

struct PtxModule {
  std::string file;
  std::string version;               // "9.0"
  std::string target;                // "sm_90"
  int address_size = 32;             // PTX's default when `.address_size` is absent
  std::vector<PtxVariable> globals;  // module-level variables
  std::vector<PtxFunction> functions;

  // The function called `name` (its definition where there is also a prototype), or null.
  const PtxFunction* find(std::string_view name) const;
  // The first `.entry` with a body, or null.
  const PtxFunction* first_entry() const;
};

// Reads a PTX module; `file` names it in diagnostics ("kernel.ptx:12:5: error: ...").
Expected<PtxModule> read_ptx(std::string_view text, const std::string& file = "<ptx>");

}  // namespace kiln::kernels
