// Where a tensor lives or a graph runs: the CPU or CUDA device N.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kiln {

class Device {
 public:
  enum class Kind { Cpu, Cuda };

  static Device cpu() { return Device(Kind::Cpu, 0); }
  static Device cuda(int index = 0) { return Device(Kind::Cuda, index); }
  // "cpu", "cuda", "cuda:1".
  static std::optional<Device> parse(std::string_view s);

  Kind kind() const { return kind_; }
  int index() const { return index_; }
  bool is_cpu() const { return kind_ == Kind::Cpu; }
  bool is_cuda() const { return kind_ == Kind::Cuda; }
  std::string to_string() const;
  bool operator==(const Device& o) const { return kind_ == o.kind_ && index_ == o.index_; }

 private:
  Device(Kind k, int i) : kind_(k), index_(i) {}
  Kind kind_;
  int index_;
};

}  // namespace kiln
