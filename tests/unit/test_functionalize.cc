// functionalize checked by running: each program runs on the interpreter as written (in-place
// ops writing real storage, aliased inputs passed as one tensor or as a real view of it) and
// functionalized (write-backs applied: the trailing copy_ nodes by the interpreter, or the
// extra outputs copied back into the inputs); outputs and inputs must agree bit for bit.
#include <gtest/gtest.h>

#include <functional>

#include "frontend/capture.h"
#include "frontend/functional.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/functionalize.h"

namespace kiln {
namespace {

// How a program's inputs are made: fresh random tensors, except that an aliased program
// builds its inputs from a few storages so that the interpreter sees real aliasing.
using InputMaker = std::function<std::vector<Tensor>(uint64_t seed)>;

struct Program {
  const char* name;
  const char* text;
  InputMaker inputs;
  FunctionalizeOptions options = {};
};

std::vector<Tensor> random_inputs(const Graph& g, uint64_t seed) {
  std::vector<Tensor> out;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const TensorType& t = g.input(i)->type();
    const uint64_t s = seed * 31 + static_cast<uint64_t>(i);
    if (t.dtype == DType::Bool)
      out.push_back(Tensor::randint(0, 2, t.shape.sizes(), s, DType::Bool));
    else if (is_floating(t.dtype))
      out.push_back(Tensor::randn(t.shape.sizes(), s, t.dtype));
    else
      out.push_back(Tensor::randint(-5, 5, t.shape.sizes(), s, t.dtype));
  }
  return out;
}

// The tensors `inputs` refer to, copied with their aliasing intact: inputs that shared a
// storage share one (new) storage.
std::vector<Tensor> copy_keeping_aliases(const std::vector<Tensor>& inputs) {
  std::vector<std::pair<const Storage*, Tensor>> copies;  // storage -> packed copy of all of it
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) {
    Tensor* base = nullptr;
    for (auto& [storage, copy] : copies)
      if (storage == t.storage().get()) base = &copy;
    if (!base) {
      const int64_t elements = static_cast<int64_t>(t.storage()->nbytes()) / dtype_size(t.dtype());
      Tensor whole = t.as_strided({elements}, {1}, 0);
      copies.emplace_back(t.storage().get(), whole.clone());
      base = &copies.back().second;
    }
    out.push_back(base->as_strided(t.sizes(), t.strides(), t.offset()));
  }
  return out;
}

std::string describe(const std::vector<Tensor>& ts) {
  std::string s;
  for (const Tensor& t : ts) s += t.to_string() + "\n";
  return s;
}

int count_inplace(const Graph& g) {
  int n = 0;
  for (Node* node : g.nodes()) {
    n += node->info().has(kInplace) ? 1 : 0;
    for (int i = 0; i < node->num_subgraphs(); ++i) n += count_inplace(*node->subgraph(i));
  }
  return n;
}

// Runs `p` both ways on the same inputs and compares outputs and final inputs.
void check_program(const Program& p, bool keep_input_mutations, uint64_t seed) {
  SCOPED_TRACE(std::string(p.name) + (keep_input_mutations ? " (copy_ write-backs)" : " (extra outputs)"));
  auto original = parse_graph(p.text);
  ASSERT_TRUE(original.has_value()) << original.error().to_string();
  std::unique_ptr<Graph> functional = (*original)->clone();
  FunctionalizeOptions options = p.options;
  options.keep_input_mutations = keep_input_mutations;
  auto info = functionalize(*functional, options);
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  ASSERT_TRUE(verify_graph(*functional).is_ok()) << print_graph(*functional);
  EXPECT_EQ(count_inplace(*functional), keep_input_mutations ? info->num_write_backs() : 0) << print_graph(*functional);

  const std::vector<Tensor> made = p.inputs ? p.inputs(seed) : random_inputs(**original, seed);
  std::vector<Tensor> eager_inputs = copy_keeping_aliases(made);
  std::vector<Tensor> functional_inputs = copy_keeping_aliases(made);
  auto expected = interpret(**original, eager_inputs);
  ASSERT_TRUE(expected.has_value()) << expected.error().to_string();
  auto got = interpret(*functional, functional_inputs);
  ASSERT_TRUE(got.has_value()) << got.error().to_string() << "\n" << print_graph(*functional);

  const size_t user_outputs = static_cast<size_t>(info->num_user_outputs);
  ASSERT_EQ(got->size(), user_outputs + (keep_input_mutations ? 0 : static_cast<size_t>(info->num_write_backs())));
  if (!keep_input_mutations)
    for (size_t k = 0; k < info->write_back_inputs.size(); ++k)
      functional_inputs[static_cast<size_t>(info->write_back_inputs[k])].copy_from((*got)[user_outputs + k]);
  ASSERT_EQ(expected->size(), user_outputs);
  for (size_t j = 0; j < user_outputs; ++j)
    EXPECT_TRUE((*got)[j].equal((*expected)[j])) << "output " << j << "\nfunctional:\n"
                                                 << print_graph(*functional) << "got\n"
                                                 << (*got)[j].to_string() << "\nexpected\n"
                                                 << (*expected)[j].to_string();
  for (size_t i = 0; i < eager_inputs.size(); ++i)
    EXPECT_TRUE(functional_inputs[i].equal(eager_inputs[i]))
        << "input " << i << " after the run\nfunctional:\n"
        << print_graph(*functional) << describe(functional_inputs) << "expected\n"
        << describe(eager_inputs);
}

