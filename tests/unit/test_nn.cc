// nn modules: dotted names, train/eval, seeded initialization, Sequential and ModuleList,
// Dropout's seed, BatchNorm2d's running statistics.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/kiln.h"

namespace kiln {
namespace {

std::vector<std::string> names(const std::vector<std::pair<std::string, Tensor>>& named) {
  std::vector<std::string> out;
  for (const auto& [n, t] : named) out.push_back(n);
  return out;
}

struct Block : nn::Module {
  nn::Linear proj{4, 4, false, 2};
  nn::BatchNorm2d bn{4};
  Block() {
    register_parameter("scale", Tensor::full({1}, 2.0));
    register_module("proj", proj);
    register_module("bn", bn);
  }
};

TEST(Nn, NamedParametersAndBuffersUseDottedPaths) {
  Block b;
  EXPECT_EQ(names(b.named_parameters()), (std::vector<std::string>{"scale", "proj.weight", "bn.weight", "bn.bias"}));
  EXPECT_EQ(names(b.named_buffers()), (std::vector<std::string>{"bn.running_mean", "bn.running_var"}));
  EXPECT_EQ(b.parameters().size(), 4u);
}

TEST(Nn, TrainAndEvalReachEveryDescendant) {
  Block b;
  EXPECT_TRUE(b.bn.is_training());
  b.eval();
  EXPECT_FALSE(b.is_training());
  EXPECT_FALSE(b.bn.is_training());
  b.train();
  EXPECT_TRUE(b.proj.is_training());
}

TEST(Nn, LinearInitIsSeededAndBounded) {
  nn::Linear a(16, 8, true, 11), b(16, 8, true, 11), c(16, 8, true, 12);
  EXPECT_TRUE(a.weight.equal(b.weight));
  EXPECT_FALSE(a.weight.equal(c.weight));
  EXPECT_EQ(a.weight.sizes(), (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(a.bias.sizes(), (std::vector<int64_t>{8}));
  for (int64_t i = 0; i < a.weight.numel(); ++i) EXPECT_LE(std::fabs(a.weight.item_double(i)), 0.25);
}

TEST(Nn, SequentialNamesChildrenByIndexAndChainsThem) {
  nn::Sequential seq{std::make_shared<nn::Linear>(3, 5, true, 1),
                     std::make_shared<nn::LayerNorm>(std::vector<int64_t>{5}),
                     std::make_shared<nn::Linear>(5, 2, true, 2)};
  EXPECT_EQ(names(seq.named_parameters()),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias"}));
  Tensor y = seq(Tensor::randn({4, 3}, 0));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{4, 2}));
}

TEST(Nn, ModuleListHoldsTypedChildren) {
  nn::ModuleList list;
  list.push_back(std::make_shared<nn::Linear>(2, 2));
  list.push_back(std::make_shared<nn::Dropout>(0.1));
  EXPECT_EQ(list.size(), 2u);
  EXPECT_NE(list.at<nn::Linear>(0), nullptr);
  EXPECT_EQ(list.at<nn::Linear>(1), nullptr);
  EXPECT_EQ(names(list.named_parameters()), (std::vector<std::string>{"0.weight", "0.bias"}));
}

TEST(Nn, DropoutAdvancesItsSeedOnlyInTraining) {
  nn::Dropout d(0.5, 100);
  Tensor x = Tensor::full({64}, 1.0);
  Tensor first = d(x);
  Tensor second = d(x);
  EXPECT_EQ(d.seed, 102u);
  EXPECT_FALSE(first.equal(second));
  d.eval();
  EXPECT_TRUE(d(x).equal(x));
  EXPECT_EQ(d.seed, 102u);
}

TEST(Nn, BatchNormUpdatesRunningStatsInTraining) {
  nn::BatchNorm2d bn(1, 1e-05, 0.5);
  // One channel holding 1, 2, 3, 4: mean 2.5, unbiased variance 5/3.
  Tensor x = Tensor::from_doubles({1, 2, 3, 4}, {1, 1, 2, 2});
  (void)bn(x);
  EXPECT_DOUBLE_EQ(bn.running_mean.item_double(0), static_cast<double>(0.5f * 2.5f));
  EXPECT_NEAR(bn.running_var.item_double(0), 0.5 + 0.5 * (5.0 / 3.0), 1e-6);
  bn.eval();
  Tensor before = bn.running_mean.clone();
  (void)bn(x);
  EXPECT_TRUE(bn.running_mean.equal(before));
}

TEST(Nn, EmbeddingZeroesThePaddingRow) {
  nn::Embedding e(5, 3, /*padding_idx=*/2, 4);
  Tensor rows = e(Tensor::from_ints({2, 0}, {2}));
  EXPECT_EQ(rows.sizes(), (std::vector<int64_t>{2, 3}));
  for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(rows.item_double(j), 0.0);
}

}  // namespace
}  // namespace kiln
