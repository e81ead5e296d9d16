// kiln_make_block: writes the transformer block of the acceptance tests (transformer_block.h,
// default configuration) in kiln's IR text, or checks that a file holds exactly that text.
//   kiln_make_block FILE           write FILE
//   kiln_make_block --check FILE   exit 1 (saying how to regenerate) unless FILE matches
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "transformer_block.h"

int main(int argc, char** argv) {
  const bool check = argc == 3 && std::string(argv[1]) == "--check";
  if (argc != 2 && !check) {
    std::cerr << "usage: kiln_make_block [--check] FILE\n";
    return 2;
  }
  const std::string path = argv[argc - 1];
  kiln::Expected<std::string> text = kiln::test_models::transformer_block_text({});
  if (!text) {
    std::cerr << "kiln_make_block: " << text.error().to_string() << "\n";
    return 1;
  }
  if (!check) {
    std::ofstream(path) << *text;
    return 0;
  }
  std::stringstream existing;
  existing << std::ifstream(path).rdbuf();
  if (existing.str() == *text) return 0;
  std::cerr << path << " is not the current transformer block; regenerate it with `kiln_make_block " << path << "`\n";
  return 1;
}
