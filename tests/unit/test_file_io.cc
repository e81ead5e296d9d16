// support/file_io.h: whole-file reads and writes, and errors that say which file and why.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/file_io.h"

namespace kiln {
namespace {

std::string scratch_path(const std::string& name) { return ::testing::TempDir() + "kiln_file_io_" + name; }

TEST(FileIo, RoundTripsBytes) {
  const std::string path = scratch_path("bytes");
  const std::string bytes("a\0b\xff\n", 5);
  ASSERT_TRUE(write_file_bytes(path, bytes).is_ok());
  Expected<std::string> back = read_file_bytes(path);
  ASSERT_TRUE(back.has_value()) << back.error().message();
  EXPECT_EQ(*back, bytes);
  std::filesystem::remove(path);
}

TEST(FileIo, ReadErrorsSayWhy) {
  Expected<std::string> missing = read_file_bytes("/nonexistent/dir/f");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message(), "cannot read /nonexistent/dir/f: No such file or directory");
  Expected<std::string> dir = read_file_bytes(::testing::TempDir());
  ASSERT_FALSE(dir.has_value());
  EXPECT_EQ(dir.error().message(), "cannot read " + ::testing::TempDir() + ": Is a directory");
}

TEST(FileIo, WriteErrorsSayWhy) {
  Status missing = write_file_bytes("/nonexistent/dir/f", "x");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.error().message(), "cannot write /nonexistent/dir/f: No such file or directory");
  Status dir = write_file_bytes(::testing::TempDir(), "x");
  ASSERT_FALSE(dir.is_ok());
  EXPECT_EQ(dir.error().message(), "cannot write " + ::testing::TempDir() + ": Is a directory");
}

// /dev/full accepts the open and fails every write with ENOSPC: the error shows at the write
// or, for bytes the stream buffered, at the close.
TEST(FileIo, FullDeviceSaysWhy) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "/dev/full is not available";
  for (const size_t n : {size_t{1}, size_t{1} << 20}) {
    Status s = write_file_bytes("/dev/full", std::string(n, 'x'));
    ASSERT_FALSE(s.is_ok()) << n << " bytes";
    EXPECT_EQ(s.error().message(), "cannot write /dev/full: No space left on device");
  }
}

}  // namespace
}  // namespace kiln
