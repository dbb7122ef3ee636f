#include "profiler/inject/device_query.h"

namespace warplens::inject {
namespace {
int attribute(CUdevice device, CUdevice_attribute a) {
  int v = 0;
  if (cuDeviceGetAttribute(&v, a, device) != CUDA_SUCCESS) return 0;
  return v;
}
}  // namespace

profile::Device query_device(CUdevice device) {
  profile::Device d;
  d.index = int(device);
  char name[256] = {};
  if (cuDeviceGetName(name, sizeof name, device) == CUDA_SUCCESS) d.name = name;
  d.cc_major = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.cc_minor = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.sm_count = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.memory_clock_khz = attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  d.memory_bus_width_bits = attribute(device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  d.l2_cache_bytes = attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  // Double data rate: two transfers per memory clock, bus width in bits.
  // (HBM and GDDR both report their clock so that this formula gives the
  // datasheet figure, e.g. 3.35 TB/s for an H100 SXM.)
  if (d.memory_clock_khz > 0 && d.memory_bus_width_bits > 0)
    d.peak_bandwidth_gbs =
        2.0 * double(d.memory_clock_khz) * 1e3 * double(d.memory_bus_width_bits) / 8.0 / 1e9;
  int version = 0;
  if (cuDriverGetVersion(&version) == CUDA_SUCCESS) d.driver_version = version;
  return d;
}

}  // namespace warplens::inject
