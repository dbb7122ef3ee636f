#include "analysis/gpu_catalog.h"

#include <cctype>
#include <charconv>

namespace warplens {

std::optional<ComputeCapability> parse_arch(std::string_view arch) {
  for (std::string_view prefix : {"sm_", "compute_", "lto_"})
    if (arch.substr(0, prefix.size()) == prefix) {
      arch.remove_prefix(prefix.size());
      break;
    }
  // "9.0" form.
  if (auto dot = arch.find('.'); dot != std::string_view::npos) {
    int major = 0, minor = 0;
    auto r1 = std::from_chars(arch.data(), arch.data() + dot, major);
    auto r2 = std::from_chars(arch.data() + dot + 1, arch.data() + arch.size(), minor);
    if (r1.ec != std::errc() || r2.ec != std::errc() || r1.ptr != arch.data() + dot) return std::nullopt;
    return ComputeCapability{major, minor};
  }
  // "90", "90a", "100f": digits, then an optional feature-set suffix letter.
  std::size_t n = 0;
  while (n < arch.size() && std::isdigit(static_cast<unsigned char>(arch[n]))) ++n;
  if (n < 2 || n > 3) return std::nullopt;
  std::string_view rest = arch.substr(n);
  if (!(rest.empty() || rest == "a" || rest == "f")) return std::nullopt;
  int value = 0;
  std::from_chars(arch.data(), arch.data() + n, value);
  return ComputeCapability{value / 10, value % 10};
}

std::string arch_name(ComputeCapability cc) {
  return "sm_" + std::to_string(cc.major) + std::to_string(cc.minor);
}

namespace {

constexpr std::int64_t KB = 1024;

GpuProperties entry(ComputeCapability cc, std::string name, int threads_per_sm, int blocks_per_sm,
                    std::int64_t smem_per_sm_kb, std::int64_t optin_kb, std::int64_t reserved,
                    int sm_count, double dram_bandwidth_gbs, double fp32_gflops) {
  GpuProperties p;
  p.arch = arch_name(cc);
  p.cc = cc;
  p.name = std::move(name);
  p.max_threads_per_sm = threads_per_sm;
  p.max_blocks_per_sm = blocks_per_sm;
  p.shared_per_sm = smem_per_sm_kb * KB;
  p.shared_per_block_optin = optin_kb * KB;
  p.reserved_shared_per_block = reserved;
  p.sm_count = sm_count;
  p.dram_bandwidth_gbs = dram_bandwidth_gbs;
  p.fp32_gflops = fp32_gflops;
  p.source = "built-in table (docs/gpus.md)";
  return p;
}

// Values and their sources: docs/gpus.md (last columns: peak DRAM GB/s and
// peak FP32 GFLOP/s without tensor cores). Register file (64 K 32-bit
// registers per SM and per block), 255 registers per thread, 1024 threads
// and 48 KB of shared memory per block without opt-in are common to all.
std::vector<GpuProperties> build_catalog() {
  return {
      entry({7, 0}, "Volta (V100)", 2048, 32, 96, 96, 0, 80, 900, 15700),
      entry({7, 5}, "Turing (T4, RTX 20xx)", 1024, 16, 64, 64, 0, 40, 320, 8100),
      entry({8, 0}, "Ampere (A100)", 2048, 32, 164, 163, 1 * KB, 108, 2039, 19500),
      entry({8, 6}, "Ampere (RTX 30xx, A10, A40)", 1536, 16, 100, 99, 1 * KB, 82, 936, 35600),
      entry({8, 7}, "Ampere (Jetson Orin)", 1536, 16, 164, 163, 1 * KB, 16, 204.8, 5300),
      entry({8, 9}, "Ada (RTX 40xx, L4, L40S)", 1536, 24, 100, 99, 1 * KB, 128, 1008, 82600),
      entry({9, 0}, "Hopper (H100, H200)", 2048, 32, 228, 227, 1 * KB, 132, 4800, 67000),
      entry({10, 0}, "Blackwell (B200, GB200)", 2048, 32, 228, 227, 1 * KB, 148, 8000, 75000),
      entry({12, 0}, "Blackwell (RTX 50xx, RTX PRO)", 1536, 24, 100, 99, 1 * KB, 170, 1792, 104800),
  };
}

// Variants with the limits of another table entry.
std::optional<ComputeCapability> same_limits_as(ComputeCapability cc) {
  if (cc == ComputeCapability{10, 3}) return ComputeCapability{10, 0};  // B300: sm_100 family
  if (cc == ComputeCapability{12, 1}) return ComputeCapability{12, 0};  // GB10: sm_120 family
  return std::nullopt;
}

}  // namespace

const std::vector<GpuProperties>& gpu_catalog() {
  static const std::vector<GpuProperties> catalog = build_catalog();
  return catalog;
}

std::optional<GpuProperties> catalog_properties(std::string_view arch) {
  auto cc = parse_arch(arch);
  if (!cc) return std::nullopt;
  for (const auto& p : gpu_catalog())
    if (p.cc == *cc) return p;
  if (auto base = same_limits_as(*cc)) {
    for (auto p : gpu_catalog()) {
      if (p.cc != *base) continue;
      p.source = "built-in table (docs/gpus.md), limits of " + p.arch + " (same family)";
      p.cc = *cc;
      p.arch = arch_name(*cc);
      return p;
    }
  }
  return std::nullopt;
}

std::string catalog_arch_list() {
  std::string s;
  for (const auto& p : gpu_catalog()) s += (s.empty() ? "" : ", ") + p.arch;
  return s + ", sm_103, sm_121";
}

}  // namespace warplens