// Two inputs that are one tensor.
InputMaker same_tensor(std::vector<int64_t> sizes) {
  return [sizes](uint64_t seed) {
    Tensor t = Tensor::randn(sizes, seed);
    return std::vector<Tensor>{t, t};
  };
}

// Input 0 a [4,3] tensor, input 1 its rows 1: (a real view).
std::vector<Tensor> rows_view(uint64_t seed) {
  Tensor a = Tensor::randn({4, 3}, seed);
  return {a, a.as_strided({3, 3}, {3, 1}, 3)};
}

FunctionalizeOptions alias_options(std::vector<AliasedInput> members) {
  FunctionalizeOptions o;
  o.aliased_inputs.push_back({std::move(members)});
  return o;
}

const std::vector<Program>& programs() {
  static const std::vector<Program> table = {
      {"inplace_on_input", R"(graph @f(%x: f32[4]) -> (f32[4]) {
  %0 = add_(%x, 1.0) : f32[4]
  %1 = mul(%x, 2.0) : f32[4]
  return %1
})",
       nullptr},
      {"inplace_on_intermediate", R"(graph @f(%x: f32[4]) -> (f32[4]) {
  %0 = mul(%x, 2.0) : f32[4]
  %1 = relu_(%0) : f32[4]
  %2 = sub_(%0, %x) {alpha=3} : f32[4]
  return %0
})",
       nullptr},
      {"slice_write_then_base_read", R"(graph @f(%x: f32[4,3]) -> (f32[4,3], f32[2,3]) {
  %0 = slice(%x) {dim=0, end=3, start=1} : f32[2,3]
  %1 = mul_(%0, 3.0) : f32[2,3]
  %2 = neg(%x) : f32[4,3]
  return %2, %0
})",
       nullptr},
      {"strided_slice_and_select", R"(graph @f(%x: f32[5,2]) -> (f32[5,2]) {
  %0 = slice(%x) {dim=0, start=0, step=2} : f32[3,2]
  %1 = select(%0) {dim=1, index=1} : f32[3]
  %2 = fill_(%1, 7.0) : f32[3]
  %3 = exp(%x) : f32[5,2]
  return %3
})",
       nullptr},
      {"transpose_reshape_chain", R"(graph @f(%x: f32[2,3], %y: f32[6]) -> (f32[3,2], f32[2,3]) {
  %0 = transpose(%x) {dim0=0, dim1=1} : f32[3,2]
  %1 = reshape(%0) {shape=[6]} : f32[6]
  %2 = add_(%1, %y) : f32[6]
  %3 = mul(%x, 1.5) : f32[2,3]
  return %0, %3
})",
       nullptr},
      {"other_view_replayed", R"(graph @f(%x: f32[4]) -> (f32[2], f32[4]) {
  %0 = slice(%x) {dim=0, end=2} : f32[2]
  %1 = slice(%x) {dim=0, start=1, end=3} : f32[2]
  %2 = zero_(%1) : f32[2]
  %3 = add(%0, 1.0) : f32[2]
  return %3, %x
})",
       nullptr},
      {"split_chunk_narrow", R"(graph @f(%x: f32[6,2]) -> (f32[6,2]) {
  %0, %1, %2 = split(%x) {split_size=2} : (f32[2,2], f32[2,2], f32[2,2])
  %3 = mul_(%1, -1.0) : f32[2,2]
  %4, %5 = chunk(%x) {chunks=2, dim=1} : (f32[6,1], f32[6,1])
  %6 = add_(%5, 10.0) : f32[6,1]
  %7 = narrow(%x) {dim=0, length=2, start=-2} : f32[2,2]
  %8 = clamp_(%7) {max=0.5, min=-0.5} : f32[2,2]
  return %x
})",
       nullptr},
      {"permute_squeeze_unsqueeze_flatten", R"(graph @f(%x: f32[2,1,3]) -> (f32[2,1,3]) {
  %0 = permute(%x) {dims=[2, 0, 1]} : f32[3,2,1]
  %1 = squeeze(%0) {dim=[2]} : f32[3,2]
  %2 = unsqueeze(%1) {dim=0} : f32[1,3,2]
  %3 = flatten(%2) : f32[6]
  %4 = div_(%3, 4.0) : f32[6]
  %5 = t(%1) : f32[2,3]
  %6 = relu_(%5) : f32[2,3]
  return %x
})",
       nullptr},
      {"copy_cast_broadcast", R"(graph @f(%x: f32[2,3], %y: i64[3], %z: f32[]) -> (f32[2,3]) {
  %0 = copy_(%x, %y) : f32[2,3]
  %1 = select(%x) {dim=0, index=1} : f32[3]
  %2 = fill_(%1, %z) : f32[3]
  %3 = add(%x, 1.0) : f32[2,3]
  return %3
})",
       nullptr},
      {"masked_fill_and_index_put", R"(graph @f(%x: f32[4,3], %m: bool[4,3], %i: i64[2], %v: f32[2,3]) -> (f32[4,3]) {
  %0 = masked_fill_(%x, %m, -2.0) : f32[4,3]
  %1 = index_put_(%x, %i, %v) {accumulate=true} : f32[4,3]
  return %x
})",
       [](uint64_t seed) {
         return std::vector<Tensor>{Tensor::randn({4, 3}, seed), Tensor::randint(0, 2, {4, 3}, seed + 1, DType::Bool),
                                    Tensor::from_ints({0, 2}, {2}), Tensor::randn({2, 3}, seed + 2)};
       }},
      {"as_strided_write", R"(graph @f(%x: f32[3,3]) -> (f32[3,3], f32[2,2]) {
  %0 = as_strided(%x) {size=[2, 2], storage_offset=1, stride=[3, 1]} : f32[2,2]
  %1 = add_(%0, 5.0) : f32[2,2]
  %2 = as_strided(%x) {size=[2, 2], stride=[4, 1]} : f32[2,2]
  %3 = mul(%2, 2.0) : f32[2,2]
  return %x, %3
})",
       nullptr},
      {"copy_between_inputs_both_written", R"(graph @f(%x: f32[3], %y: f32[3]) -> (f32[3]) {
  %0 = copy_(%y, %x) : f32[3]
  %1 = copy_(%x, %0) : f32[3]
  %2 = add_(%x, 1.0) : f32[3]
  %3 = mul_(%y, 2.0) : f32[3]
  return %2
})",
       nullptr},
      {"swap_through_copies", R"(graph @f(%x: f32[3], %y: f32[3]) -> (f32[3]) {
  %0 = clone(%x) : f32[3]
  %1 = copy_(%x, %y) : f32[3]
  %2 = copy_(%y, %0) : f32[3]
  return %0
})",
       nullptr},
      {"mutation_inside_cond_body", R"(graph @f(%p: bool[], %x: f32[3]) -> (f32[3]) {
  %0 = cond(%p, %x) : (f32[3]) {
    true_fn = graph(%a: f32[3]) -> (f32[3]) {
      %0 = mul(%a, 2.0) : f32[3]
      %1 = slice(%0) {dim=0, start=1} : f32[2]
      %2 = add_(%1, 1.0) : f32[2]
      return %0
    }
    false_fn = graph(%a: f32[3]) -> (f32[3]) {
      %0 = neg(%a) : f32[3]
      return %0
    }
  }
  %1 = add_(%x, %0) : f32[3]
  return %0
})",
       nullptr},
      // The known gap of the older reference: f(a, b) { a.add_(1); return b * 2; } with b = a.
      {"aliased_same_tensor", R"(graph @f(%a: f32[2,3], %b: f32[2,3]) -> (f32[2,3]) {
  %0 = add_(%a, 1.0) : f32[2,3]
  %1 = mul(%b, 2.0) : f32[2,3]
  return %1
})",
       same_tensor({2, 3}), alias_options({{0, {2, 3}, {3, 1}, 0}, {1, {2, 3}, {3, 1}, 0}})},
      // ... and with b = a[1:], an overlapping view.
      {"aliased_overlapping_view", R"(graph @f(%a: f32[4,3], %b: f32[3,3]) -> (f32[3,3]) {
  %0 = add_(%a, 1.0) : f32[4,3]
  %1 = mul(%b, 2.0) : f32[3,3]
  return %1
})",
       rows_view, alias_options({{0, {4, 3}, {3, 1}, 0}, {1, {3, 3}, {3, 1}, 3}})},
      {"aliased_write_through_both", R"(graph @f(%a: f32[4,3], %b: f32[3,3]) -> (f32[4,3], f32[3,3]) {
  %0 = select(%b) {dim=0, index=0} : f32[3]
  %1 = mul_(%0, 10.0) : f32[3]
  %2 = sum(%a) {dim=[0]} : f32[3]
  %3 = slice(%a) {dim=0, end=2} : f32[2,3]
  %4 = sub_(%3, 1.0) : f32[2,3]
  %5 = exp(%b) : f32[3,3]
  return %a, %5
})",
       rows_view, alias_options({{0, {4, 3}, {3, 1}, 0}, {1, {3, 3}, {3, 1}, 3}})},
      {"aliased_transposed_member", R"(graph @f(%a: f32[2,3], %b: f32[3,2]) -> (f32[2,3]) {
  %0 = add_(%b, 1.0) : f32[3,2]
  %1 = neg(%a) : f32[2,3]
  return %1
})",
       [](uint64_t seed) {
         Tensor a = Tensor::randn({2, 3}, seed);
         return std::vector<Tensor>{a, a.as_strided({3, 2}, {1, 3}, 0)};
       },
       alias_options({{0, {2, 3}, {3, 1}, 0}, {1, {3, 2}, {1, 3}, 0}})},
  };
  return table;
}

