// A test double for the resource-usage pipeline (workflows/resources.h):
// instead of running nvcc it takes ptxas' recorded CUDA 13 sm_90 output
// for tests/fixtures/ptxas/kernels.cu and runs the real occupancy analysis
// on it (analyze_occupancy), so lenses, hovers, findings and fixes are the
// engine's own. It can block until released, ignore its stop_token (a
// result that arrives late), and records the texts it was asked about.
#pragma once

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/occupancy_findings.h"
#include "analysis/ptxas_report.h"
#include "server/occupancy_service.h"

namespace warplens::testing {

inline ResourceUsageResult recorded_kernels_sm90() {
  std::string path = std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/ptxas/cuda13/kernels_sm_90.txt";
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  ResourceUsageResult r;
  r.status = ResourceUsageStatus::Ok;
  r.requested_arch = r.compiled_arch = "sm_90";
  r.cuda_version = "13.0";
  r.raw_output = ss.str();
  ToolOutput parsed = parse_nvcc_output(r.raw_output);
  r.functions = parsed.functions;
  r.diagnostics = parsed.diagnostics;
  r.command = "nvcc -cubin -arch=sm_90 -Xptxas -v (recorded)";
  return r;
}

class FakeOccupancy {
 public:
  server::OccupancyFn fn() {
    return [this](const SourceFile& f, const KernelModel& m, const AnalysisOptions& o, std::stop_token s) {
      return (*this)(f, m, o, s);
    };
  }
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    cv_.notify_all();
  }
  void ignore_stop(bool ignore) { ignore_stop_ = ignore; }

  OccupancyAnalysis operator()(const SourceFile& file, const KernelModel& model, const AnalysisOptions& options,
                               std::stop_token stop) {
    {
      std::lock_guard lock(mutex_);
      texts_.push_back(file.text);
    }
    ++calls_;
    std::unique_lock lock(mutex_);
    std::stop_callback wake(stop, [this] { cv_.notify_all(); });
    cv_.wait(lock, [&] { return !held_ || (!ignore_stop_ && stop.stop_requested()); });
    if (!ignore_stop_ && stop.stop_requested()) {
      ++cancelled_;
      OccupancyAnalysis a;
      a.cancelled = true;
      return a;
    }
    return analyze_occupancy(file.path, model, resources_, select_gpu("sm_90", /*probe_local_gpu=*/false), options);
  }

  int calls() const { return calls_; }
  int cancelled() const { return cancelled_; }
  std::vector<std::string> texts() const {
    std::lock_guard lock(mutex_);
    return texts_;
  }

 private:
  ResourceUsageResult resources_ = recorded_kernels_sm90();
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool held_ = false;
  std::atomic<bool> ignore_stop_{false};
  std::vector<std::string> texts_;
  std::atomic<int> calls_{0};
  std::atomic<int> cancelled_{0};
};

}  // namespace warplens::testing
