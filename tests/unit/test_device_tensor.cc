// Tensors on a device (core/device_memory.h, Storage, Tensor::to) without a GPU: a fake device
// (fake_device_memory.h) stands in for CUDA, its memory unreadable from the host, so every path
// that reaches a device's bytes must go through its copies. Core only (it builds with support/ and
// core/ alone); the runners given device tensors: test_device_tensor_runners.cc. Real GPUs: tests/gpu/.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "core/npy.h"
#include "core/tensor_compare.h"
#include "device_tensor_util.h"
#include "fake_device_memory.h"

namespace kiln {
namespace {

using device_test::contains;
using device_test::error_of;
using device_test::FakeDevice;

constexpr DType kAllDTypes[] = {DType::Bool, DType::U8,  DType::I8,   DType::I16, DType::I32,
                                DType::I64,  DType::F16, DType::BF16, DType::F32, DType::F64};

// Six values of `dtype`, with its extremes (and NaN and infinities for floats).
Tensor sample(DType dtype) {
  if (dtype == DType::Bool) return Tensor::from_ints({1, 0, 0, 1, 1, 0}, {2, 3}, dtype);
  const double inf = std::numeric_limits<double>::infinity();
  if (is_floating(dtype)) return Tensor::from_doubles({1.5, -0.0, std::nan(""), inf, -inf, 3.0e-3}, {2, 3}, dtype);
  return Tensor::from_ints({-1, 127, 0, 1, 42, 100}, {2, 3}, dtype);
}

// The fake is what makes the other tests mean something: a host read of its memory faults.
TEST(FakeDeviceDeathTest, HostReadOfDeviceMemoryFaults) {
  FakeDevice device;
  const Tensor t = Tensor::full({4}, 2.0).to(Device::cuda());
  EXPECT_DEATH(
      {
        volatile float x = *reinterpret_cast<const float*>(t.address());
        (void)x;
      },
      "");
}

TEST(DeviceTensor, EveryDtypeRoundTripsThroughTheDevice) {
  FakeDevice device;
  for (DType dtype : kAllDTypes) {
    const Tensor host = sample(dtype);
    const Tensor on_device = host.to(Device::cuda());
    EXPECT_EQ(on_device.device(), Device::cuda());
    EXPECT_EQ(on_device.dtype(), dtype);
    EXPECT_EQ(on_device.sizes(), host.sizes());
    const Tensor back = on_device.cpu();
    EXPECT_TRUE(back.device().is_cpu());
    EXPECT_TRUE(back.equal(host)) << dtype_name(dtype) << ": " << back.to_string();
  }
  EXPECT_EQ(device.copies_to_device, 10);
  EXPECT_EQ(device.copies_to_host, 10);
}

TEST(DeviceTensor, ToItsOwnDeviceIsTheSameView) {
  FakeDevice device;
  const Tensor host = Tensor::randn({3, 4}, 1);
  EXPECT_EQ(host.to(Device::cpu()).storage(), host.storage());
  const Tensor on_device = host.cuda();
  EXPECT_EQ(on_device.to(Device::cuda(0)).storage(), on_device.storage());
  EXPECT_EQ(device.copies_to_device, 1);
}

TEST(DeviceTensor, DeviceStorageIsZeroedAndFreed) {
  FakeDevice device;
  {
    Storage storage(100, Device::cuda());
    EXPECT_EQ(storage.device(), Device::cuda());
    EXPECT_EQ(device.in_use(), 100u);
    const Tensor zeros =
        Tensor::over_storage(std::shared_ptr<Storage>(&storage, [](Storage*) {}), DType::U8, {100}, {1}, 0);
    EXPECT_TRUE(zeros.cpu().equal(Tensor::zeros({100}, DType::U8)));
  }
  EXPECT_EQ(device.in_use(), 0u);
  EXPECT_EQ(device.frees, 1);
}

TEST(DeviceTensor, NonContiguousHostTensorArrivesContiguous) {
  FakeDevice device;
  const Tensor host = Tensor::randn({3, 5}, 2);
  const Tensor transposed = host.as_strided({5, 3}, {1, 5}, 0);
  const Tensor on_device = transposed.to(Device::cuda());
  EXPECT_TRUE(on_device.is_contiguous());
  EXPECT_TRUE(on_device.cpu().equal(transposed.contiguous()));
}

// A strided view of device memory comes back with its values: the bytes the view reaches are
// copied once, then packed on the host.
TEST(DeviceTensor, NonContiguousDeviceViewComesBackContiguous) {
  FakeDevice device;
  const Tensor host = Tensor::from_ints({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}, DType::I32);
  const Tensor on_device = host.cuda();
  const Tensor column_pairs = on_device.as_strided({2, 3}, {1, 4}, 1);  // host.t()[1:3]
  const Tensor back = column_pairs.cpu();
  EXPECT_TRUE(back.is_contiguous());
  EXPECT_TRUE(back.equal(Tensor::from_ints({1, 5, 9, 2, 6, 10}, {2, 3}, DType::I32))) << back.to_string();
  const Tensor reversed = on_device.as_strided({4}, {-1}, 3);
  EXPECT_TRUE(reversed.cpu().equal(Tensor::from_ints({3, 2, 1, 0}, {4}, DType::I32)));
  EXPECT_EQ(on_device.as_strided({0, 3}, {1, 4}, 1).cpu().sizes(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(device.copies_to_host, 2);  // the empty view copies nothing
}

TEST(DeviceTensor, CloneOfAPackedDeviceTensorStaysOnTheDevice) {
  FakeDevice device;
  const Tensor on_device = Tensor::randn({2, 8}, 3).cuda();
  const Tensor row = on_device.as_strided({8}, {1}, 8);
  const Tensor copy = row.clone();
  EXPECT_EQ(copy.device(), Device::cuda());
  EXPECT_NE(copy.storage(), row.storage());
  EXPECT_EQ(device.copies_on_device, 1);
  EXPECT_TRUE(copy.cpu().equal(row.cpu()));
  EXPECT_TRUE(contains(error_of([&] {
                         (void)on_device.as_strided({8, 2}, {1, 8}, 0).clone();
                       }),
                       "Tensor::clone: the tensor is on cuda:0"));
}

TEST(DeviceTensor, BetweenTwoDevicesThroughTheHost) {
  FakeDevice device(2);
  const Tensor host = Tensor::randn({6}, 4);
  const Tensor on_1 = host.cuda(0).cuda(1);
  EXPECT_EQ(on_1.device(), Device::cuda(1));
  EXPECT_TRUE(on_1.cpu().equal(host));
  EXPECT_EQ(device.copies_to_device, 2);
  Storage a(8, Device::cuda(0)), b(8, Device::cuda(1));
  EXPECT_EQ(error_of([&] { Storage::copy_bytes(b, 0, a, 0, 8); }),
            "cannot copy from cuda:0 to cuda:1 directly: copy through the host (.to(Device::cpu()))");
}

// Everything that reads elements on the host refuses a device tensor, naming the call and the
// way out.
TEST(DeviceTensor, HostReadsAreErrors) {
  FakeDevice device;
  const Tensor t = Tensor::full({2, 2}, 1.0).cuda();
  const Tensor host = Tensor::full({2, 2}, 1.0);
  const std::string tail =
      "the tensor is on cuda:0, and this reads its elements on the host: copy it there first "
      "with .to(Device::cpu())";
  Tensor into = Tensor::zeros({2, 2});
  const std::pair<const char*, std::function<void()>> reads[] = {
      {"data", [&] { (void)t.data_bytes(); }},
      {"data", [&] { (void)t.data<float>(); }},
      {"item_double", [&] { (void)t.item_double(1); }},
      {"item_int", [&] { (void)t.item_int(0); }},
      {"item", [&] { (void)t.as_strided({}, {}, 0).item(); }},
      {"to_string", [&] { (void)t.to_string(); }},
      {"equal", [&] { (void)t.equal(host); }},
      {"equal", [&] { (void)host.equal(t); }},
      {"copy_from", [&] { into.copy_from(t); }},
      {"to", [&] { (void)t.to(DType::F64); }},
      {"clone",
       [&] {
         (void)t.as_strided({2, 2}, {1, 2}, 0).contiguous();
       }},
  };
  for (const auto& [what, read] : reads) EXPECT_EQ(error_of(read), std::string("Tensor::") + what + ": " + tail);
  EXPECT_EQ(error_of([&] { (void)t.storage()->data(); }),
            "Storage::data: the storage is on cuda:0, and host code reads only host memory: copy it to the host first");
  EXPECT_EQ(t.to(DType::F32).storage(), t.storage());  // no conversion reads nothing
  EXPECT_EQ(error_of([&] { (void)worst_mismatch(host, t, default_tolerance(DType::F32)); }),
            "the computed tensor is on cuda:0, and worst_mismatch reads host memory only: pass it .to(Device::cpu())");
}

TEST(DeviceTensor, NpyGoesThroughTheHost) {
  FakeDevice device;
  for (DType dtype : kAllDTypes) {
    const Tensor host = sample(dtype);
    EXPECT_EQ(npy_to_bytes(host.cuda()), npy_to_bytes(host)) << dtype_name(dtype);
    EXPECT_EQ(npy_to_bytes(host.cuda().as_strided({3, 2}, {1, 3}, 0)),
              npy_to_bytes(host.as_strided({3, 2}, {1, 3}, 0)));
  }
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("kiln_device_npy_" + std::to_string(::getpid()) + ".npy");
  const Tensor host = Tensor::randn({4, 3}, 5, DType::BF16);
  ASSERT_TRUE(write_npy(path.string(), host.cuda()).is_ok());
  Expected<Tensor> back = read_npy(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_TRUE(back->device().is_cpu());
  EXPECT_TRUE(back->equal(host));
}

// ---- the devices that are not there ----

TEST(DeviceTensor, NoDeviceLayerRegistered) {
  const DeviceMemory* previous = register_device_memory(Device::Kind::Cuda, nullptr);
  const std::string message = error_of([] { (void)Tensor::zeros({2}).cuda(); });
  register_device_memory(Device::Kind::Cuda, previous);
  EXPECT_EQ(message,
            "Tensor::to: no CUDA device: this program has no CUDA device layer (kiln::kiln links runtime/cuda, which "
            "registers it) (for f32[2])");
}

TEST(DeviceTensor, MissingDriverOrDevice) {
  {
    FakeDevice no_driver(make_error("the fake driver is not installed"));
    EXPECT_EQ(error_of([] { (void)Tensor::zeros({2}).cuda(); }),
              "Tensor::to: no CUDA device: the fake driver is not installed (for f32[2])");
  }
  {
    FakeDevice none(0);
    EXPECT_EQ(error_of([] { (void)Storage(8, Device::cuda()); }),
              "no CUDA device: the driver sees none on this machine");
  }
  FakeDevice one(1);
  EXPECT_EQ(error_of([] { (void)Tensor::zeros({2}).cuda(3); }),
            "Tensor::to: cuda:3 does not exist: this machine has 1 CUDA device (for f32[2])");
  FakeDevice two(2);
  EXPECT_EQ(error_of([] { (void)Tensor::zeros({2}).to(Device::cuda(2)); }),
            "Tensor::to: cuda:2 does not exist: this machine has 2 CUDA devices (for f32[2])");
}

TEST(DeviceTensor, OutOfDeviceMemoryNamesTheBytes) {
  FakeDevice device(1, 1000);
  const Tensor small = Tensor::zeros({200}).cuda();
  EXPECT_EQ(error_of([] { (void)Tensor::zeros({500}).cuda(); }),
            "Tensor::to: cannot allocate 2000 bytes on cuda:0: fake out of memory, asking for 2000 bytes with 200 "
            "free (for f32[500])");
  EXPECT_EQ(device.in_use(), 800u);
}

}  // namespace
}  // namespace kiln
