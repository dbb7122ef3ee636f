// Device properties that occupancy depends on, per GPU architecture.
//
// The table covers sm_70 ... sm_121 with the limits from NVIDIA's
// documentation (docs/gpus.md lists every value with its source). When a GPU
// is present, gpu_probe.h reads the real values from the driver instead.
// Only per-SM and per-block limits matter for occupancy; `sm_count` is a
// representative product's and only sizes "waves" in messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplens {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  bool operator==(const ComputeCapability&) const = default;
  auto operator<=>(const ComputeCapability&) const = default;
};

// "sm_90", "sm_90a", "sm_100f", "compute_80", "90", "9.0" -> {9, 0}.
std::optional<ComputeCapability> parse_arch(std::string_view arch);
// {9, 0} -> "sm_90".
std::string arch_name(ComputeCapability cc);

struct GpuProperties {
  std::string arch;                       // "sm_90"
  ComputeCapability cc;
  std::string name;                       // "NVIDIA H100 / H200 (representative)"
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int max_regs_per_thread = 255;
  std::int64_t shared_per_block = 48 * 1024;        // without opt-in
  std::int64_t shared_per_sm = 0;                    // the largest carveout
  std::int64_t shared_per_block_optin = 0;           // cudaFuncAttributeMaxDynamicSharedMemorySize limit
  std::int64_t reserved_shared_per_block = 0;        // driver reservation (1 KB on CC >= 8.0)
  int sm_count = 0;
  double dram_bandwidth_gbs = 0;          // representative product's peak DRAM bandwidth,
                                          // GB/s (10^9 bytes/s); sizes "time saved" in messages
                                          // and the roofline's memory roof
  double fp32_gflops = 0;                 // representative product's peak FP32 (no tensor cores),
                                          // GFLOP/s: the roofline's compute roof; 0 when unknown
  std::string source;                     // "built-in table (docs/gpus.md)" or "device 0 (driver): NVIDIA H200"

  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

// The built-in table, oldest architecture first.
const std::vector<GpuProperties>& gpu_catalog();

// The table's entry for an architecture: exact compute capability first,
// else the family entry for variants the table does not list separately
// (sm_87 -> none, see docs/gpus.md; sm_90a -> sm_90). nullopt when unknown.
std::optional<GpuProperties> catalog_properties(std::string_view arch);

// "sm_70, sm_75, ..." for messages.
std::string catalog_arch_list();

}  // namespace warplens
