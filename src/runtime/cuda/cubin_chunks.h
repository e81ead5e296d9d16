// A CUDA program's source (codegen/cuda/cuda_program_source.h) compiled to cubins: its kernels
// split into contiguous chunks, each the prelude and some kernels' text as one NVRTC program,
// found in the cubin cache (cubin_cache.h) or compiled, the misses in parallel, one thread per
// chunk. Needs NVRTC, not a GPU.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda/cuda_program_source.h"
#include "runtime/cuda/cubin_cache.h"
#include "runtime/cuda/nvrtc.h"
#include "support/diagnostic.h"

namespace kiln {

struct CubinChunkOptions {
  std::string arch = "sm_90";  // the device's (CudaDeviceProperties::arch())
  std::string cache_dir = {};  // "": CubinCache::open_default()
  int jobs = 0;                // most chunks (compiled at once); 0: hardware threads
  // No chunk smaller, unless the program is. 1: a kernel per chunk while there are cores, as
  // each NVRTC program costs a fixed start (the prelude parsed, NVVM and ptxas started: about
  // 48 ms on the GPU machine) that a chunk of its own pays on a core of its own at once, where a
  // chunk of several compiles its kernels one after another (docs/CUDA.md, "Cold compile").
  int min_kernels_per_chunk = 1;
  // NVRTC's --Ofast-compile level for every chunk: "" (off), "min", "mid" or "max". Off by
  // default: each level trades kernel quality for compile time (other SASS, on the benchmark's
  // held softmax local memory at "mid" and "max"), a cost only a GPU run weighs, so the
  // benchmarks time both (docs/CUDA.md, "Cold compile").
  std::string fast_compile = {};
};

struct CubinChunkStats {
  std::vector<int> kernels;                // flat kernel indices whose text the chunk holds
  std::string key;                         // the cubin cache key
  bool cache_hit = false;                  // found in the cache: NVRTC did not run
  std::string rebuilt_because;             // an entry was there but failed verification (cubin_cache.h)
  double compile_seconds = 0;              // 0 on a hit
  std::vector<KernelResources> resources;  // ptxas's report on each kernel of the chunk
};

struct CubinCompileStats {
  std::vector<CubinChunkStats> chunks;
  std::string cache_dir;
  std::string nvrtc_version;
  double lookup_seconds = 0;   // finding and verifying the chunks' cache entries
  double compile_seconds = 0;  // wall time of the (parallel) NVRTC compiles

  int hits() const;
  int compiled() const;
};

struct CubinChunks {
  std::vector<std::vector<int>> kernels;  // per chunk: its flat kernel indices
  std::vector<std::string> images;        // per chunk: the cubin
  CubinCompileStats stats;
};

// The flat kernels with text, in order, in contiguous chunks: at most `jobs` of them (0: the
// hardware's threads), none smaller than `min_kernels_per_chunk` unless there are fewer
// kernels. No chunk when no kernel has text.
std::vector<std::vector<int>> split_cubin_chunks(const CudaProgramSource& source, int jobs, int min_kernels_per_chunk);

// The NVRTC program of one chunk: the prelude, then the kernels' text in order.
std::string cubin_chunk_source(const CudaProgramSource& source, const std::vector<int>& kernels);

// The NVRTC options each chunk compiles with: cubin_options(options.arch), and
// --Ofast-compile=<level> where options.fast_compile names one. Errors: any other level.
Expected<NvrtcOptions> chunk_nvrtc_options(const CubinChunkOptions& options);

// Every chunk's cubin, through the cache. Errors: NVRTC missing or failing (its log, naming
// the chunk's kernels), a cache directory that cannot be made or written, an unknown
// fast_compile level.
Expected<CubinChunks> compile_cubin_chunks(const CudaProgramSource& source, const CubinChunkOptions& options);

}  // namespace kiln
