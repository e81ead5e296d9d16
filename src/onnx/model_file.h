// ONNX models read from and written to files, whose errors name the file and say why (the OS's
// reason, support/file_io.h, or that the bytes are no ONNX model).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "support/diagnostic.h"

namespace kiln::onnx {

// The model in `path`; an error when the file cannot be read or its protobuf does not parse.
Expected<::onnx::ModelProto> read_model_file(const std::string& path);

// Replaces the file at `path` with `m`.
Status write_model_file(const std::string& path, const ::onnx::ModelProto& m);

}  // namespace kiln::onnx
