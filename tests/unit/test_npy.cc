// .npy reading and writing (core/npy.h). NumPy's side of the contract (numpy reads what kiln
// writes and the reverse) is checked by tests/oracle/cases_npy.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include <unistd.h>

#include "core/npy.h"

namespace kiln {
namespace {

constexpr DType kAll[] = {DType::Bool, DType::U8,  DType::I8,   DType::I16, DType::I32,
                          DType::I64,  DType::F16, DType::BF16, DType::F32, DType::F64};

// A .npy file with the given header dict text and data bytes (header padded to 64 bytes).
std::string make_npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  size_t len_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  size_t used = 6 + 2 + len_bytes + header.size() + 1;
  header.append((64 - used % 64) % 64, ' ');
  header += '\n';
  for (size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string bytes_of(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

// Values that exercise each dtype: extremes, signed zero, NaN/inf for floats.
Tensor sample(DType dtype) {
  if (dtype == DType::Bool) return Tensor::from_ints({1, 0, 0, 1, 1, 0}, {2, 3}, dtype);
  if (is_floating(dtype)) {
    double inf = std::numeric_limits<double>::infinity();
    return Tensor::from_doubles({1.5, -0.0, std::nan(""), inf, -inf, 3.0e-3}, {2, 3}, dtype);
  }
  int bits = 8 * dtype_size(dtype);
  int64_t lo = !is_signed(dtype)     ? 0
               : dtype == DType::I64 ? std::numeric_limits<int64_t>::min()
                                     : -(int64_t{1} << (bits - 1));
  int64_t hi = dtype == DType::I64 ? std::numeric_limits<int64_t>::max()
                                   : (int64_t{1} << (bits - (is_signed(dtype) ? 1 : 0))) - 1;
  return Tensor::from_ints({lo, hi, 0, 1, -1, 42}, {2, 3}, dtype);
}

std::string error_of(std::string_view bytes, std::string_view name = "f.npy") {
  Expected<Tensor> t = npy_from_bytes(bytes, name);
  EXPECT_FALSE(t.has_value());
  return t.has_value() ? std::string() : t.error().message();
}

TEST(Npy, AllDtypesRoundTrip) {
  for (DType dt : kAll) {
    Tensor t = sample(dt);
    std::string bytes = npy_to_bytes(t);
    Expected<Tensor> back = npy_from_bytes(bytes);
    ASSERT_TRUE(back.has_value()) << dtype_name(dt) << ": " << back.error().to_string();
    EXPECT_TRUE(back->equal(t)) << dtype_name(dt);
  }
}

TEST(Npy, HeaderIsNumpyStyleAndAligned) {
  std::string bytes = npy_to_bytes(Tensor::zeros({2, 3}));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + header_len + 24);
  std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u) << header;
  EXPECT_EQ(header.back(), '\n');
}

TEST(Npy, DescrsAndShapeText) {
  EXPECT_EQ(npy_descr(DType::Bool), "|b1");
  EXPECT_EQ(npy_descr(DType::U8), "|u1");
  EXPECT_EQ(npy_descr(DType::I16), "<i2");
  EXPECT_EQ(npy_descr(DType::F16), "<f2");
  EXPECT_EQ(npy_descr(DType::BF16), "[('bf16', '<u2')]");
  std::string one = npy_to_bytes(Tensor::zeros({5}, DType::BF16));
  EXPECT_NE(one.find("{'descr': [('bf16', '<u2')], 'fortran_order': False, 'shape': (5,), }"), std::string::npos);
  std::string zero = npy_to_bytes(Tensor::scalar(Scalar(1.0), DType::F64));
  EXPECT_NE(zero.find("'shape': (), }"), std::string::npos);
}

TEST(Npy, Bf16StoresRawBits) {
  Tensor t = Tensor::from_doubles({1.0, -2.0}, {2}, DType::BF16);
  std::string bytes = npy_to_bytes(t);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), std::string("\x80\x3f\x00\xc0", 4));
}

