#!/usr/bin/env python3
"""Carries a kiln build made here to a GPU machine that lacks the Debian -dev packages.

  scripts/gpu_bundle.py pack BUILD_DIR BUNDLE [--extra EXE]...   # here: BUNDLE is a .tar.xz
  scripts/gpu_bundle.py run BUNDLE [-k NAME]                      # there, in the repository's root
  scripts/gpu_bundle.py exec BUNDLE EXE [ARG...]                  # there: one carried program

`pack` takes the tests ctest labels `gpu` in BUILD_DIR (their commands, arguments and working
directories, from `ctest --show-only=json-v1`), the kiln CLI, every executable those commands
name, and the shared libraries they load that a machine with only the CUDA toolkit and PyTorch
lacks (OpenBLAS, oneDNN, Protobuf, ONNX, libzip and what those need: LIBRARIES below), strips debug
information and writes one archive. `run` unpacks it, points the loader at its libraries and
runs each test as ctest would (exit 0 passes, SKIP_RETURN_CODE skips, anything else or a
timeout fails), with the build directory's paths mapped into the bundle and the source
directory's onto the current one (a Python test runs under this script's interpreter, since the
project's .venv stays here). It prints one line per test and ends with a summary; exit
status 1 when a test failed or any skipped (a GPU machine must run them all).

`--extra` packs more executables of BUILD_DIR (the benchmarks: build/bench/kiln_bench_cuda_kernels);
`exec` unpacks the bundle and runs one of them (EXE: its path under the build directory, or its
file name) with the bundle's libraries, the arguments mapped as `run` maps a test's, and exits
with its status.

Why a bundle rather than a build there: docs/BUILDING.md ("GPU machines").
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

# Shared libraries the build links that the GPU machine's image does not have (sonames' prefixes).
# libzip: the .pt2 reader (docs/IMPORT.md), and bzip2's library, which it loads and a CUDA image
# need not have; zlib and OpenSSL 3's libcrypto, its other needs, are there wherever PyTorch's
# Python runs.
LIBRARIES = ("libopenblas", "libdnnl", "libprotobuf", "libonnx", "libgfortran", "libquadmath", "libOpenCL", "libzip",
             "libbz2")


def gpu_tests(build_dir):
    out = subprocess.run(["ctest", "--test-dir", str(build_dir), "-L", "gpu", "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = []
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append({"name": t["name"], "command": t["command"], "cwd": props.get("WORKING_DIRECTORY", str(build_dir)),
                      "skip_code": props.get("SKIP_RETURN_CODE"), "timeout": props.get("TIMEOUT", 600)})
    return tests


def needed_libraries(executables):
    found = {}
    for exe in executables:
        for line in subprocess.run(["ldd", exe], check=True, capture_output=True, text=True).stdout.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "=>" and parts[0].startswith(LIBRARIES):
                found[parts[0]] = parts[2]
    return found


def pack(build_dir, bundle, extra):
    build_dir = pathlib.Path(build_dir).resolve()
    source_dir = pathlib.Path(__file__).resolve().parent.parent
    tests = gpu_tests(build_dir)
    executables = {str(build_dir / "bin" / "kiln")}
    for exe in extra:
        path = pathlib.Path(exe).resolve()
        if build_dir not in path.parents or not os.access(path, os.X_OK):
            sys.exit(f"gpu_bundle: --extra {exe} is not an executable under {build_dir}")
        executables.add(str(path))
    for t in tests:
        for arg in t["command"]:
            p = pathlib.Path(arg)
            if p.is_absolute() and p.is_file() and os.access(p, os.X_OK) and build_dir in p.parents:
                executables.add(str(p))
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for exe in sorted(executables):
            dest = root / "build" / pathlib.Path(exe).relative_to(build_dir)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(exe, dest)
            subprocess.run(["strip", "--strip-debug", str(dest)], check=True)
        (root / "lib").mkdir()
        for soname, path in sorted(needed_libraries(sorted(executables)).items()):
            shutil.copy2(path, root / "lib" / soname, follow_symlinks=True)
        manifest = {"build_dir": str(build_dir), "source_dir": str(source_dir), "tests": tests}
        (root / "manifest.json").write_text(json.dumps(manifest, indent=1))
        with tarfile.open(bundle, "w:xz", preset=6) as tar:
            tar.add(root, arcname="kiln-gpu")
    size = os.path.getsize(bundle)
    print(f"gpu_bundle: {len(tests)} gpu tests, {len(executables)} executables, {size / 2**20:.1f} MiB in {bundle}")


def unpack(bundle):
    """The unpacked bundle's root, its manifest, a function mapping the build's and the source's
    paths onto the bundle's and the current directory, and the environment its programs run in."""
    dest = pathlib.Path(tempfile.mkdtemp(prefix="kiln-gpu-"))
    with tarfile.open(bundle) as tar:
        tar.extractall(dest, filter="tar")
    root = dest / "kiln-gpu"
    manifest = json.loads((root / "manifest.json").read_text())
    here = str(pathlib.Path.cwd())

    def mapped(s):
        s = s.replace(manifest["build_dir"], str(root / "build"))
        return s.replace(manifest["source_dir"], here)

    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = str(root / "lib") + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["KILN_BUNDLE_KILN"] = str(root / "build" / "bin" / "kiln")
    return root, manifest, mapped, env


