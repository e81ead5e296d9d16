#include "runtime/cuda/cuda_program.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <new>
#include <optional>
#include <set>

#include "lower/loop_control.h"
#include "lower/loop_eval.h"
#include "lower/loop_run.h"
#include "ops/op_info.h"
#include "runtime/cuda/cublaslt_matmul.h"
#include "runtime/cuda/cuda_launch_args.h"
#include "runtime/cuda/cuda_memory.h"
#include "runtime/cuda/cuda_module.h"
#include "runtime/cuda/cuda_program_plan.h"
#include "runtime/cuda/cuda_stream.h"
#include "runtime/cuda/cuda_target_report.h"
#include "runtime/cuda/run_marks.h"
#include "support/error.h"

namespace kiln {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int64_t bytes_of(const Buffer& b) { return b.storage_size() * dtype_size(b.dtype); }

bool is_contiguous_layout(const Buffer& b) { return b.strides == contiguous_strides(b.sizes); }

// One launch, ready: its kernel and its parameters packed at load, and what the driver says of its resources.
struct Launch {
  const CudaModule* module;
  CuFunction function;
  LaunchDims dims;
  PackedLaunchArgs args;
  KernelAttributes attributes;
};

// Every launch of every flat kernel: its kernel found in its chunk's module (with the opt-in to
// dynamic shared memory above 48 KiB) and its parameters packed over `addresses`.
Expected<std::vector<std::vector<Launch>>> pack_launches(const CudaProgramSource& source,
                                                         const std::vector<CudaModule>& modules,
                                                         const std::vector<int>& chunk_of,
                                                         std::vector<CuDevicePtr>& addresses, CuDevicePtr scratch,
                                                         CuDevicePtr error_slot) {
  std::vector<std::vector<Launch>> launches(source.launches.size());
  for (size_t k = 0; k < source.launches.size(); ++k) {
    for (const CudaLaunch& l : source.launches[k]) {
      const CudaModule& module = modules[static_cast<size_t>(chunk_of[k])];
      KILN_ASSIGN_OR_RETURN(CuFunction function, module.kernel(l.symbol));
      if (l.shared_bytes > 48 * 1024) KILN_TRY(module.allow_shared_bytes(function, l.symbol, l.shared_bytes));
      LaunchDims dims;
      for (int i = 0; i < 3; ++i) dims.grid[i] = l.grid[i], dims.block[i] = l.block[i];
      dims.shared_bytes = l.shared_bytes;
      KILN_ASSIGN_OR_RETURN(KernelAttributes attributes, module.attributes(function, l.symbol));
      launches[k].push_back(
          Launch{&module, function, dims, PackedLaunchArgs(l.args, addresses, scratch, error_slot), attributes});
    }
  }
  return launches;
}

// The cuBLASLt call of each planned flat kernel (none when nothing is planned: no library needed).
Expected<std::vector<std::optional<LtMatmul>>> create_matmuls(const std::vector<std::optional<LtMatmulPlan>>& plans,
                                                              const std::vector<const LoopKernel*>& flat, bool tf32,
                                                              uint64_t workspace_bytes) {
  std::vector<std::optional<LtMatmul>> matmuls(plans.size());
  if (std::none_of(plans.begin(), plans.end(), [](const auto& plan) { return plan.has_value(); })) return matmuls;
  KILN_ASSIGN_OR_RETURN(CublasLt * lt, CublasLt::get());
  for (size_t k = 0; k < plans.size(); ++k) {
    if (!plans[k]) continue;
    Expected<LtMatmul> matmul = LtMatmul::create(*lt, *plans[k], tf32, workspace_bytes);
    if (!matmul) return matmul.error().add_context("in kernel @" + flat[k]->name);
    matmuls[k].emplace(std::move(*matmul));
  }
  return matmuls;
}

}  // namespace

struct CudaProgram::Device {
  const CudaDriver* driver = nullptr;
  std::optional<CudaContext> context;  // first: it outlives everything below
  std::vector<CudaModule> modules;     // per chunk
  std::optional<DeviceBuffer> arena;
  std::optional<CudaStream> stream;
  std::mutex mutex;  // one run at a time: everything below changes during a run
  // Per buffer: its address this run (a while loop swaps carried and next) and at load.
  std::vector<CuDevicePtr> addresses, planned;
  std::vector<std::vector<Launch>> launches;     // per flat kernel; empty for extern and control kernels
  std::vector<std::optional<LtMatmul>> matmuls;  // per flat kernel: an extern kernel cuBLASLt runs
  CuDevicePtr library_workspace = 0;
  std::vector<Tensor> host;  // per buffer: host staging, where one is needed

