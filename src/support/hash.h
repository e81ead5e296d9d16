// A small, stable content hash (64-bit FNV-1a) for cache keys. Stable across runs, builds
// and machines of either byte order: the input is the bytes given, nothing else. Not for
// adversarial input; a key mixes its fields with length prefixes so that ("ab", "c") and
// ("a", "bc") differ.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

class ContentHash {
 public:
  // Adds one field: its length (8 bytes, little-endian), then its bytes.
  ContentHash& add(std::string_view field);
  uint64_t value() const { return h_; }
  std::string hex() const;  // 16 lowercase hex digits

 private:
  void add_bytes(const unsigned char* p, size_t n);

  uint64_t h_ = 0xcbf29ce484222325ull;  // the FNV-1a 64-bit offset basis
};

}  // namespace kiln
