#include "runtime/cuda/cuda_stream.h"

namespace kiln {

Expected<CudaStream> CudaStream::create(const CudaContext& context) {
  const CudaDriver& driver = context.driver();
  CuStream stream = nullptr;
  KILN_TRY(driver.check(driver.api().stream_create(&stream, 0), "cuStreamCreate"));
  return CudaStream(driver, stream);
}

CudaStream::CudaStream(CudaStream&& other) noexcept : driver_(other.driver_), stream_(other.stream_) {
  other.stream_ = nullptr;
}

CudaStream::~CudaStream() {
  if (stream_) (void)driver_->api().stream_destroy(stream_);
}

Status CudaStream::synchronize() const {
  return driver_->check(driver_->api().stream_synchronize(stream_), "cuStreamSynchronize");
}

Expected<CudaEvent> CudaEvent::create(const CudaContext& context) {
  const CudaDriver& driver = context.driver();
  CuEvent event = nullptr;
  KILN_TRY(driver.check(driver.api().event_create(&event, 0), "cuEventCreate"));
  return CudaEvent(driver, event);
}

CudaEvent::CudaEvent(CudaEvent&& other) noexcept : driver_(other.driver_), event_(other.event_) {
  other.event_ = nullptr;
}

CudaEvent::~CudaEvent() {
  if (event_) (void)driver_->api().event_destroy(event_);
}

Status CudaEvent::record(const CudaStream& stream) const {
  return driver_->check(driver_->api().event_record(event_, stream.handle()), "cuEventRecord");
}

Status CudaEvent::synchronize() const {
  return driver_->check(driver_->api().event_synchronize(event_), "cuEventSynchronize");
}

Expected<float> CudaEvent::milliseconds_since(const CudaEvent& start) const {
  float ms = 0;
  KILN_TRY(driver_->check(driver_->api().event_elapsed_time(&ms, start.event_, event_), "cuEventElapsedTime"));
  return ms;
}

}  // namespace kiln