  CuDevicePtr error_slot = 0;

  // Copies on the stream; an empty buffer copies nothing (its host pointer may be null).
  Status to_device(CuDevicePtr dst, const void* src, int64_t bytes) const {
    if (bytes == 0) return Status::ok();
    return driver->check(driver->api().memcpy_htod_async(dst, src, static_cast<size_t>(bytes), stream->handle()),
                         "cuMemcpyHtoDAsync", "copying " + format_bytes(static_cast<uint64_t>(bytes)));
  }
  Status to_host(void* dst, CuDevicePtr src, int64_t bytes) const {
    if (bytes == 0) return Status::ok();
    return driver->check(driver->api().memcpy_dtoh_async(dst, src, static_cast<size_t>(bytes), stream->handle()),
                         "cuMemcpyDtoHAsync", "copying " + format_bytes(static_cast<uint64_t>(bytes)));
  }
  // Host staging for buffer `b` (storage_size() elements), made on first use and kept.
  Expected<Tensor*> staging(const Buffer& buf, size_t b) {
    if (!host[b].defined()) {
      try {
        host[b] = Tensor::zeros({buf.storage_size()}, buf.dtype);
      } catch (const Error& e) {
        return make_error("host staging for buffer %", buf.name, ": ", e.diagnostic().message());
      }
    }
    return &host[b];
  }
};

CudaProgram::CudaProgram() = default;
CudaProgram::~CudaProgram() = default;

Expected<std::unique_ptr<Executable>> CudaProgram::load(LoopProgram p, CudaProgramSource source,
                                                        const CudaRunOptions& o) {
  const std::string where = "while loading loops @" + p.name + " for the GPU";
  KILN_ASSIGN_OR_RETURN(CudaProgramPlan plan, plan_cuda_program(p, source, o.library_workspace_bytes, where));
  std::unique_ptr<CudaProgram> c(new CudaProgram());
  c->p_ = std::move(p);
  const std::vector<const LoopKernel*> flat = flat_kernels(c->p_);
  const std::vector<std::optional<LtMatmulPlan>>& matmul_plans = plan.matmuls;
  c->arena_ = plan.arena;
  c->host_copied_ops_ = plan.host_copied_ops;
  c->ends_ = flat_kernel_ends(c->p_);
  c->input_written_.assign(c->p_.buffers.size(), false);
  for (const LoopKernel& k : c->p_.kernels)
    for (int b : kernel_buffers_written(k)) c->input_written_[static_cast<size_t>(b)] = true;
  auto d = std::make_unique<Device>();
  d->host.resize(c->p_.buffers.size());
  c->host_copied_ops_ = kiln::host_copied_ops(c->p_);
  for (size_t i = 0; i < flat.size(); ++i) {
    const LoopKernel* k = flat[i];
    if (k->kind != KernelKind::Extern || matmul_plans[i]) continue;
    std::set<int> touched = kernel_buffers_read(*k);
    for (int b : kernel_buffers_written(*k)) touched.insert(b);
    for (int b : touched) KILN_TRY(d->staging(c->p_.buffers[static_cast<size_t>(b)], static_cast<size_t>(b)).status());
  }

  Expected<const CudaDriver*> driver = CudaDriver::get();
  if (!driver) return driver.error().add_context(where);
  d->driver = *driver;
  Expected<CudaDeviceProperties> props = query_cuda_device(*d->driver, o.device);
  if (!props) return props.error().add_context(where);
  Expected<CudaContext> context = CudaContext::open(*d->driver, o.device);
  if (!context) return context.error().add_context(where);
  d->context.emplace(std::move(*context));

  CubinChunkOptions chunk_options{props->arch(), o.cache_dir, o.jobs, o.min_kernels_per_chunk, o.fast_compile};
  Expected<CubinChunks> chunks = compile_cubin_chunks(source, chunk_options);
  if (!chunks) return chunks.error().add_context(where);
  c->compile_stats_ = chunks->stats;
  c->times_.compile = chunks->stats.lookup_seconds + chunks->stats.compile_seconds;

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<int> chunk_of(flat.size(), -1);
  for (size_t i = 0; i < chunks->images.size(); ++i) {
    Expected<CudaModule> module = CudaModule::load(*d->context, chunks->images[i]);
    if (!module) return module.error().add_context(where);
    d->modules.push_back(std::move(*module));
    for (int k : chunks->kernels[i]) chunk_of[static_cast<size_t>(k)] = static_cast<int>(i);
  }
  Expected<DeviceBuffer> arena = DeviceBuffer::allocate(*d->context, static_cast<size_t>(c->arena_.bytes));
  if (!arena) return arena.error().add_context(where + ": its arena of " + std::to_string(c->arena_.bytes) + " bytes");
  d->arena.emplace(std::move(*arena));
  KILN_TRY(d->arena->fill_bytes(0));  // a strided buffer's gaps read as zeros, as on the CPU
  Expected<CudaStream> stream = CudaStream::create(*d->context);
  if (!stream) return stream.error().add_context(where);
  d->stream.emplace(std::move(*stream));

  const CuDevicePtr base = d->arena->address();
  for (int64_t offset : c->arena_.offset) d->planned.push_back(base + static_cast<CuDevicePtr>(offset));
  d->addresses = d->planned;
  d->error_slot = base + static_cast<CuDevicePtr>(c->arena_.error_offset);
  const CuDevicePtr scratch = base + static_cast<CuDevicePtr>(c->arena_.scratch_offset);
  Expected<std::vector<std::vector<Launch>>> launches =
      pack_launches(source, d->modules, chunk_of, d->addresses, scratch, d->error_slot);
  if (!launches) return launches.error().add_context(where);
  d->launches = std::move(*launches);
  std::vector<std::vector<KernelAttributes>> attributes;
  for (const std::vector<Launch>& kernel : d->launches) {
    attributes.emplace_back();
    for (const Launch& l : kernel) attributes.back().push_back(l.attributes);
  }
  c->target_report_ = cuda_target_report({.program = c->p_,
                                          .source = source,
                                          .plan = plan,
                                          .arch = props->arch(),
                                          .compiled = &c->compile_stats_,
                                          .loaded_on = props->name,
                                          .attributes = &attributes});
  d->library_workspace = base + static_cast<CuDevicePtr>(c->arena_.library_workspace_offset);
  Expected<std::vector<std::optional<LtMatmul>>> matmuls =
      create_matmuls(matmul_plans, flat, o.tf32, static_cast<uint64_t>(c->arena_.library_workspace_bytes));
  if (!matmuls) return matmuls.error().add_context(where);
  d->matmuls = std::move(*matmuls);
  c->times_.load = seconds_since(t0);
  c->device_ = std::move(d);
  return std::unique_ptr<Executable>(std::move(c));
}

