// The SASS metrics warplens collects per instruction, by name.
//
// Shared by the injection library (which asks CUPTI for them) and the
// aggregation below (which turns per-PC values into per-line records), so
// the list lives in plain C++. CUPTI names carry the prefix "smsp__sass_".
// Every metric here exists on GA100, GH100, AD102 and GB100 (CUDA 13.0,
// see docs/profile-format.md); ids are still looked up by name at run time.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace warplens::profile {

enum class SassMetric : std::size_t {
  InstExecuted,            // warp instructions executed at this PC
  ThreadInstExecuted,      // thread instructions executed at this PC
  SectorsGlobal,           // 32-byte global sectors touched
  SectorsGlobalIdeal,      // ... if the access had been perfectly coalesced
  WavefrontsShared,        // shared-memory wavefronts
  WavefrontsSharedIdeal,   // ... without bank conflicts
  BranchDivergent,         // branch executions whose active threads split
  BranchUniform,           // branch executions whose active threads agreed
  OpGlobalLd,              // warp instructions: LDG, LD (global)
  OpGlobalSt,              // STG, ST (global)
  OpSharedLd,              // LDS, LD (shared)
  OpSharedSt,              // STS, ST (shared)
  OpLocalLd,               // LDL, LD (local)
  OpLocalSt,               // STL, ST (local)
  SectorsLocal,            // local-memory sectors (spills, local arrays)
  Count
};
inline constexpr std::size_t kSassMetricCount = std::size_t(SassMetric::Count);

struct SassMetricInfo {
  SassMetric metric;
  std::string_view name;  // without the "smsp__sass_" prefix
};

inline constexpr std::string_view kSassMetricPrefix = "smsp__sass_";

inline constexpr std::array<SassMetricInfo, kSassMetricCount> kSassMetrics = {{
    {SassMetric::InstExecuted, "inst_executed"},
    {SassMetric::ThreadInstExecuted, "thread_inst_executed"},
    {SassMetric::SectorsGlobal, "sectors_mem_global"},
    {SassMetric::SectorsGlobalIdeal, "sectors_mem_global_ideal"},
    {SassMetric::WavefrontsShared, "l1tex_pipe_lsu_wavefronts_mem_shared"},
    {SassMetric::WavefrontsSharedIdeal, "l1tex_pipe_lsu_wavefronts_mem_shared_ideal"},
    {SassMetric::BranchDivergent, "branch_targets_threads_divergent"},
    {SassMetric::BranchUniform, "branch_targets_threads_uniform"},
    {SassMetric::OpGlobalLd, "inst_executed_op_global_ld"},
    {SassMetric::OpGlobalSt, "inst_executed_op_global_st"},
    {SassMetric::OpSharedLd, "inst_executed_op_shared_ld"},
    {SassMetric::OpSharedSt, "inst_executed_op_shared_st"},
    {SassMetric::OpLocalLd, "inst_executed_op_local_ld"},
    {SassMetric::OpLocalSt, "inst_executed_op_local_st"},
    {SassMetric::SectorsLocal, "sectors_mem_local"},
}};

constexpr std::string_view sass_metric_name(SassMetric m) { return kSassMetrics[std::size_t(m)].name; }

// Accepts the short name or the full "smsp__sass_..." name.
inline std::optional<SassMetric> sass_metric_from_name(std::string_view name) {
  if (name.substr(0, kSassMetricPrefix.size()) == kSassMetricPrefix)
    name.remove_prefix(kSassMetricPrefix.size());
  for (const SassMetricInfo& info : kSassMetrics)
    if (info.name == name) return info.metric;
  return std::nullopt;
}

}  // namespace warplens::profile