TEST(Functionalize, MatchesTheInterpreterWithCopyWriteBacks) {
  for (const Program& p : programs())
    for (uint64_t seed : {1u, 2u}) check_program(p, /*keep_input_mutations=*/true, seed);
}

TEST(Functionalize, MatchesTheInterpreterWithWriteBackOutputs) {
  for (const Program& p : programs()) check_program(p, /*keep_input_mutations=*/false, 3);
}

TEST(Functionalize, InfoRecordsMutationsAndAliases) {
  auto g = parse_graph(R"(graph @f(%x: f32[2,3], %y: f32[3], %z: f32[3]) -> (f32[2,3], f32[3], f32[3]) {
  %0 = select(%x) {dim=0, index=1} : f32[3]
  %1 = add_(%0, %y) : f32[3]
  %2 = mul_(%z, 2.0) : f32[3]
  return %x, %0, %y
})");
  ASSERT_TRUE(g.has_value());
  auto info = functionalize(**g, {.aliased_inputs = {}, .keep_input_mutations = false});
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  ASSERT_EQ(info->inputs.size(), 3u);
  EXPECT_EQ(info->inputs[0].kind, MutationKind::Data);
  EXPECT_TRUE(info->inputs[0].written_through_view);
  EXPECT_EQ(info->inputs[1].kind, MutationKind::None);
  EXPECT_EQ(info->inputs[2].kind, MutationKind::Data);
  EXPECT_FALSE(info->inputs[2].written_through_view);
  ASSERT_EQ(info->outputs.size(), 3u);
  EXPECT_EQ(info->outputs[0].kind, OutputAliasKind::IsInput);
  EXPECT_EQ(info->outputs[0].base_index, 0);
  EXPECT_EQ(info->outputs[1].kind, OutputAliasKind::AliasOfInput);
  EXPECT_EQ(info->outputs[1].base_index, 0);
  EXPECT_EQ(info->outputs[2].kind, OutputAliasKind::IsInput);
  EXPECT_EQ(info->outputs[2].base_index, 1);
  EXPECT_EQ(info->write_back_inputs, (std::vector<int>{0, 2}));
  EXPECT_EQ((*g)->outputs().size(), 5u);  // three user outputs, then the final x and z
  EXPECT_EQ(count_inplace(**g), 0);
}

