#include "runtime/cpu/compiled_program.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>

#include "lower/integer_divisors.h"
#include "lower/loop_bounds.h"
#include "lower/loop_control.h"
#include "lower/loop_eval.h"
#include "lower/loop_run.h"
#include "lower/loop_text.h"
#include "ops/op_info.h"
#include "runtime/cpu/blas_matmul.h"
#include "runtime/cpu/kernel_cache.h"
#include "runtime/cpu/runtime_memory.h"
#include "support/chunks.h"
#include "support/error.h"

namespace kiln {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The kernels with a C++ function (flat indices: those nested in control kernels too) in
// contiguous chunks: at most `jobs` of them, none smaller than min_kernels_per_chunk (unless
// there are fewer kernels than that).
std::vector<std::vector<int>> split_kernels(const LoopProgram& p, const CpuCompileOptions& o) {
  std::vector<int> all;
  const std::vector<const LoopKernel*> flat = flat_kernels(p);
  for (size_t i = 0; i < flat.size(); ++i)
    if (flat[i]->kind != KernelKind::Extern && !is_control_kernel(*flat[i])) all.push_back(static_cast<int>(i));
  return split_into_chunks(all, o.jobs, o.min_kernels_per_chunk);
}

bool is_contiguous_layout(const Buffer& b) { return b.strides == contiguous_strides(b.sizes); }

// "output buffer %out0 (f32[100]) of loops @g", for allocation errors.
std::string buffer_phrase(const std::string& role, const LoopProgram& p, size_t b) {
  const Buffer& buf = p.buffers[b];
  return role + " %" + buf.name + " (" + buffer_type_string(buf.dtype, buf.sizes) + ") of loops @" + p.name;
}

// "the arena of the temporary buffers of loops @g (3 buffers, the largest %t1: f32[100])".
std::string arena_phrase(const LoopProgram& p, const MemoryPlan& plan) {
  int count = 0;
  size_t largest = 0;
  int64_t largest_bytes = -1;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    if (plan.offset[b] < 0) continue;
    const Buffer& buf = p.buffers[b];
    ++count;
    const int64_t bytes = buf.storage_size() * dtype_size(buf.dtype);
    if (bytes > largest_bytes) largest = b, largest_bytes = bytes;
  }
  const std::string arena = "the arena of the temporary buffers of loops @" + p.name;
  if (count == 0) return arena;
  const Buffer& buf = p.buffers[largest];
  const std::string which = count == 1 ? "one buffer, %" : std::to_string(count) + " buffers, the largest %";
  return arena + " (" + which + buf.name + ": " + buffer_type_string(buf.dtype, buf.sizes) + ")";
}

}  // namespace

int CompileStats::hits() const {
  return static_cast<int>(std::count_if(chunks.begin(), chunks.end(), [](const ChunkStats& c) { return c.cache_hit; }));
}

int CompileStats::compiled() const { return static_cast<int>(chunks.size()) - hits(); }

