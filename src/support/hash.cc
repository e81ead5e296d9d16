#include "support/hash.h"

namespace kiln {

void ContentHash::add_bytes(const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h_ ^= p[i];
    h_ *= 0x100000001b3ull;  // the FNV 64-bit prime
  }
}

ContentHash& ContentHash::add(std::string_view field) {
  unsigned char len[8];
  uint64_t n = field.size();
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
  add_bytes(len, sizeof len);
  add_bytes(reinterpret_cast<const unsigned char*>(field.data()), field.size());
  return *this;
}

std::string ContentHash::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 0; i < 16; ++i) s[static_cast<size_t>(15 - i)] = kDigits[(h_ >> (4 * i)) & 0xf];
  return s;
}

}  // namespace kiln
