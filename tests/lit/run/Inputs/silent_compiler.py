"""A C++ compiler that answers --version and otherwise exits 0 without writing anything
(compiler_command.kir): kiln must say so, not fail later on the missing library."""
import sys

if "--version" in sys.argv:
    print("silent 1.0")
sys.exit(0)
