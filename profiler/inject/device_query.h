// Device facts for the profile, from the driver API (no context needed).
#pragma once

#include <cuda.h>

#include "profiler/profile_data.h"

namespace warplens::inject {

// Name, compute capability, SM count, memory clock and bus width (hence the
// theoretical peak DRAM bandwidth), L2 size and driver version of `device`.
// Attributes the driver does not report stay 0.
profile::Device query_device(CUdevice device);

}  // namespace warplens::inject
