#include "onnx/model_file.h"

#include "support/file_io.h"

namespace kiln::onnx {

Expected<::onnx::ModelProto> read_model_file(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(const std::string bytes, read_file_bytes(path));
  ::onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) return make_error(path, ": not an ONNX model (the protobuf does not parse)");
  return m;
}

Status write_model_file(const std::string& path, const ::onnx::ModelProto& m) {
  return write_file_bytes(path, m.SerializeAsString());
}

}  // namespace kiln::onnx
