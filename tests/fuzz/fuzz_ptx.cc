// libFuzzer target for the PTX reader, the PTX mutation analysis and the CUDA signature reader
// (kernels/ptx_reader.h, kernels/ptx_mutation.h, kernels/cuda_signature.h). Any input must
// either read, and then analyze with a sound-looking answer (every parameter reported, only
// pointers written, every pointer written when the answer is conservative), or be rejected
// with a Diagnostic that says where. A crash, a hang, a sanitizer report or a failed check is
// a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/cuda_signature.h"
#include "kernels/ptx_mutation.h"
#include "kernels/ptx_reader.h"
#include "support/check.h"

namespace {

using namespace kiln::kernels;

void check_analysis(const PtxModule& m, const PtxFunction& f) {
  kiln::Expected<MutationAnalysis> r = analyze_ptx(m, {f.name, std::nullopt});
  KILN_CHECK(r.has_value()) << "a function of the module does not analyze: " << r.error().to_string();
  KILN_CHECK(r->params.size() == f.params.size()) << f.name;
  bool conservative = !r->reasons.empty();
  KILN_CHECK(!r->fallback || conservative) << "a fallback without a reason in " << f.name;
  for (const ParamMutation& p : r->params) {
    KILN_CHECK(!p.written || p.is_pointer) << p.name << " of " << f.name << " is written but not a pointer";
    KILN_CHECK(!conservative || !p.is_pointer || p.written)
        << p.name << " of " << f.name << " left out: " << r->reasons.front();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kiln::Expected<PtxModule> m = read_ptx(text, "fuzz.ptx");
  if (!m) {
    KILN_CHECK(m.error().loc().known()) << "rejection without a location: " << m.error().to_string();
  } else {
    int analyzed = 0;
    for (const PtxFunction& f : m->functions)
      if (f.has_body && analyzed++ < 4) check_analysis(*m, f);
  }
  kiln::Expected<std::vector<CudaKernelSignature>> sigs = read_cuda_signatures(text, "fuzz.cu");
  if (!sigs) {
    KILN_CHECK(sigs.error().loc().known()) << "rejection without a location: " << sigs.error().to_string();
  } else if (m) {
    for (const PtxFunction& f : m->functions) (void)find_cuda_signature(*sigs, f.name);
  }
  return 0;
}
