// GPU check for resource usage and occupancy (ctest label `gpu`; exits 77
// without a GPU). On a real GPU it:
//   1. reads the device's limits through the driver (gpu_probe.h) and
//      compares them with the built-in table for its architecture;
//   2. builds tests/gpu/occupancy/occupancy_probe.cu with nvcc -Xptxas -v and
//      runs it: the CUDA runtime's registers and occupancy per kernel,
//      block size and dynamic shared memory;
//   3. compares those with what warplens computes without a GPU: the
//      calculator fed with the table, and fed with the driver's limits;
//   4. runs compute_resource_usage() on the same kernels and compares its
//      registers and shared memory with the runtime's.
// With WARPLENS_GPU_OUT (or OUT) set, it writes the probe's output and the
// ptxas log there, named for tests/fixtures/occupancy/, so CI can replay the
// comparison (core_occupancy_measured_test.cpp). The summary is printed last.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis/gpu_probe.h"
#include "analysis/nvcc_toolchain.h"
#include "analysis/resource_usage.h"
#include "common/subprocess.h"
#include "tests/unit/analysis/occupancy_measured.h"

using namespace warplens;
using namespace warplens::test;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string slug(std::string s) {
  for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return s;
}

}  // namespace

int main() {
  GpuProbeResult gpu = probe_gpu();
  if (!gpu.properties) {
    std::printf("gpu_occupancy_test: skipped: %s\n", gpu.error.c_str());
    return 77;
  }
  const GpuProperties& dev = *gpu.properties;
  std::printf("device: %s (%s), %d SMs\n", dev.name.c_str(), dev.arch.c_str(), dev.sm_count);
  int failures = 0;
  std::vector<std::string> summary;

  // 1. Driver limits vs the table.
  auto table = catalog_properties(dev.arch);
  if (!table) {
    std::printf("FAIL: no table entry for %s\n", dev.arch.c_str());
    ++failures;
  } else {
    auto diffs = compare_limits(*table, dev);
    for (const auto& d : diffs) std::printf("FAIL table vs driver: %s\n", d.c_str());
    failures += static_cast<int>(diffs.size());
    summary.push_back("table limits for " + dev.arch + (diffs.empty() ? ": match the driver" : ": DIFFER"));
  }

  // 2. Build and run the runtime probe.
  auto nvcc = find_nvcc("");
  if (!nvcc.toolchain) {
    std::printf("FAIL: nvcc not found: %s\n", nvcc.error.c_str());
    return 1;
  }
  const fs::path src = fs::path(WARPLENS_SOURCE_DIR);
  char tmpl[] = "/tmp/warplens-gpu-occupancy-XXXXXX";
  fs::path tmp = ::mkdtemp(tmpl);
  ProcessSpec build;
  build.capture_output = true;
  build.argv = {nvcc.toolchain->nvcc, "-arch=" + dev.arch, "-Xptxas", "-v", "-o", (tmp / "probe").string(),
                (src / "tests/gpu/occupancy/occupancy_probe.cu").string()};
  build.timeout = std::chrono::minutes(5);
  ProcessResult built = run_process(build);
  if (!built.succeeded()) {
    std::printf("FAIL: building the probe: %s%s\n", built.start_error.c_str(), built.err.c_str());
    return 1;
  }
  ProcessSpec probe;
  probe.capture_output = true;
  probe.argv = {(tmp / "probe").string()};
  probe.timeout = std::chrono::minutes(2);
  ProcessResult ran = run_process(probe);
  if (!ran.succeeded()) {
    std::printf("FAIL: running the probe (exit %d): %s\n", ran.exit_code, ran.err.c_str());
    return 1;
  }
  const char* out_env = std::getenv("WARPLENS_GPU_OUT");
  if (!out_env) out_env = std::getenv("OUT");
  std::string stem = dev.arch + "_" + slug(dev.name);
  if (out_env) {
    fs::create_directories(out_env);
    write_file(fs::path(out_env) / (stem + "_measured.txt"), ran.out);
    write_file(fs::path(out_env) / (stem + "_ptxas.txt"), built.err);
    std::printf("wrote %s/%s_{measured,ptxas}.txt (copy to tests/fixtures/occupancy/)\n", out_env, stem.c_str());
  }
  MeasuredRun run = parse_measured(ran.out);
  ToolOutput ptxas = parse_nvcc_output(built.err);
  auto runtime_diffs = compare_limits(dev, run.device);
  for (const auto& d : runtime_diffs) std::printf("FAIL driver vs runtime: %s\n", d.c_str());
  failures += static_cast<int>(runtime_diffs.size());

  // 3. Occupancy: table and driver limits vs the runtime.
  if (table) {
    Comparison c = compare_occupancy(run, *table, ptxas);
    for (const auto& m : c.mismatches) std::printf("FAIL occupancy (table): %s\n", m.c_str());
    failures += static_cast<int>(c.mismatches.size());
    summary.push_back("occupancy with the table: " + std::to_string(c.compared - static_cast<int>(c.mismatches.size())) +
                      "/" + std::to_string(c.compared) + " cases match the runtime");
  }
  Comparison d = compare_occupancy(run, dev, ptxas);
  for (const auto& m : d.mismatches) std::printf("FAIL occupancy (driver limits): %s\n", m.c_str());
  failures += static_cast<int>(d.mismatches.size());
  summary.push_back("occupancy with the driver's limits: " +
                    std::to_string(d.compared - static_cast<int>(d.mismatches.size())) + "/" +
                    std::to_string(d.compared) + " cases match the runtime");

  // 4. compute_resource_usage on the same kernels vs the runtime.
  ResourceUsageRequest req;
  req.path = (src / "tests/fixtures/ptxas/kernels.cu").string();
  req.text = read_file(req.path);
  req.arch = dev.arch;
  ResourceCache no_disk("");
  ResourceUsageResult res = compute_resource_usage(req, {}, &no_disk);
  int reg_ok = 0, reg_total = 0;
  if (res.status != ResourceUsageStatus::Ok) {
    std::printf("FAIL: compute_resource_usage: %s\n", res.message.c_str());
    ++failures;
  } else {
    for (const auto& k : run.kernels) {
      ++reg_total;
      const FunctionResources* f = nullptr;
      for (const auto& fr : res.functions)
        if (fr.is_entry && fr.demangled.rfind(k.prefix, 0) == 0) f = &fr;
      if (f && f->registers == k.regs && f->shared_static_bytes == k.static_smem) {
        ++reg_ok;
      } else {
        std::printf("FAIL resources %s: warplens %d regs %lld smem, runtime %d regs %lld smem\n", k.id.c_str(),
                    f ? f->registers.value_or(-1) : -1, f ? static_cast<long long>(f->shared_static_bytes) : -1LL,
                    k.regs, k.static_smem);
        ++failures;
      }
    }
    std::printf("nvcc resource usage: %.0f ms\n", res.wall_ms);
  }
  summary.push_back("registers + static smem: " + std::to_string(reg_ok) + "/" + std::to_string(reg_total) +
                    " kernels match cudaFuncGetAttributes");
  std::error_code ec;
  fs::remove_all(tmp, ec);

  std::printf("\n== occupancy GPU summary (%s, %s) ==\n", dev.name.c_str(), dev.arch.c_str());
  for (const auto& s : summary) std::printf("  %s\n", s.c_str());
  std::printf("  %s\n", failures == 0 ? "PASS" : ("FAIL: " + std::to_string(failures) + " mismatches").c_str());
  return failures == 0 ? 0 : 1;
}
