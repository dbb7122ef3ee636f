// Reading tests/gpu/occupancy/occupancy_probe.cu's output (what the CUDA
// runtime says on a real GPU) and comparing it with what warplens computes
// without one. Used live by the GPU test (tests/gpu/occupancy) and, on CI,
// by core_occupancy_measured_test.cpp on the recorded output in
// tests/fixtures/occupancy/.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "analysis/gpu_catalog.h"
#include "analysis/occupancy.h"
#include "analysis/ptxas_report.h"

namespace warplens::test {

struct MeasuredKernel {
  std::string id, prefix;
  int regs = 0, max_threads = 0;
  long long static_smem = 0, local_bytes = 0;
};
struct MeasuredOccupancy {
  std::string id;
  int block = 0;
  long long dynamic_smem = 0;
  int blocks = 0;  // -1: the runtime returned an error
};
struct MeasuredRun {
  GpuProperties device;  // as the runtime reports it
  std::vector<MeasuredKernel> kernels;
  std::vector<MeasuredOccupancy> occupancy;
  bool valid = false;
};

inline MeasuredRun parse_measured(const std::string& text) {
  MeasuredRun run;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "device") {
      GpuProperties& d = run.device;
      ls >> d.cc.major >> d.cc.minor >> d.sm_count >> d.max_threads_per_sm >> d.max_blocks_per_sm >> d.regs_per_sm >>
          d.regs_per_block >> d.shared_per_sm >> d.shared_per_block_optin >> d.reserved_shared_per_block;
      std::getline(ls >> std::ws, d.name);
      d.arch = arch_name(d.cc);
      d.source = "measured: " + d.name;
      run.valid = static_cast<bool>(ls) || !d.name.empty();
    } else if (tag == "kernel") {
      MeasuredKernel k;
      ls >> k.id >> k.regs >> k.static_smem >> k.local_bytes >> k.max_threads;
      std::getline(ls >> std::ws, k.prefix);
      run.kernels.push_back(k);
    } else if (tag == "occ") {
      MeasuredOccupancy o;
      ls >> o.id >> o.block >> o.dynamic_smem >> o.blocks;
      run.occupancy.push_back(o);
    }
  }
  return run;
}

struct Comparison {
  int compared = 0;
  int beyond_launch_bounds = 0;  // cases the runtime reports but a launch would refuse
  std::vector<std::string> mismatches;
};

inline const FunctionResources* ptxas_record(const ToolOutput& ptxas, const std::string& prefix) {
  for (const auto& f : ptxas.functions)
    if (f.is_entry && f.demangled.rfind(prefix, 0) == 0) return &f;
  return nullptr;
}

// Predicted blocks per SM (calculator + `props`, registers and shared memory
// from the runtime, barriers from ptxas) against the runtime's own answer.
inline Comparison compare_occupancy(const MeasuredRun& run, const GpuProperties& props, const ToolOutput& ptxas) {
  Comparison c;
  for (const auto& o : run.occupancy) {
    const MeasuredKernel* k = nullptr;
    for (const auto& mk : run.kernels)
      if (mk.id == o.id) k = &mk;
    if (!k) {
      c.mismatches.push_back("no kernel line for " + o.id);
      continue;
    }
    const FunctionResources* pt = ptxas_record(ptxas, k->prefix);
    OccupancyInput in;
    in.registers = k->regs;
    in.shared_static_bytes = k->static_smem;
    in.shared_dynamic_bytes = o.dynamic_smem;
    in.barriers = pt ? pt->barriers : 0;
    in.block_threads = o.block;
    if (k->max_threads < props.max_threads_per_block) in.launch_bounds_max_threads = k->max_threads;
    OccupancyResult r = compute_occupancy(props, in);
    int measured = o.blocks < 0 ? 0 : o.blocks;
    // cudaOccupancyMaxActiveBlocksPerMultiprocessor ignores the kernel's
    // __launch_bounds__ maximum (seen on the H200, CUDA 13.0: `heavy`, bounded
    // at 256 threads, reports 1 block of 320..512 threads). Such a launch fails
    // with "too many resources requested", so warplens' 0 is the right answer.
    if (o.block > k->max_threads) {
      ++c.beyond_launch_bounds;
      if (r.ok && r.blocks_per_sm != 0)
        c.mismatches.push_back(o.id + " block " + std::to_string(o.block) +
                               " exceeds __launch_bounds__ " + std::to_string(k->max_threads) +
                               " but was predicted to launch");
      continue;
    }
    ++c.compared;
    if (!r.ok || r.blocks_per_sm != measured)
      c.mismatches.push_back(o.id + " block " + std::to_string(o.block) + " dyn " + std::to_string(o.dynamic_smem) +
                             ": predicted " + (r.ok ? std::to_string(r.blocks_per_sm) : r.error) + ", measured " +
                             std::to_string(o.blocks));
  }
  return c;
}

// The per-SM limits of `table` against the measured device.
inline std::vector<std::string> compare_limits(const GpuProperties& table, const GpuProperties& measured) {
  std::vector<std::string> out;
  auto cmp = [&](const char* what, long long a, long long b) {
    if (a != b) out.push_back(std::string(what) + ": table " + std::to_string(a) + ", device " + std::to_string(b));
  };
  cmp("max threads per SM", table.max_threads_per_sm, measured.max_threads_per_sm);
  cmp("max blocks per SM", table.max_blocks_per_sm, measured.max_blocks_per_sm);
  cmp("registers per SM", table.regs_per_sm, measured.regs_per_sm);
  cmp("registers per block", table.regs_per_block, measured.regs_per_block);
  cmp("shared memory per SM", table.shared_per_sm, measured.shared_per_sm);
  cmp("shared memory per block (opt-in)", table.shared_per_block_optin, measured.shared_per_block_optin);
  cmp("reserved shared memory per block", table.reserved_shared_per_block, measured.reserved_shared_per_block);
  return out;
}

}  // namespace warplens::test