Expected<CompiledProgram> CompiledProgram::compile(LoopProgram p, const CpuCompileOptions& o) {
  const std::string where = "while compiling loops @" + p.name + " for the CPU";
  Status bounds = check_loop_bounds(p);
  if (!bounds) return bounds.error().add_context(where);
  Status divisors = check_integer_divisors(p);
  if (!divisors) return divisors.error().add_context(where);
  Status bytes = check_buffer_bytes(p);
  if (!bytes) return bytes.error().add_context(where);
  CompiledProgram c;
  c.p_ = std::move(p);
  c.plan_ = plan_memory(c.p_);
  const std::vector<const LoopKernel*> flat = flat_kernels(c.p_);
  c.ends_ = flat_kernel_ends(c.p_);
  c.kernels_.assign(flat.size(), nullptr);
  c.input_written_.assign(c.p_.buffers.size(), false);
  if (o.onednn_matmuls) c.dnnl_ = std::make_unique<DnnlMatmuls>();
  for (const LoopKernel& k : c.p_.kernels)
    for (int b : kernel_buffers_written(k)) c.input_written_[static_cast<size_t>(b)] = true;
  for (const LoopKernel* k : flat) {
    bool checks = false;
    for (const LoopKernel* part : loop_kernel_parts(*k))
      for (const BodyOp& op : part->body) checks = checks || op.kind == BodyOp::Kind::Indirect;
    c.kernel_checks_.push_back(checks);
  }

  auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::vector<int>> chunks = split_kernels(c.p_, o);
  std::vector<std::string> sources;
  for (const std::vector<int>& chunk : chunks) sources.push_back(emit_cpp_kernels(c.p_, chunk, o.emit));
  c.stats_.emit_seconds = seconds_since(t0);
  if (chunks.empty()) return c;

  t0 = std::chrono::steady_clock::now();
  Expected<CpuToolchain> toolchain =
      o.toolchain ? Expected<CpuToolchain>(*o.toolchain) : find_cpu_toolchain(o.compiler);
  if (!toolchain) return toolchain.error().add_context(where);
  c.stats_.toolchain = *toolchain;
  c.stats_.toolchain_seconds = seconds_since(t0);
  Expected<std::string> dir = o.cache_dir.empty() ? default_cache_dir() : Expected<std::string>(o.cache_dir);
  if (!dir) return dir.error().add_context(where);
  Expected<KernelCache> cache = KernelCache::open(*dir);
  if (!cache) return cache.error().add_context(where);
  c.stats_.cache_dir = cache->dir();

  // Find the chunks in the cache, then compile those it lacks, all at once.
  t0 = std::chrono::steady_clock::now();
  const std::string emit_options = o.emit.to_string();
  for (size_t i = 0; i < chunks.size(); ++i) {
    ChunkStats s;
    for (int k : chunks[i]) s.kernels.push_back(flat[static_cast<size_t>(k)]->name);
    s.key = KernelCache::key(sources[i], emit_options, *toolchain);
    const KernelCache::Lookup found = cache->lookup(s.key, sources[i], emit_options, *toolchain);
    s.cache_hit = found.hit;
    s.rebuilt_because = found.problem;
    if (!found.problem.empty())
      std::fprintf(stderr, "kiln: note: rebuilding the kernel cache entry %s: %s\n", cache->library_path(s.key).c_str(),
                   found.problem.c_str());
    c.stats_.chunks.push_back(std::move(s));
  }
  c.stats_.lookup_seconds = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::vector<Status> results(chunks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (c.stats_.chunks[i].cache_hit) continue;
    threads.emplace_back([&, i] {
      const auto start = std::chrono::steady_clock::now();
      results[i] = cache->build(c.stats_.chunks[i].key, sources[i], emit_options, *toolchain);
      c.stats_.chunks[i].compile_seconds = seconds_since(start);
    });
  }
  for (std::thread& t : threads) t.join();
  c.stats_.compile_seconds = seconds_since(t0);
  for (Status& s : results)
    if (!s) return s.error().add_context(where);

  t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> symbols = cpp_kernel_symbols(c.p_);
  for (size_t i = 0; i < chunks.size(); ++i) {
    Expected<SharedLibrary> lib = SharedLibrary::open(cache->library_path(c.stats_.chunks[i].key));
    if (!lib) return lib.error().add_context(where);
    for (int k : chunks[i]) {
      Expected<void*> fn = lib->symbol(symbols[static_cast<size_t>(k)]);
      if (!fn) return fn.error().add_context(where);
      c.kernels_[static_cast<size_t>(k)] = reinterpret_cast<KernelFn>(*fn);
    }
    c.libraries_.push_back(std::move(*lib));
  }
  pin_openmp_runtime();
  c.stats_.load_seconds = seconds_since(t0);
  return c;
}

// A matmul or linear extern kernel through oneDNN (dnnl_matmul.h) or OpenBLAS (blas_matmul.h)
// when one applies; false otherwise.
bool CompiledProgram::run_blas_kernel(const LoopKernel& k, std::span<const Tensor> storage) const {
  const bool linear = k.op == OpKind::Linear;
  if ((k.operands.size() != 2 && !(linear && k.operands.size() == 3)) || k.results.size() != 1 ||
      k.operands[0].buffer < 0 || k.operands[1].buffer < 0)
    return false;
  auto view = [&](const ExternOperand& o) {
    return view_of(storage[static_cast<size_t>(o.buffer)], o.sizes, o.strides, o.offset);
  };
  const Buffer& out = p_.buffers[static_cast<size_t>(k.results[0])];
  const Tensor result = view_of(storage[static_cast<size_t>(k.results[0])], out.sizes, out.strides, 0);
  const Tensor a = view(k.operands[0]), b = view(k.operands[1]);
  if (linear) {  // x @ w.T + bias; the bias operand is a buffer or the literal None
    if (b.dim() != 2 || a.dim() < 2) return false;
    const std::optional<Tensor> bias =
        k.operands.size() == 3 && k.operands[2].buffer >= 0 ? std::optional<Tensor>(view(k.operands[2])) : std::nullopt;
    const Tensor* pb = bias ? &*bias : nullptr;
    if (dnnl_ && dnnl_->run(OpKind::Matmul, a, transposed_weight(b), result, pb)) return true;
    return blas_linear(a, b, pb, result);
  }
  if (dnnl_ && dnnl_->run(k.op, a, b, result)) return true;
  return blas_matmul(k.op, a, b, result);
}

