"""A stand-in for tools/onnx/run_onnx.py (set as $KILN_ONNX_RUNNER) that fails the way
$FAKE_RUNNER says, so that verify's report of each failure is tested without depending on a
bug of ONNX Runtime:
  silent-exit   exit status 5, printing nothing
  silent-error  exit status 1, printing nothing
  no-outputs    exit status 0, writing no outputs
  bad-output    exit status 0, out0.npy not a .npy file
  abort-tanh    abort (SIGABRT) after a line on stderr, whenever the model has a Tanh node
  kill-tanh     SIGKILL without a word, whenever the model has a Tanh node
  abort-whole   abort only for a model with one output (the whole model, not a cut of it)"""
import argparse
import os
import signal
import sys

import onnx

ap = argparse.ArgumentParser()
for arg in ("--model", "--inputs", "--outputs", "--backend"):
    ap.add_argument(arg)
args = ap.parse_args()
mode = os.environ["FAKE_RUNNER"]
graph = onnx.load(args.model).graph
has_tanh = any(n.op_type == "Tanh" for n in graph.node)
if mode == "silent-exit":
    sys.exit(5)
if mode == "silent-error":
    sys.exit(1)
os.makedirs(args.outputs, exist_ok=True)
if mode == "no-outputs":
    print("fake runner: ran, wrote nothing")
    sys.exit(0)
if mode == "bad-output":
    with open(os.path.join(args.outputs, "out0.npy"), "w") as f:
        f.write("not numpy")
    sys.exit(0)
if (mode == "abort-tanh" and has_tanh) or (mode == "abort-whole" and len(graph.output) == 1):
    print("fake runner: about to abort", file=sys.stderr, flush=True)
    os.abort()
if mode == "kill-tanh" and has_tanh:
    os.kill(os.getpid(), signal.SIGKILL)
sys.exit(f"fake runner: unexpected mode {mode}")
