// A stream (the one queue a compiled program launches on) and events on it, for timing kernels
// on the device rather than around host calls.
#pragma once

#include "runtime/cuda/cuda_device.h"

namespace kiln {

class CudaStream {
 public:
  static Expected<CudaStream> create(const CudaContext& context);
  CudaStream(CudaStream&& other) noexcept;
  CudaStream& operator=(CudaStream&&) = delete;
  CudaStream(const CudaStream&) = delete;
  ~CudaStream();

  CuStream handle() const { return stream_; }
  // Waits for everything queued so far; a kernel's fault surfaces here.
  Status synchronize() const;

 private:
  CudaStream(const CudaDriver& driver, CuStream stream) : driver_(&driver), stream_(stream) {}

  const CudaDriver* driver_;
  CuStream stream_;
};

class CudaEvent {
 public:
  static Expected<CudaEvent> create(const CudaContext& context);
  CudaEvent(CudaEvent&& other) noexcept;
  CudaEvent& operator=(CudaEvent&&) = delete;
  CudaEvent(const CudaEvent&) = delete;
  ~CudaEvent();

  Status record(const CudaStream& stream) const;
  Status synchronize() const;
  // Milliseconds between `start` and this event, both recorded and this one complete.
  Expected<float> milliseconds_since(const CudaEvent& start) const;

 private:
  CudaEvent(const CudaDriver& driver, CuEvent event) : driver_(&driver), event_(event) {}

  const CudaDriver* driver_;
  CuEvent event_;
};

}  // namespace kiln
