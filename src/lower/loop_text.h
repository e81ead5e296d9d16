// The text form of the loop IR (syntax in loop_ir.h and docs/LOWERING.md). Printing is
// deterministic: body values are renumbered %0, %1, ... per kernel; parse_loops reads the
// printed text back to a program that prints identically. Malformed text gives
// "file:line:col: error: ..." diagnostics.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

std::string print_loops(const LoopProgram& p);
Expected<LoopProgram> parse_loops(std::string_view text, std::string_view filename = "<input>");
// Every program of the text, in order (what `kiln build --emit=loops` prints for a file of graphs).
Expected<std::vector<LoopProgram>> parse_loop_programs(std::string_view text, std::string_view filename = "<input>");

// "f32[4,8]"
std::string buffer_type_string(DType dtype, const std::vector<int64_t>& sizes);
// "[8,1]": sizes and strides as the loop IR prints them.
std::string int_list_text(const std::vector<int64_t>& v);

}  // namespace kiln
