// core: dtype promotion, 16-bit float conversions, Shape, Scalar text, tensor views and copies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "core/dtype.h"
#include "core/half.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/storage.h"
#include "core/tensor.h"

namespace kiln {
namespace {

constexpr DType kAll[] = {DType::Bool, DType::U8,  DType::I8,   DType::I16, DType::I32,
                          DType::I64,  DType::F16, DType::BF16, DType::F32, DType::F64};

// torch.promote_types(row, column) for torch 2.15, in kAll order (generated once with torch).
constexpr const char* kPromote[10][10] = {
    {"bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},         // bool
    {"u8", "u8", "i16", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},          // u8
    {"i8", "i16", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},          // i8
    {"i16", "i16", "i16", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},        // i16
    {"i32", "i32", "i32", "i32", "i32", "i64", "f16", "bf16", "f32", "f64"},        // i32
    {"i64", "i64", "i64", "i64", "i64", "i64", "f16", "bf16", "f32", "f64"},        // i64
    {"f16", "f16", "f16", "f16", "f16", "f16", "f16", "f32", "f32", "f64"},         // f16
    {"bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "f32", "bf16", "f32", "f64"},  // bf16
    {"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f64"},         // f32
    {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},         // f64
};

TEST(DType, PromoteTypesMatchesTorchForAllPairs) {
  for (int i = 0; i < kNumDTypes; ++i)
    for (int j = 0; j < kNumDTypes; ++j)
      EXPECT_EQ(dtype_name(promote_types(kAll[i], kAll[j])), kPromote[i][j])
          << dtype_name(kAll[i]) << " with " << dtype_name(kAll[j]);
}

TEST(DType, NamesRoundTripAndSizes) {
  constexpr int kSizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  for (int i = 0; i < kNumDTypes; ++i) {
    EXPECT_EQ(dtype_from_name(dtype_name(kAll[i])), kAll[i]);
    EXPECT_EQ(dtype_size(kAll[i]), kSizes[i]) << dtype_name(kAll[i]);
  }
  EXPECT_FALSE(dtype_from_name("float32").has_value());
  EXPECT_FALSE(dtype_from_name("").has_value());
}

TEST(DType, Categories) {
  EXPECT_TRUE(is_floating(DType::BF16));
  EXPECT_FALSE(is_floating(DType::I64));
  EXPECT_TRUE(is_integral(DType::U8));
  EXPECT_FALSE(is_integral(DType::Bool));
  EXPECT_FALSE(is_signed(DType::U8));
  EXPECT_TRUE(is_signed(DType::I8));
  EXPECT_EQ(dtype_category(DType::Bool), 0);
  EXPECT_EQ(dtype_category(DType::I16), 1);
  EXPECT_EQ(dtype_category(DType::F16), 2);
}

float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(Half, AllBitPatternsRoundTripThroughFloat) {
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = Half::to_float(static_cast<uint16_t>(b));
    uint16_t back = Half::from_float(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(Half::to_float(back))) << std::hex << b;
      EXPECT_EQ(back & 0x8000, b & 0x8000) << std::hex << b;
    } else {
      EXPECT_EQ(back, b) << std::hex << b;
    }
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(Half::from_float(1.0f), 0x3c00);
  EXPECT_EQ(Half::from_float(-2.0f), 0xc000);
  EXPECT_EQ(Half::from_float(65504.0f), 0x7bff);
  EXPECT_EQ(Half::from_float(65520.0f), 0x7c00);  // halfway to the next power: rounds to inf
  EXPECT_EQ(Half::from_float(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(Half::from_float(-0.0f), 0x8000);
  EXPECT_EQ(Half::from_float(5.960464477539063e-08f), 0x0001);   // smallest subnormal
  EXPECT_EQ(Half::from_float(2.9802322387695312e-08f), 0x0000);  // half of it: tie to even (0)
  EXPECT_EQ(Half::from_float(8.940696716308594e-08f), 0x0002);   // 1.5 units: tie to even (2)
}

// Between every pair of adjacent finite halves, the exact midpoint (a float) rounds to the
// one with an even mantissa, and anything just off the midpoint rounds to the nearer one.
TEST(Half, RoundingTiesToEvenEverywhere) {
  for (uint32_t b = 0; b < 0x7bff; ++b) {
    float lo = Half::to_float(static_cast<uint16_t>(b)), hi = Half::to_float(static_cast<uint16_t>(b + 1));
    float mid = lo + (hi - lo) / 2;
    uint16_t even = (b & 1) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
    ASSERT_EQ(Half::from_float(mid), even) << std::hex << b;
    ASSERT_EQ(Half::from_float(-mid), even | 0x8000) << std::hex << b;
    ASSERT_EQ(Half::from_float(std::nextafter(mid, lo)), b) << std::hex << b;
    ASSERT_EQ(Half::from_float(std::nextafter(mid, hi)), b + 1) << std::hex << b;
  }
}

TEST(BFloat16, AllBitPatternsRoundTripThroughFloat) {
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = BFloat16::to_float(static_cast<uint16_t>(b));
    uint16_t back = BFloat16::from_float(f);
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(BFloat16::to_float(back))) << std::hex << b;
    else
      EXPECT_EQ(back, b) << std::hex << b;
  }
}

TEST(BFloat16, RoundingTiesToEven) {
  EXPECT_EQ(BFloat16::from_float(bits_to_float(0x3f808000u)), 0x3f80);  // tie, even below
  EXPECT_EQ(BFloat16::from_float(bits_to_float(0x3f818000u)), 0x3f82);  // tie, even above
  EXPECT_EQ(BFloat16::from_float(bits_to_float(0x3f808001u)), 0x3f81);  // just above the tie
  EXPECT_EQ(BFloat16::from_float(bits_to_float(0x3f807fffu)), 0x3f80);  // just below
  EXPECT_EQ(BFloat16::from_float(bits_to_float(0x7f7fffffu)), 0x7f80);  // max float rounds to inf
  EXPECT_TRUE(std::isnan(BFloat16::to_float(BFloat16::from_float(std::nanf("")))));
}

TEST(Shape, StaticAndSymbolic) {
  Shape s{2, 3, 4};
  EXPECT_TRUE(s.is_static());
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.to_string(), "[2,3,4]");
  EXPECT_EQ(Shape().to_string(), "[]");
  EXPECT_EQ(Shape().numel(), 1);

  Shape d({Dim::symbol("B"), Dim(16)});
  EXPECT_FALSE(d.is_static());
  EXPECT_EQ(d.to_string(), "[B,16]");
  EXPECT_TRUE(d[0].is_symbolic());
  EXPECT_EQ(d[0].symbol_name(), "B");
  Shape bound = d.bind({{"B", 4}});
  EXPECT_TRUE(bound.is_static());
  EXPECT_EQ(bound.sizes(), (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(d.bind({{"C", 4}}), d);
  EXPECT_EQ(Shape::from_sizes({0, 5}).numel(), 0);
}

TEST(Shape, WrapDim) {
  EXPECT_EQ(wrap_dim(-1, 3), 2);
  EXPECT_EQ(wrap_dim(0, 3), 0);
  EXPECT_EQ(wrap_dim(-3, 3), 0);
  EXPECT_FALSE(wrap_dim(3, 3).has_value());
  EXPECT_FALSE(wrap_dim(-4, 3).has_value());
}

TEST(Scalar, ToStringForms) {
  EXPECT_EQ(Scalar().to_string(), "none");
  EXPECT_EQ(Scalar(true).to_string(), "true");
  EXPECT_EQ(Scalar(int64_t{-3}).to_string(), "-3");
  EXPECT_EQ(Scalar(0.5).to_string(), "0.5");
  EXPECT_EQ(Scalar(1.0).to_string(), "1.0");
  EXPECT_EQ(Scalar(std::numeric_limits<double>::infinity()).to_string(), "inf");
  EXPECT_EQ(Scalar(-std::numeric_limits<double>::infinity()).to_string(), "-inf");
  EXPECT_EQ(Scalar(std::nan("")).to_string(), "nan");
}

// Every float's text reads as a float literal and parses back to the same bits.
TEST(Scalar, FloatTextRoundTrips) {
  const double values[] = {0.0,
                           -0.0,
                           1.0,
                           -1.5,
                           0.1,
                           1e-5,
                           1e300,
                           -2.5e-300,
                           3.141592653589793,
                           1e16,
                           123456789.0,
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max()};
  for (double v : values) {
    std::string s = Scalar(v).to_string();
    EXPECT_NE(s.find_first_of(".e"), std::string::npos) << s;
    double back = std::strtod(s.c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&back, &v, sizeof v), 0) << s;
    EXPECT_EQ(Scalar(back), Scalar(v)) << s;
  }
  EXPECT_NE(Scalar(0.0), Scalar(-0.0));  // bitwise
  EXPECT_EQ(Scalar(std::nan("")), Scalar(std::nan("")));
  EXPECT_NE(Scalar(int64_t{1}), Scalar(1.0));  // kinds differ
}

TEST(Scalar, Conversions) {
  EXPECT_EQ(Scalar(2.9).to_int(), 2);
  EXPECT_EQ(Scalar(-2.9).to_int(), -2);
  EXPECT_EQ(Scalar(true).to_double(), 1.0);
  EXPECT_EQ(Scalar(int64_t{7}).natural_dtype(), DType::I64);
  EXPECT_EQ(Scalar(7.0).natural_dtype(), DType::F32);
  EXPECT_EQ(Scalar(false).natural_dtype(), DType::Bool);
}

Tensor iota(std::vector<int64_t> sizes, DType dtype = DType::F32) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i));
  return Tensor::from_doubles(v, sizes, dtype);
}