Expected<std::vector<Tensor>> CudaProgram::run(std::span<const Tensor> inputs) const {
  KILN_TRY(check_loop_inputs(p_, inputs));
  KILN_TRY(check_loop_inputs_on_host(p_, inputs, "a compiled CUDA program's run"));
  Device& d = *device_;
  std::lock_guard<std::mutex> lock(d.mutex);
  // The program's context (retained at load), current on this thread for the run: one driver
  // call, not a retain and a release per run.
  KILN_TRY(d.context->make_current());
  std::copy(d.planned.begin(), d.planned.end(), d.addresses.begin());  // in place: launches point into it
  static const int kNoError = 0;
  KILN_TRY(d.to_device(d.error_slot, &kNoError, sizeof kNoError));
  KILN_TRY(copy_inputs_in(inputs));
  KILN_TRY(run_kernels(p_.kernels, 0, inputs));
  KILN_TRY(check_error_slot(inputs));
  return copy_outputs_out(inputs);
}

Expected<ResidentTiming> CudaProgram::time_resident(std::span<const Tensor> inputs,
                                                    const ResidentTimingOptions& o) const {
  KILN_TRY(check_resident_timing(p_, o));
  KILN_TRY(check_loop_inputs(p_, inputs));
  Device& d = *device_;
  std::lock_guard<std::mutex> lock(d.mutex);
  KILN_TRY(d.context->make_current());
  std::copy(d.planned.begin(), d.planned.end(), d.addresses.begin());
  static const int kNoError = 0;
  KILN_TRY(d.to_device(d.error_slot, &kNoError, sizeof kNoError));
  KILN_TRY(copy_inputs_in(inputs));
  for (int i = 0; i < o.warmup_runs; ++i) KILN_TRY(run_kernels(p_.kernels, 0, inputs));

  KILN_ASSIGN_OR_RETURN(RunMarks marks, RunMarks::create(*d.context, o.timed_runs));
  double enqueue_seconds = 0;
  KILN_TRY(marks.record(0, *d.stream));
  for (int i = 0; i < o.timed_runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    KILN_TRY(run_kernels(p_.kernels, 0, inputs));
    enqueue_seconds += seconds_since(t0);
    KILN_TRY(marks.record(i + 1, *d.stream));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<double> seconds, marks.sorted_seconds());

  ResidentTiming t;
  t.median_seconds = seconds[seconds.size() / 2];
  t.min_seconds = seconds.front();
  for (size_t k = 0; k < d.launches.size(); ++k)
    t.launches_per_run += static_cast<int>(d.launches[k].size()) + (d.matmuls[k] ? 1 : 0);
  t.host_seconds_per_launch = enqueue_seconds / (static_cast<double>(o.timed_runs) * std::max(1, t.launches_per_run));
  KILN_TRY(check_error_slot(inputs));
  KILN_ASSIGN_OR_RETURN(t.outputs, copy_outputs_out(inputs));
  return t;
}

