"""Writes a deliberately wrong copy of an ONNX model: the first node of type OLD becomes NEW
(same inputs and output names), for verify --intermediates to catch."""
import sys

import onnx

src, dst, old, new = sys.argv[1:5]
model = onnx.load(src)
for node in model.graph.node:
    if node.op_type == old:
        node.op_type = new
        break
else:
    sys.exit(f"no {old} node in {src}")
onnx.save(model, dst)
