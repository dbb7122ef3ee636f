#include "profiler/gpu_probe.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/gpu_probe.h"
#include "profiler/scratch_dir.h"
#include "common/subprocess.h"

namespace warplens::profile {
namespace {

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r\n");
  auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool device_files_present() {
  std::error_code ec;
  return std::filesystem::exists("/dev/nvidiactl", ec) || std::filesystem::exists("/dev/nvidia0", ec) ||
         std::filesystem::exists("/dev/dxg", ec);  // WSL
}

// The driver itself (analysis/gpu_probe.h: the one driver loader outside
// the replay and the injection library; warplens never links libcuda).
GpuStatus probe_driver() {
  GpuStatus s;
  s.method = "driver";
  GpuDriverListing listing = list_gpu_devices();
  for (const GpuDriverDevice& g : listing.devices) {
    GpuDevice d;
    d.index = g.index;
    d.name = g.name;
    d.cc_major = g.cc.major;
    d.cc_minor = g.cc.minor;
    s.devices.push_back(std::move(d));
  }
  s.available = !s.devices.empty();
  if (!s.available) s.reason = listing.error.empty() ? "the CUDA driver reports no usable devices" : listing.error;
  return s;
}

}  // namespace

std::string GpuDevice::arch() const {
  if (cc_major <= 0) return {};
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

std::vector<GpuDevice> parse_nvidia_smi_csv(const std::string& text) {
  std::vector<GpuDevice> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty()) continue;
    // index, name, compute_cap: the name may itself contain commas, so take
    // the first and the last field and treat the middle as the name.
    auto first = line.find(',');
    auto last = line.rfind(',');
    if (first == std::string::npos || first == last) continue;
    GpuDevice d;
    try {
      d.index = std::stoi(trim(line.substr(0, first)));
    } catch (...) {
      continue;
    }
    d.name = trim(line.substr(first + 1, last - first - 1));
    std::string cc = trim(line.substr(last + 1));
    auto dot = cc.find('.');
    if (dot != std::string::npos) {
      try {
        d.cc_major = std::stoi(cc.substr(0, dot));
        d.cc_minor = std::stoi(cc.substr(dot + 1));
      } catch (...) {
        d.cc_major = d.cc_minor = 0;
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

GpuStatus quick_gpu_check() {
  GpuStatus s;
  if (const char* v = std::getenv(kAssumeNoGpuEnv); v && std::string(v) == "1") {
    s.method = "environment";
    s.reason = std::string("no GPU (") + kAssumeNoGpuEnv + "=1 is set)";
    return s;
  }
  s.method = "device files";
  if (!device_files_present()) {
    s.reason = "no NVIDIA GPU found: there are no /dev/nvidia* device files (this machine has no "
               "NVIDIA GPU, or its driver is not loaded)";
    return s;
  }
  s.available = true;
  return s;
}

GpuStatus probe_gpus(std::stop_token stop) {
  GpuStatus s = quick_gpu_check();
  if (!s.available) return s;
  s = {};
  ScratchDir dir("warplens-gpu-probe-");
  if (dir.ok()) {
    ProcessSpec spec;
    spec.argv = {"nvidia-smi", "--query-gpu=index,name,compute_cap", "--format=csv,noheader"};
    spec.stdout_path = dir.file("out.csv");
    spec.timeout = std::chrono::seconds(20);
    ProcessResult r = run_process(spec, stop);
    if (r.started && r.exit_code == 0) {
      std::ifstream in(spec.stdout_path);
      std::stringstream ss;
      ss << in.rdbuf();
      s.devices = parse_nvidia_smi_csv(ss.str());
      bool all_known = !s.devices.empty();
      for (const GpuDevice& d : s.devices) all_known = all_known && d.cc_major > 0;
      if (all_known) {
        s.method = "nvidia-smi";
        s.available = true;
        return s;
      }
    }
  }
  return probe_driver();
}

}  // namespace warplens::profile