Status CompiledProgram::run_extern(const LoopKernel& k, std::span<const Tensor> storage) const {
  // The libraries' and reference kernels' own temporaries (packed copies of operands, partial
  // sums) are not the runtime's buffers; running out of memory for them is reported here.
  try {
    if (run_blas_kernel(k, storage)) return Status::ok();
    return run_extern_kernel(p_, k, storage);
  } catch (const std::bad_alloc&) {
    return make_error("out of memory for the temporaries of ", op_info(k.op).name());
  } catch (const Error& e) {  // a Tensor the kernel allocates: out of memory, naming its bytes
    return make_error(op_info(k.op).name(), ": ", e.diagnostic().message());
  }
}

Expected<std::shared_ptr<Storage>> CompiledProgram::output_storage(size_t buffer, int64_t bytes) const {
  std::unique_ptr<Storage> s;
  {
    std::lock_guard<std::mutex> lock(outputs_->mutex);
    if (outputs_->free.size() <= buffer) outputs_->free.resize(p_.buffers.size());
    std::vector<std::unique_ptr<Storage>>& free = outputs_->free[buffer];
    if (!free.empty()) {
      s = std::move(free.back());
      free.pop_back();
    }
  }
  if (!s) {
    KILN_ASSIGN_OR_RETURN(s, allocate_storage(bytes, [&] { return buffer_phrase("output buffer", p_, buffer); }));
  }
  std::weak_ptr<OutputPool> pool = outputs_;
  return std::shared_ptr<Storage>(s.release(), [pool, buffer](Storage* released) {
    std::unique_ptr<Storage> owned(released);
    if (std::shared_ptr<OutputPool> p = pool.lock()) {
      std::lock_guard<std::mutex> lock(p->mutex);
      if (p->free[buffer].size() < 2) p->free[buffer].push_back(std::move(owned));  // keep a few
    }
  });
}

Expected<std::vector<Tensor>> CompiledProgram::run(std::span<const Tensor> inputs) const {
  return run_impl(inputs, nullptr);
}

Status CompiledProgram::run_kernels(const std::vector<LoopKernel>& kernels, int first, RunState& s) const {
  int at = first;
  for (const LoopKernel& k : kernels) {
    const size_t i = static_cast<size_t>(at);
    const auto t0 = std::chrono::steady_clock::now();
    if (kernels_[i]) {
      kernels_[i](s.pointers.data());
      // A failed index check: the evaluator finds the first bad index again, for its message.
      if (kernel_checks_[i] && s.index_error) return eval_kernel_checks(p_, k, s.storage);
    } else if (is_control_kernel(k)) {
      KILN_TRY(run_control(k, at, s));
    } else {
      Status st = run_extern(k, s.storage);
      if (!st) return st.error().add_context("in kernel @" + k.name + " of loops @" + p_.name);
    }
    if (s.profile && !is_control_kernel(k)) (*s.profile)[i] += seconds_since(t0);
    at = ends_[i];
  }
  return Status::ok();
}

Expected<std::vector<Tensor>> CompiledProgram::run_profiled(std::span<const Tensor> inputs,
                                                            std::vector<double>& kernel_seconds) const {
  kernel_seconds.resize(kernels_.size(), 0.0);
  return run_impl(inputs, &kernel_seconds);
}

