#!/usr/bin/env bash
# Installs what kiln needs on Debian 12 (bookworm), idempotently:
#   - Debian packages: compiler, CMake, Ninja, ccache, clang-format (the `format` test), GoogleTest/Benchmark, clang with its
#     sanitizer/libFuzzer runtime, LLVM's FileCheck, OpenBLAS and oneDNN (extern matmuls of the CPU backend),
#     Graphviz (compile reports), ONNX's C++ library and protobuf (ONNX export);
#   - a project-local Python virtual environment at .venv (Debian's /usr/bin/python3) with
#     pinned torch, numpy and lit (oracle and lit tests), onnx and onnxruntime (the runner that
#     verifies ONNX exports), torchvision, transformers and timm (the model zoo, tests/zoo).
# Run as root, or as a user with sudo. A re-run installs nothing and takes about a second.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DEBIAN_FRONTEND=noninteractive

# Pinned Python packages (PyPI). torch from PyPI is the CUDA build: it pulls nvidia-* wheels
# (about 5.5 GB in .venv, ~75 s to install); kiln only uses it on the CPU as the oracle.
# torchvision, transformers and timm build the model zoo of tests/zoo (issue 21: random weights,
# configs written in code, nothing downloaded); pinned with their direct pure-Python deps (and
# pillow, torchvision's) so every clone exports the same programs.
PY_PACKAGES=(torch==2.15.0 numpy==2.4.6 lit==23.1.5 onnx==1.23.2 onnxruntime==1.31.1  # pip itself is pinned below
             torchvision==0.29.2 transformers==5.24.0 timm==1.0.24
             huggingface_hub==2.4.0 safetensors==0.8.0 tokenizers==0.23.3 regex==2026.11.19
             PyYAML==6.0.4 tqdm==4.70.1 typer==0.29.2 pillow==13.0.0)

APT_PACKAGES=(g++ cmake ninja-build ccache clang-format pkg-config git python3 python3-venv
              libgtest-dev libgmock-dev libbenchmark-dev
              clang libclang-rt-14-dev llvm-14-tools libboost-graph-dev
              libopenblas-dev libopenblas-openmp-dev libdnnl-dev graphviz
              libonnx-dev libprotobuf-dev protobuf-compiler
              libzip-dev nlohmann-json3-dev)  # the last two: reading .pt2 archives (docs/IMPORT.md)

say() { echo "setup: $*"; }

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
    say "not root and no sudo: install these yourself if missing: ${APT_PACKAGES[*]}"
  fi
fi

# ---- Debian packages ----
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && [ ${#SUDO[@]} -eq 0 ]; then
    say "cannot install missing packages without root: ${missing[*]}" >&2
    exit 1
  fi
  say "installing Debian packages: ${missing[*]}"
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  say "Debian packages: all present"
fi

# ---- Python virtual environment ----
VENV=.venv
STAMP="$VENV/.kiln-setup-stamp"
WANT="${PY_PACKAGES[*]}"
if [ -f "$VENV/pyvenv.cfg" ] && ! grep -q '^home = /usr/bin$' "$VENV/pyvenv.cfg"; then
  say "$VENV was made by another Python ($(grep '^home' "$VENV/pyvenv.cfg")); recreating it"
  rm -rf "$VENV"
fi
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$VENV/bin/python" ]; then
  say "Python venv $VENV: up to date ($WANT)"
else
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV with /usr/bin/python3"
    /usr/bin/python3 -m venv "$VENV"
  fi
  say "pip install $WANT (torch is large: ~75 s, ~5.5 GB)"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check pip==26.3
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
  "$VENV/bin/python" -W ignore -c "import torch, numpy, lit, onnx, onnxruntime, torchvision, transformers, timm"
  echo "$WANT" > "$STAMP"
fi
say "done"