TEST(Npy, ViewsAreWrittenContiguously) {
  Tensor a = Tensor::from_doubles({0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor t = a.as_strided({3, 2}, {1, 3}, 0);  // transpose
  Tensor s = a.as_strided({2, 2}, {3, 1}, 1);  // a[:, 1:]
  Tensor e = a.as_strided({2, 4}, {0, 0}, 5);  // broadcast of one element
  for (const Tensor& v : {t, s, e}) {
    Expected<Tensor> back = npy_from_bytes(npy_to_bytes(v));
    ASSERT_TRUE(back.has_value());
    EXPECT_TRUE(back->equal(v));
    EXPECT_TRUE(back->is_contiguous());
    EXPECT_EQ(npy_to_bytes(v), npy_to_bytes(v.clone()));
  }
}

TEST(Npy, EmptyAndZeroDim) {
  for (const Tensor& t : {Tensor::empty({0}), Tensor::empty({0, 3}, DType::I32), Tensor::empty({4, 0, 2}, DType::BF16),
                          Tensor::scalar(Scalar(3.5), DType::F32), Tensor::scalar(Scalar(true), DType::Bool)}) {
    Expected<Tensor> back = npy_from_bytes(npy_to_bytes(t));
    ASSERT_TRUE(back.has_value()) << back.error().to_string();
    EXPECT_TRUE(back->equal(t)) << t.to_string();
    EXPECT_EQ(back->sizes(), t.sizes());
  }
}

TEST(Npy, ReadsVersions2And3) {
  int32_t v[3] = {7, -8, 9};
  for (int major : {2, 3}) {
    Expected<Tensor> t =
        npy_from_bytes(make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", bytes_of(v, 12), major));
    ASSERT_TRUE(t.has_value()) << t.error().to_string();
    EXPECT_TRUE(t->equal(Tensor::from_ints({7, -8, 9}, {3}, DType::I32)));
  }
}

TEST(Npy, ReadsHeaderVariants) {
  double v[2] = {1.0, 2.0};
  // Keys in another order, double quotes, no trailing comma, '=' byte order, extra spaces.
  Expected<Tensor> t =
      npy_from_bytes(make_npy("{\"shape\": (2 ,),'descr':'=f8' , 'fortran_order':False}", bytes_of(v, 16)));
  ASSERT_TRUE(t.has_value()) << t.error().to_string();
  EXPECT_TRUE(t->equal(Tensor::from_doubles({1, 2}, {2}, DType::F64)));
  // A one-byte type with '<' and a bool byte other than 1.
  Expected<Tensor> b =
      npy_from_bytes(make_npy("{'descr': '<b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x00\x05", 2)));
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->equal(Tensor::from_ints({0, 1}, {2}, DType::Bool)));
}

TEST(Npy, ByteSwapsBigEndian) {
  const char data[] = "\x00\x00\x01\x02\xff\xff\xff\xfe";
  Expected<Tensor> t =
      npy_from_bytes(make_npy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", bytes_of(data, 8)));
  ASSERT_TRUE(t.has_value()) << t.error().to_string();
  EXPECT_TRUE(t->equal(Tensor::from_ints({258, -2}, {2}, DType::I32)));
  const char bf[] = "\x3f\x80";
  Expected<Tensor> b =
      npy_from_bytes(make_npy("{'descr': [('bf16', '>u2')], 'fortran_order': False, 'shape': (), }", bytes_of(bf, 2)));
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  EXPECT_EQ(b->item_double(), 1.0);
}

TEST(Npy, FortranOrderIsTransposedToC) {
  // The 2x3 matrix [[0,1,2],[3,4,5]] in column-major order.
  float v[6] = {0, 3, 1, 4, 2, 5};
  Expected<Tensor> t =
      npy_from_bytes(make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", bytes_of(v, 24)));
  ASSERT_TRUE(t.has_value()) << t.error().to_string();
  EXPECT_TRUE(t->equal(Tensor::from_doubles({0, 1, 2, 3, 4, 5}, {2, 3})));
  EXPECT_TRUE(t->is_contiguous());
  // 3-d: element (i, j, k) at i + 2j + 4k.
  int8_t w[8];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) w[i + 2 * j + 4 * k] = static_cast<int8_t>(4 * i + 2 * j + k);
  Expected<Tensor> u =
      npy_from_bytes(make_npy("{'descr': '|i1', 'fortran_order': True, 'shape': (2, 2, 2), }", bytes_of(w, 8)));
  ASSERT_TRUE(u.has_value());
  EXPECT_TRUE(u->equal(Tensor::from_ints({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2}, DType::I8)));
}

TEST(Npy, FilesRoundTrip) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kiln_npy_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "t.npy").string();
  Tensor t = Tensor::randn({3, 4}, 7, DType::F64);
  ASSERT_TRUE(write_npy(path, t).is_ok());
  Expected<Tensor> back = read_npy(path);
  ASSERT_TRUE(back.has_value()) << back.error().to_string();
  EXPECT_TRUE(back->equal(t));
  std::filesystem::remove_all(dir);
}

// ---- errors: each names the file and the problem ----

TEST(NpyErrors, MissingFile) {
  Expected<Tensor> t = read_npy("/nonexistent/dir/x.npy");
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().message(), "cannot read /nonexistent/dir/x.npy: No such file or directory");
}

TEST(NpyErrors, UnwritablePath) {
  Status s = write_npy("/nonexistent/dir/x.npy", Tensor::zeros({1}));
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "cannot write /nonexistent/dir/x.npy: No such file or directory");
  Status dir = write_npy(::testing::TempDir(), Tensor::zeros({1}));
  ASSERT_FALSE(dir.is_ok());
  EXPECT_NE(dir.error().message().find(": Is a directory"), std::string::npos) << dir.error().message();
}

TEST(NpyErrors, BadMagic) {
  EXPECT_EQ(error_of("PK\x03\x04 not numpy"), "f.npy: not a .npy file (bad magic string; expected \\x93NUMPY)");
  EXPECT_EQ(error_of(""), "f.npy: not a .npy file (bad magic string; expected \\x93NUMPY)");
}

TEST(NpyErrors, BadVersion) {
  std::string b = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", "\0\0\0\0");
  b[6] = 4;
  EXPECT_EQ(error_of(b), "f.npy: unsupported .npy format version 4.0 (kiln reads 1.0, 2.0 and 3.0)");
}

