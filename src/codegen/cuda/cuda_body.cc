#include "codegen/cuda/cuda_body.h"

#include <vector>

#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_random.h"
#include "codegen/cpp/cpp_scalar.h"
#include "codegen/cuda/cuda_math.h"
#include "support/check.h"

namespace kiln::cuda {

namespace {

// A load names its dtype; one that differs from the buffer's converts.
std::string converted(const std::string& x, DType from, DType to) {
  return from == to ? x : cpp::convert_value(x, from, to);
}

// A load's or store's index with its indirect terms: `5 * v7 + i1`.
std::string access(const BodyOp& op) {
  std::string s;
  for (size_t j = 0; j < op.indirect.size(); ++j)
    s += (j ? " + " : "") + (op.indirect[j] == 1 ? "" : cpp::int_literal(op.indirect[j]) + " * ") +
         value_name(op.indirect_arg(j));
  if (s.empty()) return cpp::index_cpp(op.index);
  return op.index.terms.empty() && op.index.constant == 0 ? s : s + " + " + cpp::index_cpp(op.index);
}

}  // namespace

std::string buffer_pointer(const LoopProgram& p, int b) {
  return "b" + std::to_string(b) + "_" + cpp::identifier(p.buffers[static_cast<size_t>(b)].name);
}

std::string value_name(int i) { return "v" + std::to_string(i); }

std::string loaded_value(const LoopProgram& p, const BodyOp& op, const std::string& element) {
  const DType stored = p.buffers[static_cast<size_t>(op.buffer)].dtype;
  return converted(cpp::load_value(element, stored), stored, op.dtype);
}

std::string body_op_text(const LoopProgram& p, const LoopKernel& k, int i, const std::string& element) {
  const BodyOp& op = k.body[static_cast<size_t>(i)];
  auto elem = [&] { return element.empty() ? buffer_pointer(p, op.buffer) + "[" + access(op) + "]" : element; };
  auto dtype = [&](int a) { return k.body[static_cast<size_t>(a)].dtype; };
  auto define = [&](const std::string& expr) {
    return "const " + std::string(cpp::value_type(op.dtype)) + " " + value_name(i) + " = " + expr + ";";
  };
  switch (op.kind) {
    case BodyOp::Kind::Load: {
      std::string x = loaded_value(p, op, elem());
      // A masked load reads nothing where its mask is false.
      if (op.masked) {
        const DType stored = p.buffers[static_cast<size_t>(op.buffer)].dtype;
        x = value_name(op.mask()) + " ? " + x + " : " +
            converted(cpp::const_literal(op.value, stored), stored, op.dtype);
      }
      return define(x);
    }
    case BodyOp::Kind::Const: return define(cpp::const_literal(op.value, op.dtype));
    case BodyOp::Kind::Index: return define(cpp::index_cpp(op.index));
    case BodyOp::Kind::Indirect: {
      // Wrapped, compared (a negative index is a huge unsigned one), then 0 where bad, so the
      // access stays in range; the runtime reports the bad index from the error slot.
      const std::string v = "(int64_t)" + value_name(op.args.at(0)), n = cpp::int_literal(op.size);
      const std::string w = value_name(i) + "w", bad = value_name(i) + "b";
      return "const int64_t " + w + " = " + (op.wrap ? v + " < 0 ? " + v + " + " + n + " : " + v : v) + ";\n" +
             "const int " + bad + " = (uint64_t)" + w + " >= (uint64_t)" + n + ";\n" + "kiln_bad |= " + bad + ";\n" +
             define(bad + " ? (int64_t)0 : " + w);
    }
    case BodyOp::Kind::Cast:
      return define(cpp::convert_value(value_name(op.args.at(0)), dtype(op.args.at(0)), op.dtype));
    case BodyOp::Kind::Compute: {
      std::vector<std::string> args;
      std::vector<DType> dts;
      for (int a : op.args) {
        args.push_back(value_name(a));
        dts.push_back(dtype(a));
      }
      return define(compute_expr(op.op, args, dts, op.dtype, op.attrs));
    }
    case BodyOp::Kind::Random: {
      std::vector<std::string> args;
      for (int a : op.args) args.push_back(value_name(a));
      return define(cpp::random_expr(op.random, args, op.dtype));
    }
    case BodyOp::Kind::Store: {
      const DType stored = p.buffers[static_cast<size_t>(op.buffer)].dtype;
      return elem() + " = " + cpp::store_value(value_name(op.args.at(0)), dtype(op.args.at(0)), stored) + ";";
    }
    case BodyOp::Kind::Reduce: break;
  }
  KILN_UNREACHABLE("kernel @" + k.name + ": a reduce op is its reduction's, not a statement");
}

}  // namespace kiln::cuda