def run(bundle, name_filter):
    root, manifest, mapped, env = unpack(bundle)
    counts = {"passed": 0, "skipped": 0, "failed": 0}
    for t in manifest["tests"]:
        if name_filter and name_filter not in t["name"]:
            continue
        cwd = mapped(t["cwd"])
        os.makedirs(cwd, exist_ok=True)
        start = time.time()
        try:
            command = [mapped(a) for a in t["command"]]
            # The build's Python (the project's .venv) is not carried: the machine's own runs
            # the Python tests (it has torch and numpy).
            if pathlib.Path(command[0]).name.startswith("python") and not os.path.exists(command[0]):
                command[0] = sys.executable
            p = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=t["timeout"])
            code, output = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            code, output = None, f"timed out after {t['timeout']} s\n{e.stdout or ''}{e.stderr or ''}"
        verdict = "passed" if code == 0 else "skipped" if code is not None and code == t["skip_code"] else "failed"
        counts[verdict] += 1
        print(f"gpu test {t['name']}: {verdict} ({time.time() - start:.1f} s)")
        if verdict != "passed" or os.environ.get("KILN_GPU_VERBOSE"):
            print("    " + "\n    ".join(output.strip().splitlines()[-40:]))
        sys.stdout.flush()
    print(f"gpu tests: {counts['passed']} passed, {counts['skipped']} skipped, {counts['failed']} failed")
    return 0 if counts["failed"] == 0 and counts["skipped"] == 0 else 1


def exec_program(bundle, exe, args):
    root, _, mapped, env = unpack(bundle)
    build = root / "build"
    found = [p for p in build.rglob("*") if p.is_file() and (p.relative_to(build).as_posix() == exe or p.name == exe)]
    if not found:
        sys.exit(f"gpu_bundle: {exe} is not in the bundle (pack it with --extra)")
    sys.stdout.flush()
    return subprocess.run([str(found[0])] + [mapped(a) for a in args], env=env).returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pack", help="write a bundle of BUILD_DIR's gpu tests")
    p.add_argument("build_dir")
    p.add_argument("bundle")
    p.add_argument("--extra", action="append", default=[], help="another executable of BUILD_DIR to pack")
    r = sub.add_parser("run", help="unpack a bundle and run its gpu tests")
    r.add_argument("bundle")
    r.add_argument("-k", dest="filter", default="", help="run only tests whose name contains this")
    e = sub.add_parser("exec", help="unpack a bundle and run one of its programs")
    e.add_argument("bundle")
    e.add_argument("exe", help="its path under the build directory, or its file name")
    e.add_argument("args", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    if args.what == "pack":
        pack(args.build_dir, args.bundle, args.extra)
        return 0
    if args.what == "exec":
        return exec_program(args.bundle, args.exe, args.args)
    return run(args.bundle, args.filter)


if __name__ == "__main__":
    sys.exit(main())
