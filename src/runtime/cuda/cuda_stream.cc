#include "runtime/cuda/cuda_stream.h"

namespace kiln {

Expected<CudaStream> CudaStream::create(const CudaContext& context) {
  const CudaDriver& driver = context.driver();
  CuStream stream = nullptr;
  KILN_TRY(driver.check(driver.api().stream_create(&stream, 0), "cuStreamCreate"));
  return CudaStream({driver, stream});
}

Status CudaStream::synchronize() const {
  const CudaDriver& driver = stream_.driver();
  return driver.check(driver.api().stream_synchronize(stream_.get()), "cuStreamSynchronize");
}

Expected<CudaEvent> CudaEvent::create(const CudaContext& context) {
  const CudaDriver& driver = context.driver();
  CuEvent event = nullptr;
  KILN_TRY(driver.check(driver.api().event_create(&event, 0), "cuEventCreate"));
  return CudaEvent({driver, event});
}

Status CudaEvent::record(const CudaStream& stream) const {
  const CudaDriver& driver = event_.driver();
  return driver.check(driver.api().event_record(event_.get(), stream.handle()), "cuEventRecord");
}

Status CudaEvent::synchronize() const {
  const CudaDriver& driver = event_.driver();
  return driver.check(driver.api().event_synchronize(event_.get()), "cuEventSynchronize");
}

Expected<float> CudaEvent::milliseconds_since(const CudaEvent& start) const {
  const CudaDriver& driver = event_.driver();
  float ms = 0;
  KILN_TRY(driver.check(driver.api().event_elapsed_time(&ms, start.event_.get(), event_.get()), "cuEventElapsedTime"));
  return ms;
}

}  // namespace kiln
