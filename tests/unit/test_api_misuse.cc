// Misuse of the public C++ API (include/kiln/kiln.h) is a kiln::Error whose message names the
// problem and the call, never an abort, a crash or a read out of bounds: one test per misuse,
// each asserting the exception type and the message's key words.
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/checked_layout.h"
#include "core/storage.h"
#include "frontend/nn/causal_self_attention.h"
#include "kiln/kiln.h"
#include "train/optimizer.h"

namespace kiln {
namespace {

// Runs `call`, which must throw kiln::Error whose message holds every one of `words`.
void expect_error(const std::function<void()>& call, std::initializer_list<std::string_view> words) {
  try {
    call();
  } catch (const Error& e) {
    const std::string message = e.what();
    for (std::string_view w : words)
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    return;
  }
  ADD_FAILURE() << "no kiln::Error";
}

// The same for a function that reports through Expected or Status.
template <typename Result>
void expect_failure(const Result& r, std::initializer_list<std::string_view> words) {
  ASSERT_FALSE(r) << "expected an error";
  const std::string message = r.error().to_string();
  for (std::string_view w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
}

std::vector<Tensor> identity(std::span<const Tensor> in) { return {in.begin(), in.end()}; }

// A tensor traced by a capture that has ended, as a lambda that stores one outside leaves it.
Tensor tensor_kept_after_capture() {
  Tensor kept;
  auto captured =
      capture(CaptureFn1([&](std::span<const Tensor> in) { return kept = in[0] * 2.0; }), {Tensor::zeros({3})});
  EXPECT_TRUE(captured) << captured.error().to_string();
  return kept;
}

// ---- creation ----

TEST(ApiMisuse, RandnWithANegativeSize) {
  expect_error([] { Tensor::randn({-2, 3}, 0); }, {"Tensor::randn", "dim 0 has the negative size -2"});
}

TEST(ApiMisuse, ZerosWithANegativeSize) {
  expect_error([] { Tensor::zeros({3, -1}); }, {"Tensor::zeros", "dim 1 has the negative size -1"});
}

TEST(ApiMisuse, EveryCreatorNamesItselfForANegativeSize) {
  const std::vector<std::pair<std::string, std::function<void()>>> creators = {
      {"Tensor::empty", [] { Tensor::empty({-1}); }},
      {"Tensor::full", [] { Tensor::full({-1}, 1.0); }},
      {"Tensor::from_doubles", [] { Tensor::from_doubles({}, {-1}); }},
      {"Tensor::from_ints", [] { Tensor::from_ints({}, {-1}); }},
      {"Tensor::rand", [] { Tensor::rand({-1}, 0); }},
      {"Tensor::randint", [] { Tensor::randint(0, 2, {-1}, 0); }},
  };
  for (const auto& [name, create] : creators) expect_error(create, {name, "negative size -1"});
}

TEST(ApiMisuse, ZerosLargerThanOneTiB) {
  expect_error(
      [] {
        Tensor::zeros({1 << 20, 1 << 20});
      },
      {"Tensor::zeros", "f32[1048576, 1048576] takes 4398046511104 bytes", "2^40"});
}

TEST(ApiMisuse, ZerosWhoseByteCountOverflows) {
  expect_error([] { Tensor::zeros({int64_t{1} << 40, int64_t{1} << 40}); }, {"Tensor::zeros", "more than 2^63 bytes"});
  // An empty tensor whose strides would overflow int64 is refused too.
  expect_error([] { Tensor::zeros({0, int64_t{1} << 40, int64_t{1} << 40}); }, {"more than 2^63 bytes"});
}

// Larger than this machine's RAM and swap: out of memory, naming the bytes, without asking the
// allocator (which under overcommit could grant it and leave the process to be killed).
TEST(ApiMisuse, ZerosLargerThanMemory) {
  const int64_t numel = static_cast<int64_t>(Storage::machine_memory() / 4 + 1);
  const std::string bytes = std::to_string(numel * 4);
  const bool within_limit = numel * 4 <= kMaxTensorBytes;
  expect_error([&] { Tensor::zeros({numel}); },
               {"Tensor::zeros", bytes, within_limit ? "out of memory: cannot allocate" : "2^40"});
  // Through the op API the kernel's allocation fails the same way.
  if (within_limit) expect_error([&] { zeros({numel}); }, {"zeros", bytes, "out of memory"});
}

TEST(ApiMisuse, FromDoublesWithTooFewValues) {
  expect_error([] { Tensor::from_doubles({1, 2}, {3}); }, {"Tensor::from_doubles", "2 values for 3 elements"});
}

TEST(ApiMisuse, FromIntsWithTooManyValues) {
  expect_error([] { Tensor::from_ints({1, 2, 3}, {2}); }, {"Tensor::from_ints", "3 values for 2 elements"});
}

TEST(ApiMisuse, RandOfAnIntegerDtype) {
  expect_error([] { Tensor::randn({2}, 0, DType::I64); }, {"Tensor::randn", "not i64", "randint"});
  expect_error([] { Tensor::rand({2}, 0, DType::Bool); }, {"Tensor::rand", "not bool"});
}

TEST(ApiMisuse, FullWithNoValue) {
  expect_error([] { Tensor::full({2}, Scalar::none()); }, {"Tensor::full", "the fill value is none"});
}

TEST(ApiMisuse, RandintWithAnEmptyRange) {
  expect_error([] { Tensor::randint(3, 3, {2}, 0); }, {"Tensor::randint", "[3, 3) is empty"});
}

// ---- element access ----

TEST(ApiMisuse, ItemOfSeveralElements) {
  expect_error([] { Tensor::zeros({2, 3}).item(); }, {"Tensor::item", "6 elements", "exactly one"});
}

TEST(ApiMisuse, ItemDoubleOutOfRange) {
  expect_error(
      [] {
        Tensor::zeros({2, 3}).item_double(100);
      },
      {"Tensor::item_double", "element 100 is out of range for a tensor of 6 elements"});
  expect_error([] { Tensor::zeros({2, 3}).item_int(-1); }, {"Tensor::item_int", "element -1"});
}

// Branching on a traced tensor's value, the most common tracing mistake: the message says why
// and what to use instead.
TEST(ApiMisuse, ItemOfATracedTensorInsideCapture) {
  auto branching = capture(CaptureFn1([](std::span<const Tensor> in) {
                             if (in[0].sum().item_double() > 0) return in[0];
                             return -in[0];
                           }),
                           {Tensor::zeros({3})});
  expect_failure(branching, {"Tensor::item_double", "traced", "has no value", "kiln::cond", "while_loop"});
  auto scalar = capture(CaptureFn1([](std::span<const Tensor> in) { return in[0] * in[0].item().to_double(); }),
                        {Tensor::zeros({})});
  expect_failure(scalar, {"Tensor::item", "traced"});
  auto data =
      capture(CaptureFn1([](std::span<const Tensor> in) { return in[0] * *in[0].data<float>(); }), {Tensor::zeros({})});
  expect_failure(data, {"Tensor::data", "traced"});
}

TEST(ApiMisuse, TracedTensorUsedAfterItsCaptureEnded) {
  const Tensor kept = tensor_kept_after_capture();
  expect_error([&] { (void)(kept + 1.0); }, {"a traced tensor was used outside the capture that made it"});
  expect_error([&] { (void)kept.equal(Tensor::zeros({3})); }, {"Tensor::equal", "traced"});  // was a segfault
  expect_error([&] { (void)kept.clone(); }, {"Tensor::clone", "traced"});
  expect_error([&] { Tensor::zeros({3}).copy_from(kept); }, {"Tensor::copy_from", "traced"});
  auto later = capture(CaptureFn1([&](std::span<const Tensor> in) { return in[0] + kept; }), {Tensor::zeros({3})});
  expect_failure(later, {"traced by another capture"});
}

TEST(ApiMisuse, SizesOfASymbolicDimInsideCapture) {
  for (auto read : {+[](const Tensor& x) { return x.size(0); }, +[](const Tensor& x) { return x.numel(); }}) {
    auto c = capture(CaptureFn1([&](std::span<const Tensor> in) { return in[0] * static_cast<double>(read(in[0])); }),
                     {Tensor::zeros({2, 3})}, {.dynamic = {{0, "B"}}});
    expect_failure(c, {"Tensor::", "symbolic", "B", "reshape and view take -1"});
  }
}

// An undefined tensor is none to the ops and has no size: numel() used to say 1.
TEST(ApiMisuse, AccessorsOfAnUndefinedTensor) {
  const Tensor undefined;
  EXPECT_FALSE(undefined.defined());
  EXPECT_EQ(undefined.storage(), nullptr);
  EXPECT_EQ(undefined.to_string(), "Tensor(undefined)");
  expect_error([&] { (void)undefined.numel(); }, {"Tensor::numel", "undefined", "default-constructed"});
  expect_error([&] { (void)undefined.dim(); }, {"Tensor::dim", "undefined"});
  expect_error([&] { (void)undefined.sizes(); }, {"Tensor::sizes", "undefined"});
  expect_error([&] { (void)undefined.dtype(); }, {"Tensor::dtype", "undefined"});
  expect_error([&] { (void)undefined.shape(); }, {"Tensor::shape", "undefined"});
  expect_error([&] { (void)undefined.item(); }, {"Tensor::item", "undefined"});
  expect_error([&] { (void)(undefined + 1.0); }, {"'none' not allowed for operand 'self' of add"});
}

TEST(ApiMisuse, SizeOfADimOutOfRange) {
  expect_error([] { Tensor::zeros({3}).size(3); }, {"Tensor::size(3)", "out of range for a tensor of rank 1"});
}

// ---- views and copies ----

TEST(ApiMisuse, AsStridedOutsideItsStorage) {
  expect_error([] { Tensor::zeros({3}).as_strided({10}, {1}, 0); },
               {"Tensor::as_strided", "reads outside its storage of 3 elements"});
  expect_error([] { Tensor::zeros({3}).as_strided({2}, {1}, -1); }, {"Tensor::as_strided", "from offset -1"});
  expect_error([] { Tensor::zeros({3}).as_strided({2}, {1, 1}, 0); }, {"Tensor::as_strided", "differ in rank"});
  expect_error(
      [] {
        Tensor::zeros({3}).as_strided({2, 2}, {int64_t{1} << 62, int64_t{1} << 62}, 0);
      },
      {"spans more than 2^63 elements"});
}

TEST(ApiMisuse, OverStorageWithoutStorageOrOutsideIt) {
  expect_error([] { Tensor::over_storage(nullptr, DType::F32, {1}, {1}, 0); }, {"Tensor::over_storage", "null"});
  expect_error([] { Tensor::over_storage(std::make_shared<Storage>(8), DType::F32, {3}, {1}, 0); },
               {"Tensor::over_storage", "outside its storage of 2 elements"});
}

TEST(ApiMisuse, CopyFromDifferentSizes) {
  expect_error([] { Tensor::zeros({3}).copy_from(Tensor::zeros({4})); },
               {"Tensor::copy_from", "the source has sizes [4], the destination [3]"});
}

// ---- dims ----

TEST(ApiMisuse, InvalidDimSymbol) {
  expect_error([] { Dim::symbol("1B+"); }, {"invalid dim symbol '1B+'", "a letter or '_'"});
  expect_error([] { Dim::symbol(""); }, {"invalid dim symbol ''"});
  expect_error([] { Dim::symbol("floor"); }, {"invalid dim symbol 'floor'"});
  auto c = capture(CaptureFn(identity), {Tensor::zeros({2})}, {.dynamic = {{0, "B T"}}});
  expect_failure(c, {"capture: dynamic dim 0 of input 0", "invalid dim symbol 'B T'"});
}

TEST(ApiMisuse, ValueOfASymbolicDim) {
  expect_error([] { (void)Dim::symbol("B").value(); }, {"Dim::value()", "B", "symbolic"});
  expect_error([] { (void)Shape({Dim::symbol("B"), Dim(2)}).sizes(); }, {"Shape::sizes()", "[B,2]", "symbolic"});
  expect_error([] { (void)SymExpr::symbol("B").constant_value(); }, {"constant_value()", "B"});
}

TEST(ApiMisuse, FloorDivisionOfADimByZero) {
  expect_error([] { (void)floor_div(Dim::symbol("T"), 0); }, {"floor division of the dim T by 0", "positive"});
}

TEST(ApiMisuse, DimArithmeticThatOverflows) {
  const Dim big(std::numeric_limits<int64_t>::max());
  EXPECT_THROW((void)(big + Dim(1)), SymExprOverflow);
  EXPECT_THROW((void)(big * Dim(2)), SymExprOverflow);
}

// ---- nn modules ----

TEST(ApiMisuse, ModulesWithBadSizes) {
  expect_error([] { nn::Linear(-3, 4); }, {"Linear: in_features must not be negative, got -3"});
  expect_error([] { nn::Embedding(-1, 4); }, {"Embedding: num_embeddings must not be negative, got -1"});
  expect_error([] { nn::Embedding(4, 2, 4); }, {"Embedding: padding_idx", "[0, 4)", "got 4"});
  expect_error([] { nn::Conv2d(3, 4, 3, {.groups = 2}); }, {"Conv2d: groups 2 must divide in_channels 3"});
  expect_error([] { nn::Conv2d(3, 4, std::vector<int64_t>{}); }, {"Conv2d: kernel_size must have 1 or 2 entries"});
  expect_error([] { nn::Conv2d(3, 4, 0); }, {"Conv2d: kernel_size must be positive, got 0"});
  expect_error([] { nn::BatchNorm2d(-1); }, {"BatchNorm2d: num_features must not be negative"});
  expect_error([] { nn::LayerNorm({4, -1}); }, {"LayerNorm: normalized_shape [4, -1] has a negative size"});
  expect_error([] { nn::RMSNorm({-2}); }, {"RMSNorm: normalized_shape [-2] has a negative size"});
  expect_error([] { nn::Dropout(1.5); }, {"Dropout: p must be in [0, 1], got 1.5"});
  expect_error([] { nn::CausalSelfAttention(-8, 2); }, {"CausalSelfAttention: embed_dim must not be negative"});
}

// ---- capture, control flow, I/O, optimizers, compile options ----

TEST(ApiMisuse, EmptyFunctions) {
  expect_failure(capture(CaptureFn(), {Tensor::zeros({2})}), {"capture: the function to capture is an empty"});
  expect_failure(capture(CaptureFn1(), {Tensor::zeros({2})}), {"capture: the function to capture is an empty"});
  const std::vector<Tensor> carried{Tensor::zeros({})};
  expect_error([&] { while_loop(GraphFn(), identity, carried); }, {"while_loop: cond_fn is an empty std::function"});
  expect_error([&] { cond(Tensor::full({}, true, DType::Bool), identity, GraphFn(), carried); },
               {"cond: false_fn is an empty std::function"});
  expect_error([&] { scan(GraphFn(), carried, {Tensor::zeros({2})}); }, {"scan: combine_fn is an empty"});
  expect_error([&] { map(GraphFn(), {Tensor::zeros({2})}); }, {"map: body_fn is an empty"});
}

TEST(ApiMisuse, NpyOfAnUndefinedTensor) {
  expect_error([] { npy_to_bytes(Tensor()); }, {"npy_to_bytes: cannot write a traced or undefined tensor"});
  expect_failure(write_npy("unused.npy", Tensor()), {"cannot write a traced or undefined tensor"});
}

TEST(ApiMisuse, OptimizerValuesOfTheWrongCount) {
  expect_error([] { optim::assign_doubles(Tensor::zeros({3}), {1.0}); }, {"Tensor::from_doubles", "1 values for 3"});
}

TEST(ApiMisuse, CompileWithAMemoryBudgetOutsideZeroToOne) {
  nn::Linear model(2, 1);
  expect_error(
      [&] {
        compile_train_step(
            model, [](nn::Linear& m, std::span<const Tensor> b) { return sum(m.forward(b[0])); },
            {Tensor::zeros({1, 2})}, CompileOptions{.execution = Execution::Interpreter, .memory_budget = 2.0});
      },
      {"memory budget 2 is outside [0, 1]"});
}

}  // namespace
}  // namespace kiln