TEST(NpyErrors, TruncatedHeader) {
  std::string b = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", "");
  EXPECT_EQ(error_of(b.substr(0, 7)), "f.npy: truncated header (no format version)");
  EXPECT_EQ(error_of(b.substr(0, 9)), "f.npy: truncated header (no header length)");
  EXPECT_EQ(error_of(b.substr(0, 40)),
            "f.npy: truncated header (the header says 118 bytes, the file has 30 after the header length)");
}

TEST(NpyErrors, MalformedHeader) {
  auto err = [](const std::string& dict) { return error_of(make_npy(dict, "")); };
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': (0,)"),
            "f.npy: malformed header: expected ',' or '}' in the header dict at header offset 118");
  EXPECT_EQ(err("['descr']"), "f.npy: malformed header: not a dict");
  EXPECT_EQ(err("{'descr': '<f4', 'shape': (0,)}"),
            "f.npy: malformed header: it needs the keys 'descr', 'fortran_order' and 'shape'");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), 'x': 1}"),
            "f.npy: malformed header: unexpected key 'x'");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': 0, 'shape': (0,)}"),
            "f.npy: malformed header: 'fortran_order' is not True or False");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': [0]}"),
            "f.npy: malformed header: 'shape' is not a tuple");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}"),
            "f.npy: malformed header: shape (2, -1) has an entry that is not a size");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4)}"),
            "f.npy: malformed header: shape (0, 4611686018427387904, 4) is too large");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
            "f.npy: malformed header: integer too large at header offset 69");
  EXPECT_EQ(err("{'descr': '<f4', 'fortran_order': False, 'shape': ((((((((((0,),),),),),),),),),)}"),
            "f.npy: malformed header: header nests too deeply at header offset 58");
  std::string bad = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", "");
  bad[20] = '\x01';
  EXPECT_EQ(error_of(bad), "f.npy: malformed header (unexpected byte 1 in the header text)");
}

TEST(NpyErrors, UnsupportedDescr) {
  auto err = [](const std::string& descr) {
    return error_of(make_npy("{'descr': " + descr + ", 'fortran_order': False, 'shape': (1,), }", "\0\0\0\0\0\0\0\0"));
  };
  const std::string known = " (kiln reads |b1 |u1 |i1 <i2 <i4 <i8 <f2 <f4 <f8 and [('bf16', '<u2')])";
  EXPECT_EQ(err("'<u2'"), "f.npy: unsupported descr '<u2'" + known);
  EXPECT_EQ(err("'<c8'"), "f.npy: unsupported descr '<c8'" + known);
  EXPECT_EQ(err("'|f4'"), "f.npy: unsupported descr '|f4'" + known);
  EXPECT_EQ(err("'<U3'"), "f.npy: unsupported descr '<U3'" + known);
  EXPECT_EQ(err("[('x', '<u2')]"), "f.npy: unsupported descr [('x', '<u2')]" + known);
  EXPECT_EQ(err("[('bf16', '<u2'), ('y', '<f4')]"), "f.npy: unsupported descr [('bf16', '<u2'), ('y', '<f4')]" + known);
}

TEST(NpyErrors, DataSizeMismatch) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(error_of(make_npy(dict, std::string(20, '\0'))),
            "f.npy: data size mismatch: shape (2, 3) of '<f4' needs 24 bytes, the file has 20");
  EXPECT_EQ(error_of(make_npy(dict, std::string(28, '\0'))),
            "f.npy: data size mismatch: shape (2, 3) of '<f4' needs 24 bytes, the file has 28");
  EXPECT_EQ(
      error_of(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", "")),
      "f.npy: data size mismatch: shape (2305843009213693952,) of '<f8' needs more than 2^63 bytes, the file has 0");
  EXPECT_EQ(error_of(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "")),
            "f.npy: malformed header: shape (4294967296, 4294967296) is too large");
}

TEST(NpyErrors, ErrorsNameTheFile) {
  std::string path =
      (std::filesystem::temp_directory_path() / ("kiln_bad_" + std::to_string(::getpid()) + ".npy")).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("garbage", f);
  std::fclose(f);
  Expected<Tensor> t = read_npy(path);
  std::remove(path.c_str());
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().message().rfind(path + ": not a .npy file", 0), 0u) << t.error().message();
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

TEST(NpyErrors, WriteOfAnUndefinedTensor) {
  Status s = write_npy("/tmp/kiln_never_written.npy", Tensor());
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "/tmp/kiln_never_written.npy: cannot write a traced or undefined tensor");
}

// /dev/full accepts the open and fails every write with ENOSPC.
TEST(NpyErrors, WriteErrorIsReported) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "/dev/full is not available";
  Status s = write_npy("/dev/full", Tensor::zeros({1024}));
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "cannot write /dev/full: No space left on device");
}

TEST(NpyErrors, DirectoryIsNotAFile) {
  auto t = read_npy("/tmp");
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().message(), "/tmp: is a directory, not a .npy file");
}

}  // namespace
}  // namespace kiln
