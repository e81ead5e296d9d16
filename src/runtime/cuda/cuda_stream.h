// A stream (the one queue a compiled program launches on) and events on it, for timing kernels
// on the device rather than around host calls.
#pragma once

#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/driver_handle.h"

namespace kiln {

class CudaStream {
 public:
  static Expected<CudaStream> create(const CudaContext& context);

  CuStream handle() const { return stream_.get(); }
  // Waits for everything queued so far; a kernel's fault surfaces here.
  Status synchronize() const;

 private:
  explicit CudaStream(DriverHandle<CuStream, &CudaDriverApi::stream_destroy> stream) : stream_(std::move(stream)) {}

  DriverHandle<CuStream, &CudaDriverApi::stream_destroy> stream_;
};

class CudaEvent {
 public:
  static Expected<CudaEvent> create(const CudaContext& context);

  Status record(const CudaStream& stream) const;
  Status synchronize() const;
  // Milliseconds between `start` and this event, both recorded and this one complete.
  Expected<float> milliseconds_since(const CudaEvent& start) const;

 private:
  explicit CudaEvent(DriverHandle<CuEvent, &CudaDriverApi::event_destroy> event) : event_(std::move(event)) {}

  DriverHandle<CuEvent, &CudaDriverApi::event_destroy> event_;
};

}  // namespace kiln
