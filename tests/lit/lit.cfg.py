# lit configuration of kiln's text tests: *.kir files whose RUN lines call the kiln CLI and
# check its output with FileCheck. CMake passes the tool paths as lit parameters
# (--param kiln=... --param filecheck=... --param exec_root=...); the environment variables
# KILN_BIN and FILECHECK serve when lit is run by hand.
import os
import shutil
import sys
import tempfile

import lit.formats

config.name = "kiln"
# lit's internal shell: `not`, `diff` and pipes work the same on every machine.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".kir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# Output/ directories go under the build tree when CMake says where it is.
config.test_exec_root = lit_config.params.get("exec_root", config.test_source_root)


def find_tool(param, env, name, fallbacks):
    path = lit_config.params.get(param) or os.environ.get(env) or shutil.which(name)
    for candidate in fallbacks:
        if not path and os.path.exists(candidate):
            path = candidate
    if not path:
        lit_config.fatal(f"cannot find {name}: pass --param {param}=PATH or set {env}")
    return path


kiln = find_tool("kiln", "KILN_BIN", "kiln", [])
filecheck = find_tool("filecheck", "FILECHECK", "FileCheck",
                      ["/usr/lib/llvm-14/bin/FileCheck", "/usr/lib/llvm-15/bin/FileCheck"])

config.substitutions.append(("%kiln", kiln))
# `REQUIRES: pt2`: kiln was built with .pt2 import (libzip and nlohmann-json; docs/IMPORT.md).
if lit_config.params.get("pt2") == "ON":
    config.available_features.add("pt2")
config.substitutions.append((r"\bFileCheck\b", filecheck))
# %python: the interpreter running lit (the project's venv, which has numpy), for RUN lines
# that make .npy inputs or read outputs back.
config.substitutions.append(("%python", lit_config.params.get("python") or sys.executable))

# `kiln run --device=cpu` caches compiled kernels in $KILN_CACHE_DIR: a test never writes to
# the user's ~/.cache. RUN lines that need a cache of their own set it (env KILN_CACHE_DIR=%t.cache).
if "exec_root" in lit_config.params:
    config.environment["KILN_CACHE_DIR"] = os.path.join(config.test_exec_root, "kiln-cache")
else:
    config.environment["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-lit-cache-")