TEST(Functionalize, RejectsBadAliasGroups) {
  auto g = parse_graph(R"(graph @f(%a: f32[4], %b: f32[4]) -> (f32[4]) {
  return %a
})");
  ASSERT_TRUE(g.has_value());
  auto wrong_sizes = functionalize(**g, alias_options({{0, {4}, {1}, 0}, {1, {2, 2}, {2, 1}, 0}}));
  ASSERT_FALSE(wrong_sizes.has_value());
  EXPECT_NE(wrong_sizes.error().message().find("aliased input %b of type f32[4] does not fit its sizes and strides"),
            std::string::npos)
      << wrong_sizes.error().message();
  auto twice = functionalize(**g, alias_options({{0, {4}, {1}, 0}, {0, {4}, {1}, 0}}));
  ASSERT_FALSE(twice.has_value());
  EXPECT_NE(twice.error().message().find("input %a is named twice"), std::string::npos) << twice.error().message();
  auto out_of_range = functionalize(**g, alias_options({{0, {4}, {1}, 0}, {5, {4}, {1}, 0}}));
  ASSERT_FALSE(out_of_range.has_value());
  EXPECT_NE(out_of_range.error().message().find("aliased input 5 out of range"), std::string::npos);
  auto negative = functionalize(**g, alias_options({{0, {4}, {1}, 0}, {1, {4}, {-1}, 3}}));
  ASSERT_FALSE(negative.has_value());
  EXPECT_NE(negative.error().message().find("has a negative stride"), std::string::npos);
}

