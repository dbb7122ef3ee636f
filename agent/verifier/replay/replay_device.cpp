#include "agent/verifier/replay/cuda_driver.h"
#include "agent/verifier/replay/replay_modes.h"

namespace warplens::replay {

verifier::DeviceProbe probe_device() {
  verifier::DeviceProbe probe;
  try {
    Context ctx;
    probe.device = ctx.summary();
    probe.ok = true;
  } catch (const std::exception& e) {
    probe.ok = false;
    probe.error = std::string("no usable CUDA GPU: ") + e.what();
  }
  return probe;
}

}  // namespace warplens::replay