// Storage starts on a cache line (64 bytes) whatever its size, zeroed or not, empty included, so
// that vector loads and stores of a tensor's rows do not straddle two lines; the zero-filling
// constructor zeroes every byte.
TEST(Storage, StartsOnA64ByteBoundaryAndZeroes) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{4096}, size_t{5} << 20}) {
    Storage zeroed(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(zeroed.data()) % Storage::kAlignment, 0u) << n;
    for (size_t i = 0; i < n; i += 997) EXPECT_EQ(zeroed.data()[i], std::byte{0}) << n << " at " << i;
    std::unique_ptr<Storage> raw = Storage::uninitialized(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(raw->data()) % Storage::kAlignment, 0u) << n;
    EXPECT_EQ(raw->nbytes(), n);
  }
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Tensor::randn({3, 5}, 1).data_bytes()) % Storage::kAlignment, 0u);
}

TEST(Tensor, ContiguousOfTransposedView) {
  Tensor a = iota({2, 3});
  Tensor t = a.as_strided({3, 2}, {1, 3}, 0);  // a.t()
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.item_double(1), 3.0);  // t[0][1] = a[1][0]
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.storage(), a.storage());
  EXPECT_TRUE(c.equal(Tensor::from_doubles({0, 3, 1, 4, 2, 5}, {3, 2})));
  EXPECT_EQ(a.contiguous().storage(), a.storage());  // already contiguous: no copy
}

