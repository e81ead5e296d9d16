"""Prints each input and output of an ONNX model with its dims (dim_param names or sizes)
after ONNX's Python full checker accepts it: `input x: [B, 8]`; with --ops, then the graph's
node op types in order: `ops: Transpose MatMul Add`."""
import sys

import onnx

model = onnx.load(sys.argv[1])
onnx.checker.check_model(model, full_check=True)
for kind, values in (("input", model.graph.input), ("output", model.graph.output)):
    for v in values:
        dims = [d.dim_param if d.HasField("dim_param") else str(d.dim_value) for d in v.type.tensor_type.shape.dim]
        print(f"{kind} {v.name}: [{', '.join(dims)}]")
if "--ops" in sys.argv[2:]:
    print("ops: " + " ".join(n.op_type for n in model.graph.node))
