// How long kiln::import_pt2 takes on a large archive (bench/torch_import_pt2.py writes GPT-2
// small's: 124M float32 parameters, 499 MB), against reading the archive's bytes once
// into memory, which is what "weights read once, never copied twice" costs at the least.
// Prints the best of `repeats` runs of each (the file is in the page cache after the first).
//
//     build/bench/kiln_bench_import_pt2 /tmp/gpt2_small.pt2 [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bench_util.h"
#include "import/import_pt2.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Reads the whole file into one buffer: the floor for any reader that copies the bytes once.
size_t read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::vector<char> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kiln_bench_import_pt2 ARCHIVE.pt2 [repeats]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  double best_import = 1e30, best_read = 1e30;
  size_t weight_bytes = 0, file_bytes = 0;
  int nodes = 0;
  for (int r = 0; r < repeats; ++r) {
    Clock::time_point start = Clock::now();
    file_bytes = read_whole_file(path);
    best_read = std::min(best_read, seconds_since(start));

    start = Clock::now();
    kiln::ImportedProgram m = kiln::bench::or_die(kiln::import_pt2(path), "import_pt2");
    best_import = std::min(best_import, seconds_since(start));
    std::set<const kiln::Storage*> storages;  // tied weights share one
    for (const auto& [name, t] : m.weights) storages.insert(t.storage().get());
    weight_bytes = 0;
    for (const kiln::Storage* s : storages) weight_bytes += s->nbytes();
    nodes = static_cast<int>(m.graph->num_nodes());
  }
  std::printf("archive %s: %.1f MB, weights %.1f MB, %d nodes\n", path.c_str(), file_bytes / 1e6, weight_bytes / 1e6,
              nodes);
  std::printf("read the file once:  %.3f s (%.2f GB/s)\n", best_read, file_bytes / best_read / 1e9);
  std::printf("kiln::import_pt2:    %.3f s (%.2f GB/s of weights), best of %d\n", best_import,
              weight_bytes / best_import / 1e9, repeats);
  return 0;
}