TEST(Tensor, ViewsShareStorage) {
  Tensor a = iota({4, 4});
  Tensor row = a.as_strided({4}, {1}, 8);          // a[2]
  Tensor col = a.as_strided({4}, {4}, 1);          // a[:, 1]
  Tensor bcast = a.as_strided({3, 4}, {0, 1}, 0);  // a[0] expanded
  EXPECT_TRUE(row.equal(Tensor::from_doubles({8, 9, 10, 11}, {4})));
  EXPECT_TRUE(col.equal(Tensor::from_doubles({1, 5, 9, 13}, {4})));
  EXPECT_EQ(bcast.item_double(9), 1.0);
  col.copy_from(Tensor::full({4}, Scalar(-1.0), DType::F64));  // writes through, converting
  EXPECT_EQ(a.item_double(5), -1.0);
  EXPECT_EQ(a.item_double(13), -1.0);
  EXPECT_EQ(row.item_double(1), -1.0);
}

TEST(Tensor, ToDtypeConverts) {
  Tensor a = Tensor::from_doubles({1.5, -2.5, 300.0, 0.0}, {4}, DType::F64);
  EXPECT_TRUE(a.to(DType::I32).equal(Tensor::from_ints({1, -2, 300, 0}, {4}, DType::I32)));
  EXPECT_TRUE(a.to(DType::U8).equal(Tensor::from_ints({1, 254, 44, 0}, {4}, DType::U8)));
  EXPECT_TRUE(a.to(DType::Bool).equal(Tensor::from_ints({1, 1, 1, 0}, {4}, DType::Bool)));
  EXPECT_TRUE(a.to(DType::F16).to(DType::F64).equal(a));
  EXPECT_EQ(a.to(DType::F64).storage(), a.storage());  // same dtype: no copy
  Tensor big = Tensor::from_ints({int64_t{1} << 40, -1}, {2}, DType::I64);
  EXPECT_TRUE(big.to(DType::I32).equal(Tensor::from_ints({0, -1}, {2}, DType::I32)));  // wraps
}

TEST(Tensor, EqualIsExact) {
  Tensor a = Tensor::from_doubles({0.0, std::nan("")}, {2});
  EXPECT_TRUE(a.equal(Tensor::from_doubles({0.0, std::nan("")}, {2})));
  EXPECT_FALSE(a.equal(Tensor::from_doubles({-0.0, std::nan("")}, {2})));
  EXPECT_FALSE(a.equal(a.to(DType::F64)));
  EXPECT_FALSE(a.equal(Tensor::from_doubles({0.0, std::nan("")}, {1, 2})));
}

TEST(Tensor, RandomIsSeeded) {
  Tensor a = Tensor::randn({5, 7}, 42);
  EXPECT_TRUE(a.equal(Tensor::randn({5, 7}, 42)));
  EXPECT_FALSE(a.equal(Tensor::randn({5, 7}, 43)));
  Tensor r = Tensor::randint(-3, 4, {1000}, 1);
  for (int64_t i = 0; i < r.numel(); ++i) {
    EXPECT_GE(r.item_int(i), -3);
    EXPECT_LT(r.item_int(i), 4);
  }
  Tensor u = Tensor::rand({1000}, 2, DType::BF16);
  for (int64_t i = 0; i < u.numel(); ++i) {
    EXPECT_GE(u.item_double(i), 0.0);
    EXPECT_LT(u.item_double(i), 1.0);
  }
}

TEST(Tensor, ZeroDimAndEmpty) {
  Tensor s = Tensor::scalar(Scalar(3.5), DType::F32);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.item().to_double(), 3.5);
  Tensor e = Tensor::empty({0, 3});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_TRUE(e.contiguous().equal(e));
  EXPECT_TRUE(e.to(DType::I8).equal(Tensor::empty({0, 3}, DType::I8)));
}

}  // namespace
}  // namespace kiln
