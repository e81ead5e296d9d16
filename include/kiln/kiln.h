// kiln's user-facing API in one include: tensors, the op functions and operators, capture,
// control flow (cond, while_loop, scan, map), nn modules, the graph IR with its printer and
// parser, the reference interpreter, compilation (compile for inference, value_and_grad and
// compile_train_step, each taking one CompileOptions value), the optimizers (optim::SGD,
// optim::AdamW), ONNX export and verification (onnx::export_graph, onnx::verify) and
// torch.export archives read back (import_pt2).
// Everything README.md's C++ snippets use comes from here: tests/readme compiles them with
// this include alone.
#pragma once

#include "core/device.h"
#include "core/dtype.h"
#include "core/npy.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "frontend/capture.h"
#include "frontend/control_flow.h"
#include "frontend/functional.h"
#include "frontend/nn.h"
#include "import/import_pt2.h"
#include "interp/interpreter.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "onnx/verify.h"
#include "support/error.h"
#include "train/adamw.h"
#include "train/compile_options.h"
#include "train/compiled_function.h"
#include "train/sgd.h"
#include "train/train_step.h"
#include "train/value_and_grad_fn.h"
