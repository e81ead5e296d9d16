// Small helpers the benchmark programs share.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "support/diagnostic.h"

namespace kiln::bench {

// The value, or the error printed (naming `what`) and exit(1): a benchmark has no recovery.
template <typename T>
T or_die(Expected<T> e, const char* what) {
  if (!e) {
    std::fprintf(stderr, "%s: %s\n", what, e.error().to_string().c_str());
    std::exit(1);
  }
  return std::move(*e);
}

// The number after "key": in a flat JSON object (what the bench/torch_*.py scripts print); -1
// when the key is missing.
inline double json_number(const std::string& text, const std::string& key) {
  const size_t at = text.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atof(text.c_str() + at + key.size() + 3);
}

// The string after "key": in a flat JSON object (no escapes); empty when the key is missing.
inline std::string json_string(const std::string& text, const std::string& key) {
  const std::string open = "\"" + key + "\": \"";
  const size_t at = text.find(open);
  if (at == std::string::npos) return "";
  const size_t begin = at + open.size();
  return text.substr(begin, text.find('"', begin) - begin);
}

}  // namespace kiln::bench
