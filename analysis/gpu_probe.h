// Reading a real GPU's occupancy limits from the CUDA driver, when present.
//
// The driver is loaded at run time (dlopen "libcuda.so.1") so the analysis
// library builds, links and runs on machines without a GPU or a driver; no
// CUDA runtime dependency either. The driver API's attribute numbers are a
// stable ABI (checked against cuda.h in gpu_probe.cpp when it is available).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/gpu_catalog.h"

namespace warplens {

struct GpuProbeResult {
  std::optional<GpuProperties> properties;  // set when a device answered
  std::string error;                        // why not: no driver, no device, ...
  int device_count = 0;
};

// Queries device `device` (0 = the first). Cheap after the first call per
// process for device 0 (cached); takes ~0.1-1 s the first time (cuInit).
GpuProbeResult probe_gpu(int device = 0);

// Every device the driver lists, by name and compute capability: what the
// profiler asks (profiler/gpu_probe.h) when nvidia-smi cannot tell. The one
// place warplens loads the driver outside the replay and the injection
// library (same dlopen, same cuInit).
struct GpuDriverDevice {
  int index = 0;
  std::string name;
  ComputeCapability cc;
};
struct GpuDriverListing {
  std::vector<GpuDriverDevice> devices;
  std::string error;  // why none: no driver library, cuInit failed (named), no devices
};
GpuDriverListing list_gpu_devices();

}  // namespace warplens
