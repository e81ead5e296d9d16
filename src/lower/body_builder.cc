#include "lower/body_builder.h"

namespace kiln {

namespace {

bool mergeable(const BodyOp& op) { return op.kind != BodyOp::Kind::Store && op.kind != BodyOp::Kind::Reduce; }

}  // namespace

BodyBuilder::BodyBuilder(LoopKernel& k) : k_(k) {
  const size_t from = k.reduce_op >= 0 ? static_cast<size_t>(k.reduce_op) + 1 : 0;
  for (size_t i = from; i < k.body.size(); ++i)
    if (mergeable(k.body[i])) seen_.emplace(key_of(k.body[i]), static_cast<int>(i));
}

std::string BodyBuilder::key_of(const BodyOp& op) {
  std::string key = std::to_string(static_cast<int>(op.kind)) + "|" + std::to_string(static_cast<int>(op.dtype)) + "|" +
                    std::to_string(static_cast<int>(op.op)) + "|" + std::to_string(op.buffer) + "|" +
                    op.index.to_string() + "|" + op.value.to_string() + "|" + op.attrs.to_string();
  if (op.kind == BodyOp::Kind::Random)
    key += "|" + std::to_string(static_cast<int>(op.random.kind)) + "|" + std::to_string(op.random.seed) + "|" +
           std::to_string(op.random.modulus);
  for (int a : op.args) key += "," + std::to_string(a);
  for (int64_t c : op.indirect) key += ";" + std::to_string(c);
  if (op.kind == BodyOp::Kind::Indirect)
    key += "|" + std::to_string(op.size) + (op.wrap ? "w" : "") + "|" + std::to_string(op.dim) + "|" + op.where;
  return key;
}

int BodyBuilder::add(BodyOp op) {
  std::string key;
  if (mergeable(op)) {
    key = key_of(op);
    if (auto it = seen_.find(key); it != seen_.end()) return it->second;
  }
  if (op.kind == BodyOp::Kind::Reduce) seen_.clear();
  k_.body.push_back(std::move(op));
  const int id = static_cast<int>(k_.body.size()) - 1;
  if (!key.empty()) seen_.emplace(std::move(key), id);
  return id;
}

int BodyBuilder::load(int buffer, DType dt, IndexExpr index, Scalar other, const IndirectTerms& terms) {
  BodyOp op;
  op.kind = BodyOp::Kind::Load;
  op.buffer = buffer;
  op.dtype = dt;
  op.index = index.simplified(k_.loops);
  for (const auto& [v, c] : terms) {
    op.args.push_back(v);
    op.indirect.push_back(c);
  }
  if (mask_ >= 0) {
    op.masked = true;
    op.value = other.is_bool() ? Scalar(static_cast<int64_t>(other.to_bool())) : other;
    op.args.push_back(mask_);
  }
  return add(std::move(op));
}

int BodyBuilder::constant(Scalar v, DType dt) {
  BodyOp op;
  op.kind = BodyOp::Kind::Const;
  op.value = v.is_bool() ? Scalar(static_cast<int64_t>(v.to_bool())) : v;
  op.dtype = dt;
  return add(std::move(op));
}

int BodyBuilder::index(IndexExpr e) {
  BodyOp op;
  op.kind = BodyOp::Kind::Index;
  op.dtype = DType::I64;
  op.index = e.simplified(k_.loops);
  return add(std::move(op));
}

int BodyBuilder::cast(int v, DType dt) {
  if (dtype(v) == dt) return v;
  BodyOp op;
  op.kind = BodyOp::Kind::Cast;
  op.args = {v};
  op.dtype = dt;
  return add(std::move(op));
}

int BodyBuilder::compute(OpKind kind, std::vector<int> args, DType dt, AttrMap attrs) {
  BodyOp op;
  op.kind = BodyOp::Kind::Compute;
  op.op = kind;
  op.args = std::move(args);
  op.dtype = dt;
  op.attrs = std::move(attrs);
  return add(std::move(op));
}

int BodyBuilder::random(RandomDraw draw, int counter, std::vector<int> state, DType dt) {
  BodyOp op;
  op.kind = BodyOp::Kind::Random;
  op.random = draw;
  op.args = {counter};
  op.args.insert(op.args.end(), state.begin(), state.end());
  op.dtype = dt;
  return add(std::move(op));
}

void BodyBuilder::store(int buffer, IndexExpr index, int v, const IndirectTerms& terms, bool unique) {
  BodyOp op;
  op.kind = BodyOp::Kind::Store;
  op.unique = unique;
  op.buffer = buffer;
  op.index = index.simplified(k_.loops);
  op.args = {v};
  for (const auto& [value, c] : terms) {
    op.args.push_back(value);
    op.indirect.push_back(c);
  }
  add(std::move(op));
}

int BodyBuilder::indirect(int value, int64_t size, bool wrap, OpKind kind, int dim, std::string where) {
  BodyOp op;
  op.kind = BodyOp::Kind::Indirect;
  op.dtype = DType::I64;
  op.op = kind;
  op.args = {value};
  op.size = size;
  op.wrap = wrap;
  op.dim = dim;
  op.where = std::move(where);
  return add(std::move(op));
}

}  // namespace kiln
