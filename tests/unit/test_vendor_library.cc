// Vendor libraries opened at run time (runtime/cuda/vendor_library.h): where a CUDA toolkit
// library is looked for, and the errors for a library or an entry point that is not there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "runtime/cuda/vendor_library.h"

namespace kiln {
namespace {

// Sets an environment variable for the test's lifetime and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(VendorLibrary, ToolkitLibrariesAreLookedForOnTheLoaderPathThenCudaHomeThenThePythonEnvironment) {
  std::filesystem::path env =
      std::filesystem::temp_directory_path() / ("kiln_test_vendor_library_" + std::to_string(getpid()));
  std::filesystem::path wheel_lib = env / "lib" / "python3.11" / "site-packages" / "nvidia" / "cu13" / "lib";
  std::filesystem::create_directories(wheel_lib);
  ScopedEnv cuda_home("CUDA_HOME", "/opt/cuda-test");
  ScopedEnv virtual_env("VIRTUAL_ENV", env.string());
  EXPECT_EQ(
      cuda_toolkit_library_candidates("libnvrtc.so.13"),
      (std::vector<std::string>{"libnvrtc.so.13", "/opt/cuda-test/lib64/libnvrtc.so.13",
                                "/usr/local/cuda/lib64/libnvrtc.so.13", (wheel_lib / "libnvrtc.so.13").string()}));
  std::filesystem::remove_all(env);
}

TEST(VendorLibrary, NoCandidateOpensSaysEachReasonAndTheAdvice) {
  auto lib = VendorLibrary::open({"/nonexistent/a.so", "/nonexistent/b.so"}, "Thing", "install it");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().message(),
            "Thing not found (/nonexistent/a.so: cannot open shared object file: No such file or directory; "
            "/nonexistent/b.so: cannot open shared object file: No such file or directory): install it");
}

TEST(VendorLibrary, AMissingEntryPointNamesItAndTheLibrary) {
  auto lib = VendorLibrary::open({"/nonexistent/a.so", "libc.so.6"}, "libc", "");
  ASSERT_TRUE(lib) << lib.error().message();
  EXPECT_EQ(lib->path(), "libc.so.6");
  void (*fn)() = nullptr;
  Status missing = lib->resolve("kiln_no_such_entry_point", fn);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), "libc: kiln_no_such_entry_point is missing from libc.so.6");
  EXPECT_TRUE(lib->resolve("getpid", fn));
  EXPECT_NE(fn, nullptr);
}

}  // namespace
}  // namespace kiln