Expected<std::vector<Tensor>> CompiledProgram::run_impl(std::span<const Tensor> inputs,
                                                        std::vector<double>* profile) const {
  KILN_TRY(check_loop_inputs(p_, inputs));
  KILN_TRY(check_loop_inputs_on_host(p_, inputs, "the CPU backend"));
  // One flat tensor per buffer (storage_size() elements); contiguous inputs are used in place
  // (those a kernel writes are mutated in place, loop_ir.h); others are copied in, and the
  // written ones copied back after the run.
  std::vector<Tensor> storage(p_.buffers.size());
  std::vector<size_t> copy_back;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t b = static_cast<size_t>(p_.inputs[i]);
    const Buffer& buf = p_.buffers[b];
    const Tensor& t = inputs[i];
    if (t.is_contiguous() && is_contiguous_layout(buf)) {
      storage[b] = t.as_strided({buf.storage_size()}, {1}, t.offset());
    } else {
      KILN_ASSIGN_OR_RETURN(storage[b], allocate_tensor({buf.storage_size()}, buf.dtype,
                                                        [&] { return "a copy of " + buffer_phrase("input", p_, b); }));
      // Zeros between the layout's elements, as a fresh tensor has.
      std::memset(storage[b].data_bytes(), 0, static_cast<size_t>(buf.storage_size() * dtype_size(buf.dtype)));
      storage[b].as_strided(buf.sizes, buf.strides, 0).copy_from(t);
      if (input_written_[b]) copy_back.push_back(i);
    }
  }
  // Temporaries in the planned arena, outputs in their own (uninitialized) storage: every
  // element of both is written by a kernel before anything reads it.
  std::shared_ptr<Storage> arena;
  {
    std::lock_guard<std::mutex> lock(arenas_->mutex);
    if (!arenas_->free.empty()) {
      arena = std::move(arenas_->free.back());
      arenas_->free.pop_back();
    }
  }
  if (!arena) {
    KILN_ASSIGN_OR_RETURN(arena, allocate_storage(plan_.arena_bytes, [&] { return arena_phrase(p_, plan_); }));
  }
  // One pointer per buffer, then the error slot kernels that check indices set (codegen's ABI).
  int index_error = 0;
  std::vector<char*> pointers(p_.buffers.size() + 1);
  pointers.back() = reinterpret_cast<char*>(&index_error);
  for (size_t b = 0; b < p_.buffers.size(); ++b) {
    const Buffer& buf = p_.buffers[b];
    if (!storage[b].defined()) {
      if (plan_.offset[b] >= 0) {
        storage[b] =
            Tensor::over_storage(arena, buf.dtype, {buf.storage_size()}, {1}, plan_.offset[b] / dtype_size(buf.dtype));
      } else {
        KILN_ASSIGN_OR_RETURN(std::shared_ptr<Storage> output,
                              output_storage(b, buf.storage_size() * dtype_size(buf.dtype)));
        storage[b] = Tensor::over_storage(std::move(output), buf.dtype, {buf.storage_size()}, {1}, 0);
      }
    }
    pointers[b] = reinterpret_cast<char*>(storage[b].data_bytes());
  }
  struct ReturnArena {
    ArenaPool& pool;
    std::shared_ptr<Storage>& arena;
    ~ReturnArena() {
      std::lock_guard<std::mutex> lock(pool.mutex);
      pool.free.push_back(std::move(arena));
    }
  } give_back{*arenas_, arena};
  RunState state{storage, pointers, profile, index_error};
  KILN_TRY(run_kernels(p_.kernels, 0, state));
  for (size_t i : copy_back) {
    const size_t b = static_cast<size_t>(p_.inputs[i]);
    Tensor(inputs[i]).copy_from(storage[b].as_strided(p_.buffers[b].sizes, p_.buffers[b].strides, 0));
  }
  std::vector<Tensor> out;
  for (size_t j = 0; j < p_.outputs.size(); ++j) {
    const Buffer& buf = p_.buffers[static_cast<size_t>(p_.outputs[j])];
    Tensor view = view_of(storage[static_cast<size_t>(p_.outputs[j])], buf.sizes, buf.strides, 0);
    const bool repeated = std::find(p_.outputs.begin(), p_.outputs.begin() + static_cast<ptrdiff_t>(j),
                                    p_.outputs[j]) != p_.outputs.begin() + static_cast<ptrdiff_t>(j);
    if (is_contiguous_layout(buf) && !repeated) {
      out.push_back(std::move(view));
      continue;
    }
    KILN_ASSIGN_OR_RETURN(Tensor copy, allocate_tensor(buf.sizes, buf.dtype, [&] {
                            return "a copy of " + buffer_phrase("output", p_, static_cast<size_t>(p_.outputs[j]));
                          }));
    copy.copy_from(view);
    out.push_back(std::move(copy));
  }
  return out;
}

}  // namespace kiln