TEST(Functionalize, PackedAliasedInputDescribesAContiguousMember) {
  auto g = parse_graph(R"(graph @f(%a: f32[2,3,4], %b: f32[B]) -> (f32[2,3,4]) {
  return %a
})");
  ASSERT_TRUE(g.has_value());
  auto a = packed_aliased_input(**g, 0, 5);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->strides, (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(a->storage_offset, 5);
  auto b = packed_aliased_input(**g, 1);
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().message().find("symbolic shape [B]"), std::string::npos);
}

// A function with in-place ops, captured and functionalized, computes what it computes eagerly.
TEST(Functionalize, CapturedInplaceProgramMatchesEagerRun) {
  auto fn = [](std::span<const Tensor> in) -> std::vector<Tensor> {
    Tensor x = in[0];
    Tensor rows = slice(x, 0, 1, 3);
    mul_(rows, 3.0);
    Tensor col = select(x, 1, 0);
    add_(col, in[1]);
    Tensor y = exp(x);
    relu_(y);
    return {y, sum(x)};
  };
  Tensor x = Tensor::randn({4, 3}, 7), v = Tensor::randn({4}, 8);
  auto captured = capture(fn, {x.clone(), v.clone()});
  ASSERT_TRUE(captured.has_value()) << captured.error().to_string();
  ASSERT_GT(count_inplace(*captured->graph), 0);

  Tensor eager_x = x.clone();
  std::vector<Tensor> eager_inputs = {eager_x, v.clone()};
  std::vector<Tensor> expected = fn(eager_inputs);

  auto info = functionalize(*captured->graph);
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  EXPECT_EQ(info->write_back_inputs, (std::vector<int>{0}));
  EXPECT_EQ(count_inplace(*captured->graph), 1);  // the copy_ write-back into x
  std::vector<Tensor> inputs = {x.clone(), v.clone()};
  auto got = captured->run(inputs);
  ASSERT_TRUE(got.has_value()) << got.error().to_string();
  ASSERT_EQ(got->size(), expected.size());
  for (size_t j = 0; j < expected.size(); ++j) EXPECT_TRUE((*got)[j].equal(expected[j])) << "output " << j;
  EXPECT_TRUE(inputs[0].equal(eager_x));
}

}  // namespace
}  // namespace kiln
