// A fake device for tests of device tensors without a GPU: a DeviceMemory registered for the
// CUDA kind while a FakeDevice lives, backed by host pages of its own mapped with no access, so
// that host code reading a "device" address faults instead of passing; only the fake's own copies
// open a block, for the length of the copy. It counts its calls, so a test can say which path ran.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "core/device_memory.h"

namespace kiln::device_test {

class FakeDevice final : public DeviceMemory {
 public:
  // `devices` CUDA devices, each with `capacity` bytes; a failing count stands for a missing driver.
  explicit FakeDevice(Expected<int> devices = 1, size_t capacity = size_t{1} << 30)
      : devices_(std::move(devices)), capacity_(capacity) {
    previous_ = register_device_memory(Device::Kind::Cuda, this);
  }
  ~FakeDevice() override {
    register_device_memory(Device::Kind::Cuda, previous_);
    for (const auto& [start, block] : blocks_) munmap(start, block.length);
  }
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;

  Expected<int> device_count() const override { return devices_; }

  Expected<std::byte*> allocate(int, size_t nbytes) const override {
    if (in_use_ + nbytes > capacity_)
      return make_error("fake out of memory, asking for ", nbytes, " bytes with ", capacity_ - in_use_, " free");
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t length = (nbytes + page - 1) / page * page;
    void* p = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return make_error("fake mmap of ", length, " bytes failed");
    in_use_ += nbytes;
    blocks_[static_cast<std::byte*>(p)] = Block{static_cast<std::byte*>(p), nbytes, length};
    return static_cast<std::byte*>(p);
  }
  void free(int, std::byte* address) const override {
    ++frees;
    const Block block = blocks_.at(address);
    in_use_ -= block.bytes;
    munmap(block.start, block.length);
    blocks_.erase(address);
  }
  Status copy_to_device(int, std::byte* device, const std::byte* host, size_t nbytes) const override {
    ++copies_to_device;
    return copy_opened(device, device, host, nbytes);
  }
  Status copy_to_host(int, std::byte* host, const std::byte* device, size_t nbytes) const override {
    ++copies_to_host;
    return copy_opened(device, host, device, nbytes);
  }
  Status copy_on_device(int, std::byte* to, const std::byte* from, size_t nbytes) const override {
    ++copies_on_device;
    KILN_ASSIGN_OR_RETURN(const Block* from_block, block_of(from, nbytes));
    Opened open_from(*from_block);
    return copy_opened(to, to, from, nbytes);
  }
  Status fill_zero(int, std::byte* device, size_t nbytes) const override {
    KILN_ASSIGN_OR_RETURN(const Block* block, block_of(device, nbytes));
    Opened open(*block);
    std::memset(device, 0, nbytes);
    return Status::ok();
  }

  size_t in_use() const { return in_use_; }
  mutable int copies_to_device = 0, copies_to_host = 0, copies_on_device = 0, frees = 0;

 private:
  struct Block {
    std::byte* start;
    size_t bytes;   // asked for
    size_t length;  // mapped, whole pages
  };
  // Lets the host reach a block while it lives.
  class Opened {
   public:
    explicit Opened(const Block& block) : block_(block) {
      mprotect(block_.start, block_.length, PROT_READ | PROT_WRITE);
    }
    ~Opened() { mprotect(block_.start, block_.length, PROT_NONE); }
    Opened(const Opened&) = delete;
    Opened& operator=(const Opened&) = delete;

   private:
    const Block& block_;
  };

  // memmove with the block holding [device, device + nbytes) open.
  Status copy_opened(const std::byte* device, std::byte* to, const std::byte* from, size_t nbytes) const {
    KILN_ASSIGN_OR_RETURN(const Block* block, block_of(device, nbytes));
    Opened open(*block);
    std::memmove(to, from, nbytes);
    return Status::ok();
  }

  // The block holding [address, address + nbytes); else an error (the core computed a wrong address).
  Expected<const Block*> block_of(const std::byte* address, size_t nbytes) const {
    auto it = blocks_.upper_bound(const_cast<std::byte*>(address));
    if (it != blocks_.begin()) {
      --it;
      if (address >= it->first && address + nbytes <= it->first + it->second.bytes) return &it->second;
    }
    return make_error("fake copy of ", nbytes, " bytes outside every allocation");
  }

  Expected<int> devices_;
  size_t capacity_;
  const DeviceMemory* previous_ = nullptr;
  mutable size_t in_use_ = 0;
  mutable std::map<std::byte*, Block> blocks_;
};

}  // namespace kiln::device_test
