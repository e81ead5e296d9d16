#!/usr/bin/env python3
"""Runs an ONNX model on inputs written by kiln and writes its outputs for kiln to read.

  run_onnx.py --model model.onnx --outputs DIR [--inputs a.npy,b.npy] [--backend ort|reference]

Inputs bind to the model's inputs in order. Every output of the model is written as
DIR/out0.npy, DIR/out1.npy, ... in the model's output order. Backends, as the reference's
OnnxBackend: `ort` is ONNX Runtime's CPUExecutionProvider (log severity 3), `reference` is
ONNX's own reference evaluator (onnx.reference.ReferenceEvaluator).

Exit status: 0 on success; 3 when a package is missing (the message names it); 1 when the
model does not load or run (the message is the runtime's). A crash in the runtime's native
code kills the process with its signal; faulthandler first prints the Python stack (which
call was running: loading the model or running it) to stderr, which kiln quotes."""
import argparse
import faulthandler
import os
import sys

# kiln's .npy for bfloat16: a record array of raw bits (core/npy.h).
BF16_FIELD = "bf16"


def missing(package, why):
    print(f"run_onnx.py: the Python package '{package}' is missing ({why}); "
          f"run scripts/setup.sh, which installs it into .venv", file=sys.stderr)
    sys.exit(3)


def load_input(np, path):
    arr = np.load(path)
    if arr.dtype.names == (BF16_FIELD,):
        try:
            import ml_dtypes  # noqa: F401 (ships with onnx)
        except ImportError:
            missing("ml_dtypes", "bfloat16 inputs")
        return arr[BF16_FIELD].copy().view(ml_dtypes.bfloat16)
    return arr


def save_output(np, path, value):
    value = np.asarray(value)
    if value.dtype.name == "bfloat16":  # ml_dtypes.bfloat16
        value = value.view(np.uint16).view(np.dtype([(BF16_FIELD, "<u2")]))
    np.save(path, value)


def make_session(model_path, backend):
    """A callable feeds -> list of outputs (numpy arrays; bfloat16 as kiln's record of bits),
    and the model's input names. Feeds are numpy arrays as load_input returns them."""
    try:
        import numpy as np
    except ImportError:
        missing("numpy", "feeding the model")
    if backend == "ort":
        try:
            import onnxruntime as ort
        except ImportError:
            missing("onnxruntime", "backend ort")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        model, bf16_outputs = model_path, []
        if any(_is_bf16_output(o) for o in _outputs_of(model_path)):
            model, bf16_outputs = _widen_bf16_outputs(model_path)
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]

        def run_ort(feeds):
            # NumPy has no bfloat16: such inputs go in as OrtValues of their bits (ONNX type 16),
            # and bfloat16 outputs come back widened to float32 (exact) by a Cast the runner adds.
            feeds = {k: ort.OrtValue.ortvalue_from_numpy_with_onnx_type(v.view(np.uint16), 16)
                     if v.dtype.name == "bfloat16" else v for k, v in feeds.items()}
            outs = session.run(None, feeds)
            return [_to_bf16(np, o) if i in bf16_outputs else o for i, o in enumerate(outs)]
        return run_ort, names
    try:
        import onnx
        from onnx.reference import ReferenceEvaluator
    except ImportError:
        missing("onnx", "backend reference")
    proto = onnx.load(model_path)
    evaluator = ReferenceEvaluator(proto)
    names = list(evaluator.input_names)
    return (lambda feeds: evaluator.run(None, feeds)), names


def _outputs_of(model_path):
    try:
        import onnx
    except ImportError:
        return []
    return onnx.load(model_path, load_external_data=False).graph.output


def _is_bf16_output(o):
    return o.type.tensor_type.elem_type == 16


def _widen_bf16_outputs(model_path):
    """The model's bytes with each bfloat16 output cast to float32, and those outputs' indices."""
    import onnx
    from onnx import helper
    proto = onnx.load(model_path)
    widened = []
    for i, o in enumerate(proto.graph.output):
        if not _is_bf16_output(o):
            continue
        wide = o.name + "__kiln_f32"
        proto.graph.node.append(helper.make_node("Cast", [o.name], [wide], to=1))
        o.name = wide
        o.type.tensor_type.elem_type = 1
        widened.append(i)
    return proto.SerializeToString(), widened


def _to_bf16(np, wide):
    """float32 values that are exact bfloat16 numbers as bfloat16 (ml_dtypes)."""
    import ml_dtypes
    return np.asarray(wide, dtype=np.float32).view(np.uint32).__rshift__(16).astype(np.uint16).view(ml_dtypes.bfloat16)


def run(model_path, input_paths, out_dir, backend):
    try:
        import numpy as np
    except ImportError:
        missing("numpy", "reading and writing .npy")
    run_model, names = make_session(model_path, backend)
    if len(input_paths) > len(names):
        raise ValueError(f"too many positional inputs: {len(input_paths)} given, the model takes {len(names)}")
    feeds = {name: load_input(np, p) for name, p in zip(names, input_paths)}
    outputs = run_model(feeds)
    os.makedirs(out_dir, exist_ok=True)
    for i, value in enumerate(outputs):
        save_output(np, os.path.join(out_dir, f"out{i}.npy"), value)
    return len(outputs)


def main():
    faulthandler.enable()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--inputs", default="")
    ap.add_argument("--outputs", required=True)
    ap.add_argument("--backend", choices=["ort", "reference"], default="ort")
    args = ap.parse_args()
    inputs = [p for p in args.inputs.split(",") if p]
    try:
        n = run(args.model, inputs, args.outputs, args.backend)
    except SystemExit:
        raise
    except Exception as e:  # the runtime's own message, one line
        print(f"run_onnx.py: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}",
              file=sys.stderr)
        sys.exit(1)
    print(f"ran {args.model} with {args.backend}: {n} output(s)")


if __name__ == "__main__":
    main()
