#include "runtime/cuda/cubin_chunks.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "support/chunks.h"

namespace kiln {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string kernel_list(const std::vector<int>& kernels) {
  std::string text;
  for (int k : kernels) text += (text.empty() ? "" : ", ") + std::to_string(k);
  return text;
}

}  // namespace

int CubinCompileStats::hits() const {
  return static_cast<int>(
      std::count_if(chunks.begin(), chunks.end(), [](const CubinChunkStats& c) { return c.cache_hit; }));
}

int CubinCompileStats::compiled() const { return static_cast<int>(chunks.size()) - hits(); }

std::vector<std::vector<int>> split_cubin_chunks(const CudaProgramSource& source, int jobs, int min_kernels_per_chunk) {
  std::vector<int> with_text;
  for (size_t k = 0; k < source.kernel_text.size(); ++k)
    if (!source.kernel_text[k].empty()) with_text.push_back(static_cast<int>(k));
  return split_into_chunks(with_text, jobs, min_kernels_per_chunk);
}

std::string cubin_chunk_source(const CudaProgramSource& source, const std::vector<int>& kernels) {
  std::string text = source.prelude;
  for (int k : kernels) text += source.kernel_text[static_cast<size_t>(k)];
  return text;
}

Expected<NvrtcOptions> chunk_nvrtc_options(const CubinChunkOptions& options) {
  NvrtcOptions nvrtc = cubin_options(options.arch);
  const std::string& level = options.fast_compile;
  if (level.empty()) return nvrtc;
  if (level != "min" && level != "mid" && level != "max")
    return make_error("unknown NVRTC fast-compile level '", level, "': expected min, mid or max (or none)");
  nvrtc.extra.push_back("--Ofast-compile=" + level);
  return nvrtc;
}

Expected<CubinChunks> compile_cubin_chunks(const CudaProgramSource& source, const CubinChunkOptions& options) {
  CubinChunks out;
  CubinBuild build;
  KILN_ASSIGN_OR_RETURN(build.options, chunk_nvrtc_options(options));
  out.kernels = split_cubin_chunks(source, options.jobs, options.min_kernels_per_chunk);
  if (out.kernels.empty()) return out;
  KILN_ASSIGN_OR_RETURN(CubinCache cache,
                        options.cache_dir.empty() ? CubinCache::open_default() : CubinCache::open(options.cache_dir));
  KILN_ASSIGN_OR_RETURN(build.nvrtc_version, nvrtc_version());
  out.stats.cache_dir = cache.dir();
  out.stats.nvrtc_version = build.nvrtc_version;

  const size_t n = out.kernels.size();
  std::vector<std::string> sources;
  out.images.resize(n);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t c = 0; c < n; ++c) {
    sources.push_back(cubin_chunk_source(source, out.kernels[c]));
    CubinChunkStats s;
    s.kernels = out.kernels[c];
    s.key = CubinCache::key(sources[c], build);
    CubinCache::Lookup found = cache.lookup(s.key, sources[c], build);
    s.rebuilt_because = found.problem;
    if (!found.problem.empty())
      std::fprintf(stderr, "kiln: note: rebuilding the cubin cache entry %s: %s\n", cache.cubin_path(s.key).c_str(),
                   found.problem.c_str());
    if (found.cubin) {
      s.cache_hit = true;
      s.resources = std::move(found.cubin->kernels);
      out.images[c] = std::move(found.cubin->image);
    }
    out.stats.chunks.push_back(std::move(s));
  }
  out.stats.lookup_seconds = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  for (size_t c = 0; c < n; ++c) {
    if (out.stats.chunks[c].cache_hit) continue;
    threads.emplace_back([&, c] {
      const auto start = std::chrono::steady_clock::now();
      CubinChunkStats& s = out.stats.chunks[c];
      Expected<Cubin> cubin = cache.build(s.key, sources[c], build);
      s.compile_seconds = seconds_since(start);
      if (!cubin) {
        results[c] = cubin.error().add_context("while compiling the CUDA kernels " + kernel_list(s.kernels));
        return;
      }
      s.resources = std::move(cubin->kernels);
      out.images[c] = std::move(cubin->image);
    });
  }
  for (std::thread& t : threads) t.join();
  out.stats.compile_seconds = seconds_since(t0);
  for (Status& s : results)
    if (!s) return s.error();
  return out;
}

}  // namespace kiln