Status CudaProgram::copy_inputs_in(std::span<const Tensor> inputs) const {
  Device& d = *device_;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t b = static_cast<size_t>(p_.inputs[i]);
    const Buffer& buf = p_.buffers[b];
    const Tensor& t = inputs[i];
    if (t.is_contiguous() && is_contiguous_layout(buf)) {
      KILN_TRY(d.to_device(d.addresses[b], t.data_bytes(), bytes_of(buf)));
      continue;
    }
    KILN_ASSIGN_OR_RETURN(Tensor * staged, d.staging(buf, b));
    staged->as_strided(buf.sizes, buf.strides, 0).copy_from(t);
    KILN_TRY(d.to_device(d.addresses[b], staged->data_bytes(), bytes_of(buf)));
  }
  return Status::ok();
}

Expected<std::vector<Tensor>> CudaProgram::copy_outputs_out(std::span<const Tensor> inputs) const {
  Device& d = *device_;
  // Copies buffer `b` into `to` (its sizes, contiguous), through staging unless its layout is contiguous.
  auto copy_out = [&](size_t b, Tensor to) -> Status {
    const Buffer& buf = p_.buffers[b];
    if (to.is_contiguous() && is_contiguous_layout(buf))
      return d.to_host(to.data_bytes(), d.addresses[b], bytes_of(buf));
    KILN_ASSIGN_OR_RETURN(Tensor * staged, d.staging(buf, b));
    KILN_TRY(d.to_host(staged->data_bytes(), d.addresses[b], bytes_of(buf)));
    KILN_TRY(d.stream->synchronize());
    to.copy_from(view_of(*staged, buf.sizes, buf.strides, 0));
    return Status::ok();
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (input_written_[static_cast<size_t>(p_.inputs[i])])
      KILN_TRY(copy_out(static_cast<size_t>(p_.inputs[i]), inputs[i]));
  std::vector<Tensor> out;
  for (int o : p_.outputs) {
    const Buffer& buf = p_.buffers[static_cast<size_t>(o)];
    Tensor t;
    try {
      t = Tensor::empty(buf.sizes, buf.dtype);
    } catch (const Error& e) {
      return make_error("output %", buf.name, " of loops @", p_.name, ": ", e.diagnostic().message());
    }
    KILN_TRY(copy_out(static_cast<size_t>(o), t));
    out.push_back(std::move(t));
  }
  KILN_TRY(d.stream->synchronize());
  return out;
}

Status CudaProgram::run_kernels(const std::vector<LoopKernel>& kernels, int first,
                                std::span<const Tensor> inputs) const {
  Device& d = *device_;
  int at = first;
  for (const LoopKernel& k : kernels) {
    const size_t i = static_cast<size_t>(at);
    if (!d.launches[i].empty()) {
      for (Launch& l : d.launches[i]) {
        Status s = l.module->launch(l.function, l.dims, d.stream->handle(), l.args.params());
        if (!s) return s.error().add_context("in kernel @" + k.name + " of loops @" + p_.name);
      }
    } else if (is_control_kernel(k)) {
      KILN_TRY(run_control(k, at, inputs));
    } else if (d.matmuls[i]) {
      Status s = run_library_matmul(i);
      if (!s) return s.error().add_context("in kernel @" + k.name + " of loops @" + p_.name);
    } else {
      Status s = run_host_extern(k, inputs);
      if (!s) return s.error().add_context("in kernel @" + k.name + " of loops @" + p_.name);
    }
    at = ends_[i];
  }
  return Status::ok();
}

Status CudaProgram::run_control(const LoopKernel& k, int at, std::span<const Tensor> inputs) const {
  Device& d = *device_;
  // check_loop_bounds has checked the rules (a one-element bool predicate, pairs of one layout).
  auto predicate = [&]() -> Expected<bool> {
    uint8_t value = 0;
    KILN_TRY(d.to_host(&value, d.addresses[static_cast<size_t>(k.predicate)], 1));
    KILN_TRY(check_error_slot(inputs));  // a predicate computed past a bad index means nothing
    return value != 0;
  };
  // The flat index of each region's first kernel: regions follow their kernel in pre-order.
  int first[2] = {at + 1, at + 1};
  for (size_t i = 0; i < k.regions.at(0).size(); ++i) first[1] = ends_[static_cast<size_t>(first[1])];
  if (k.kind == KernelKind::Cond) {
    KILN_ASSIGN_OR_RETURN(bool then, predicate());
    const int r = then ? 0 : 1;
    return run_kernels(k.regions.at(static_cast<size_t>(r)), first[r], inputs);
  }
  while (true) {
    KILN_TRY(run_kernels(k.regions.at(0), first[0], inputs));
    KILN_ASSIGN_OR_RETURN(bool again, predicate());
    if (!again) return Status::ok();
    KILN_TRY(run_kernels(k.regions.at(1), first[1], inputs));
    // The packed launches read buffer addresses from d.addresses: swapping two exchanges them.
    for (size_t i = 0; i < k.carried.size(); ++i)
      std::swap(d.addresses[static_cast<size_t>(k.carried[i])], d.addresses[static_cast<size_t>(k.next[i])]);
  }
}

Status CudaProgram::run_host_extern(const LoopKernel& k, std::span<const Tensor> inputs) const {
  Device& d = *device_;
  for (int b : kernel_buffers_read(k))
    KILN_TRY(d.to_host(d.host[static_cast<size_t>(b)].data_bytes(), d.addresses[static_cast<size_t>(b)],
                       bytes_of(p_.buffers[static_cast<size_t>(b)])));
  KILN_TRY(check_error_slot(inputs));
  try {
    KILN_TRY(run_extern_kernel(p_, k, d.host));
  } catch (const std::bad_alloc&) {
    return make_error("out of memory for the temporaries of ", op_info(k.op).name());
  } catch (const Error& e) {  // a Tensor the kernel allocates: out of memory, naming its bytes
    return make_error(op_info(k.op).name(), ": ", e.diagnostic().message());
  }
  for (int b : kernel_buffers_written(k))
    KILN_TRY(d.to_device(d.addresses[static_cast<size_t>(b)], d.host[static_cast<size_t>(b)].data_bytes(),
                         bytes_of(p_.buffers[static_cast<size_t>(b)])));
  return Status::ok();
}

Status CudaProgram::run_library_matmul(size_t at) const {
  Device& d = *device_;
  const LtMatmul& matmul = *d.matmuls[at];
  const LtMatmulPlan& plan = matmul.plan();
  auto address = [&](int buffer) { return buffer < 0 ? CuDevicePtr{0} : d.addresses[static_cast<size_t>(buffer)]; };
  const LtMatmul::Buffers buffers{address(plan.a.buffer), address(plan.b.buffer), address(plan.c.buffer),
                                  address(plan.d.buffer), address(plan.bias)};
  return matmul.run(buffers, d.library_workspace, static_cast<uint64_t>(arena_.library_workspace_bytes),
                    d.stream->handle());
}

Status CudaProgram::check_error_slot(std::span<const Tensor> inputs) const {
  Device& d = *device_;
  int error = 0;
  KILN_TRY(d.to_host(&error, d.error_slot, sizeof error));
  KILN_TRY(d.stream->synchronize());
  if (error == 0) return Status::ok();
  // The evaluator finds the first bad index again, on copies (it writes in-place inputs).
  std::vector<Tensor> copies;
  for (const Tensor& t : inputs) copies.push_back(t.clone());
  Expected<std::vector<Tensor>> evaluated = eval_loops(p_, copies);
  if (!evaluated) return evaluated.error();
  return make_error("a kernel of loops @", p_.name,
                    " reported an index out of range on the GPU, but the loop-IR evaluator finds every index in range");
}

}  // namespace kiln
