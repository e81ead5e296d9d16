#!/usr/bin/env python3
"""Turns the ```cpp blocks of README.md into one C++ program, so that the build compiles them
against kiln's public header (each block includes <kiln/kiln.h> and nothing else of kiln's)
and ctest runs them (tests/readme/CMakeLists.txt).

  extract_snippets.py README.md OUT.cc

The convention the README's snippets follow:
- All ```cpp blocks, in order, form one program: a later block may use what an earlier one
  defined (the model), and must define what it uses otherwise.
- `#include` lines, `using` lines, and definitions of types (a line at column 0 starting with
  `struct`, `class` or `enum`, through its closing `};` at column 0) stay at namespace scope.
  Every other line goes, in order, into the body of `int main()` (a kiln::Error thrown there
  ends the program through std::terminate, which prints its message). Functions are not moved
  out of main: a snippet that needs one writes it as a lambda.
- `#line` directives make the compiler's errors name README.md's lines."""
import re
import sys

TYPE_START = re.compile(r"^(struct|class|enum)\b")
NAMESPACE_LINE = re.compile(r"^(#include|using)\b")


def cpp_blocks(lines):
    """(first line number, lines) of each ```cpp block; line numbers are 1-based."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(lines, 1):
        fence = line.strip()
        if current is None and fence == "```cpp":
            current, start = [], number + 1
        elif current is not None and fence == "```":
            blocks.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    if current is not None:
        sys.exit(f"extract_snippets.py: the ```cpp block at line {start - 1} is not closed")
    return blocks


def split_block(start, lines, readme):
    """The block's namespace-scope lines and main's lines, each with #line directives."""
    top, body = [], []
    in_type = False
    for number, line in enumerate(lines, start):
        hoisted = in_type or TYPE_START.match(line) or NAMESPACE_LINE.match(line)
        if TYPE_START.match(line) and not line.rstrip().endswith("};"):
            in_type = True
        elif in_type and line.startswith("};"):
            in_type = False
        out = top if hoisted else body
        out.append(f'#line {number} "{readme}"')
        out.append(line if hoisted or not line else "  " + line)
    return top, body


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    readme, out_path = sys.argv[1], sys.argv[2]
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    blocks = cpp_blocks(lines)
    if not blocks:
        sys.exit(f"extract_snippets.py: {readme} has no ```cpp block")
    top, body = [], []
    for start, block in blocks:
        t, b = split_block(start, block, readme)
        top += t
        body += b
    # Nothing but the snippets' own lines: an include added here could hide one they lack.
    program = [f"// Generated from {readme} by tests/readme/extract_snippets.py; do not edit.", *top, "",
               "int main() {", *body, "}", ""]
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(program))


if __name__ == "__main__":
    main()
