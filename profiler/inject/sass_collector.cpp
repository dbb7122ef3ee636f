#include "profiler/inject/sass_collector.h"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdlib>

#include "profiler/demangle.h"
#include "profiler/inject/cubin_store.h"
#include "profiler/inject/cupti_status.h"
#include "profiler/inject/inject_log.h"
#include "profiler/inject/recorder.h"

namespace warplens::inject {
namespace {

// CUPTI parameter struct with its structSize filled in.
#define WARPLENS_CUPTI_PARAMS(Type, var) CUpti_##Type##_Params var = {CUpti_##Type##_Params_STRUCT_SIZE}

const char* support_level(CUpti_Profiler_Support_Level l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    default: return "unknown";
  }
}

// Asked only after a refusal, to say why. (Calling it before SetConfig is
// part of a sequence that was once measured to yield no records, so the
// working order stays untouched.)
std::string device_support_details(std::uint32_t device) {
  WARPLENS_CUPTI_PARAMS(Profiler_DeviceSupported, p);
  p.cuDevice = CUdevice(device);
  p.api = CUPTI_PROFILER_SASS_METRICS;
  if (cuptiProfilerDeviceSupported(&p) != CUPTI_SUCCESS) return {};
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return {};
  std::string s = " Device check: architecture " + std::string(support_level(p.architecture)) +
                  ", vGPU " + support_level(p.vGpu) + ", SLI " + support_level(p.sli) +
                  ", confidential computing " + support_level(p.confidentialCompute) + ", CMP " +
                  support_level(p.cmp) + ", WSL " + support_level(p.wsl) + ".";
  return s;
}

}  // namespace

SassCollector::SassCollector(Recorder& recorder, CubinStore& cubins)
    : recorder_(recorder), cubins_(cubins) {}

bool SassCollector::available() const {
  std::lock_guard lock(mu_);
  return !refused_;
}

void SassCollector::refuse(CUptiResult r, const std::string& step, std::uint32_t device) {
  refused_ = true;
  Refusal why = explain_sass_refusal(r, step);
  if (profiler_initialized_) why.message += device_support_details(device);
  recorder_.warn(why.code, why.message);
}

bool SassCollector::configure(CUcontext ctx, std::uint32_t* device_index) {
  if (!profiler_initialized_) {
    log_detail("cuptiProfilerInitialize");
    WARPLENS_CUPTI_PARAMS(Profiler_Initialize, init);
    CUptiResult r = cuptiProfilerInitialize(&init);
    if (r != CUPTI_SUCCESS) {
      refuse(r, "cuptiProfilerInitialize", 0);
      return false;
    }
    profiler_initialized_ = true;
  }
  std::uint32_t device = 0;
  if (CUptiResult r = cuptiGetDeviceId(ctx, &device); r != CUPTI_SUCCESS) {
    refuse(r, "cuptiGetDeviceId", 0);
    return false;
  }
  *device_index = device;
  if (configured_devices_.count(device)) return true;

  WARPLENS_CUPTI_PARAMS(Device_GetChipName, chip);
  chip.deviceIndex = device;
  if (CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
    refuse(r, "cuptiDeviceGetChipName", device);
    return false;
  }
  recorder_.set_chip(int(device), chip.pChipName ? chip.pChipName : "");

  std::vector<CUpti_SassMetrics_Config> configs;
  std::vector<std::string> names;
  for (const profile::SassMetricInfo& info : profile::kSassMetrics) {
    std::string full = std::string(profile::kSassMetricPrefix) + std::string(info.name);
    CUpti_SassMetrics_GetProperties_Params prop = {CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    prop.pChipName = chip.pChipName;
    prop.pMetricName = full.c_str();
    CUptiResult r = cuptiSassMetricsGetProperties(&prop);
    if (r != CUPTI_SUCCESS) {
      if (info.metric == profile::SassMetric::InstExecuted) {
        refuse(r, "cuptiSassMetricsGetProperties(" + full + ")", device);
        return false;
      }
      recorder_.warn("sass-metric-missing", full + " is not available on " +
                                                std::string(chip.pChipName ? chip.pChipName : "?") +
                                                " (" + describe(r) + "); its columns stay 0");
      continue;
    }
    CUpti_SassMetrics_Config c{};
    c.metricId = prop.metric.metricId;
    c.outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;  // one value per record
    configs.push_back(c);
    metric_of_id_[c.metricId] = info.metric;
    names.push_back(full);
  }

  log_detail("cuptiSassMetricsSetConfig: %zu metrics on device %u", configs.size(), device);
  CUpti_SassMetricsSetConfig_Params set = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = device;
  if (CUptiResult r = cuptiSassMetricsSetConfig(&set); r != CUPTI_SUCCESS) {
    refuse(r, "cuptiSassMetricsSetConfig", device);
    return false;
  }
  configured_devices_.insert(device);
  if (metric_names_.empty()) metric_names_ = std::move(names);
  log_detail("SASS metrics configured on device %u (%s), %zu metrics", device,
             chip.pChipName ? chip.pChipName : "?", configs.size());
  return true;
}

bool SassCollector::enable(CUcontext ctx) {
  std::uint32_t device = 0;
  if (!configure(ctx, &device)) return false;
  CUpti_SassMetricsEnable_Params en = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  // Lazy patching: a kernel is instrumented at its first launch inside the
  // enabled range, not every function of every module at Enable.
  en.enableLazyPatching = 1;
  log_detail("cuptiSassMetricsEnable(ctx %p)", static_cast<void*>(ctx));
  if (CUptiResult r = cuptiSassMetricsEnable(&en); r != CUPTI_SUCCESS) {
    refuse(r, "cuptiSassMetricsEnable", device);
    return false;
  }
  return true;
}

void SassCollector::flush(CUcontext ctx, const std::string& kernel, bool expect_records) {
  CUpti_SassMetricsGetDataProperties_Params props = {
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  props.ctx = ctx;
  CUptiResult r = cuptiSassMetricsGetDataProperties(&props);
  // Read the sizes only after the call returned (see the reference's pitfall).
  const std::size_t num_records = props.numOfPatchedInstructionRecords;
  const std::size_t num_instances = props.numOfInstances;
  if (r != CUPTI_SUCCESS) {
    recorder_.warn("sass-flush", "cuptiSassMetricsGetDataProperties returned " + describe(r) +
                                     "; per-line data of " + profile::demangle(kernel) + " was lost");
    return;
  }
  log_detail("SASS flush after %s: %zu records x %zu instances", kernel.c_str(), num_records,
             num_instances);
  if (num_records == 0 || num_instances == 0) {
    if (expect_records) empty_flush_kernels_.insert(kernel);
    return;
  }
  std::vector<CUpti_SassMetrics_Data> data(num_records);  // value-initialised, as in the probe
  std::vector<CUpti_SassMetrics_InstanceValue> values(num_records * num_instances);
  for (std::size_t i = 0; i < num_records; ++i) data[i].pInstanceValues = &values[i * num_instances];

  CUpti_SassMetricsFlushData_Params fl = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
  fl.ctx = ctx;
  fl.numOfPatchedInstructionRecords = num_records;
  fl.numOfInstances = num_instances;
  fl.pMetricsData = data.data();
  r = cuptiSassMetricsFlushData(&fl);
  if (r != CUPTI_SUCCESS) {
    recorder_.warn("sass-flush", "cuptiSassMetricsFlushData returned " + describe(r) +
                                     "; per-line data of " + profile::demangle(kernel) + " was lost");
    return;
  }
  for (CUpti_SassMetrics_Data& rec : data) {
    if (!rec.functionName) continue;
    std::string function = rec.functionName;
    // Values are totals over the grid; with GPU granularity there is one
    // instance, otherwise one per SM / SM sub-partition: sum them.
    std::map<profile::SassMetric, std::uint64_t> sums;
    for (std::size_t k = 0; k < num_instances; ++k) {
      const CUpti_SassMetrics_InstanceValue& v = rec.pInstanceValues[k];
      auto it = metric_of_id_.find(v.metricId);
      if (it != metric_of_id_.end()) sums[it->second] += v.value;
    }
    for (const auto& [metric, value] : sums) aggregator_.add(function, rec.pcOffset, metric, value);
    if (!aggregator_.has_location(function, rec.pcOffset)) {
      SourceLine where = cubins_.resolve(function, rec.pcOffset);
      aggregator_.set_location(function, rec.pcOffset, std::move(where.file), where.line);
    }
    // CUPTI allocated the name; the caller frees it (as NVIDIA's sample does).
    std::free(const_cast<char*>(rec.functionName));
    rec.functionName = nullptr;
  }
  records_ += num_records;
}

void SassCollector::disable(CUcontext ctx) {
  CUpti_SassMetricsDisable_Params dis = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
  dis.ctx = ctx;
  CUptiResult r = cuptiSassMetricsDisable(&dis);
  log_detail("cuptiSassMetricsDisable: %d, %zu dropped", int(r), dis.numOfDroppedRecords);
  if (r != CUPTI_SUCCESS) {
    recorder_.warn("sass-disable", "cuptiSassMetricsDisable returned " + describe(r));
  } else if (dis.numOfDroppedRecords > 0) {
    recorder_.warn("sass-dropped", std::to_string(dis.numOfDroppedRecords) +
                                       " SASS records were collected but not flushed");
  }
}

bool SassCollector::try_acquire() { return slot_.try_lock(); }

void SassCollector::release() { slot_.unlock(); }

bool SassCollector::begin(CUcontext ctx) {
  std::lock_guard lock(mu_);
  if (refused_ || whole_run_enabled_) return false;
  return enable(ctx);
}

void SassCollector::end(CUcontext ctx, const std::string& kernel, bool launched) {
  // The flush must follow the kernel's completion: never flush while work
  // that is being measured may still run.
  log_detail("cuCtxSynchronize after %s", kernel.c_str());
  CUresult sync = cuCtxSynchronize();
  {
    std::lock_guard lock(mu_);
    if (sync != CUDA_SUCCESS) {
      const char* name = nullptr;
      cuGetErrorName(sync, &name);
      recorder_.warn("sass-sync", "cuCtxSynchronize after " + profile::demangle(kernel) + " returned " +
                                      std::string(name ? name : "an error") +
                                      "; its per-line data may be incomplete");
    }
    flush(ctx, kernel, launched);
    disable(ctx);
  }
  release();
}

bool SassCollector::enable_whole_run(CUcontext ctx) {
  std::lock_guard lock(mu_);
  if (refused_) return false;
  if (whole_run_enabled_) return true;
  if (!enable(ctx)) return false;
  whole_run_enabled_ = true;
  whole_run_ctx_ = ctx;
  return true;
}

bool SassCollector::whole_run_enabled() const {
  std::lock_guard lock(mu_);
  return whole_run_enabled_;
}

CUcontext SassCollector::whole_run_context() const {
  std::lock_guard lock(mu_);
  return whole_run_ctx_;
}

void SassCollector::finish_whole_run(CUcontext ctx) {
  std::lock_guard lock(mu_);
  if (!whole_run_enabled_ || ctx != whole_run_ctx_) return;
  whole_run_enabled_ = false;
  // The exit handler may run on a thread where the context is not current.
  bool pushed = cuCtxPushCurrent(ctx) == CUDA_SUCCESS;
  if (cuCtxSynchronize() != CUDA_SUCCESS)
    recorder_.warn("sass-sync", "could not synchronise before the final SASS flush");
  flush(ctx, "(whole run)", true);
  disable(ctx);
  if (pushed) {
    CUcontext popped = nullptr;
    cuCtxPopCurrent(&popped);
  }
}

std::size_t SassCollector::records_flushed() const {
  std::lock_guard lock(mu_);
  return records_;
}

std::vector<std::string> SassCollector::configured_metrics() const {
  std::lock_guard lock(mu_);
  return metric_names_;
}

void SassCollector::contribute(profile::Profile& p) const {
  std::lock_guard lock(mu_);
  profile::LaunchPolicy& policy = recorder_.policy();
  for (profile::LineMetrics& l : aggregator_.lines())
    if (policy.selected(l.kernel)) p.lines.push_back(std::move(l));

  for (auto& [mangled, counters] : aggregator_.kernel_counters()) {
    if (!policy.selected(mangled)) continue;
    profile::Kernel* k = p.find_kernel(mangled);
    if (!k) {
      // Measured, but its activity record never arrived (dropped buffers).
      profile::Kernel fresh;
      fresh.mangled = mangled;
      fresh.name = profile::demangle(mangled);
      fresh.launch_count = policy.launches(mangled);
      p.kernels.push_back(std::move(fresh));
      k = &p.kernels.back();
    }
    k->counters = counters;
    if (counters.inst_executed > 0 && counters.unmapped_inst_executed == counters.inst_executed) {
      p.add_warning("no-lineinfo",
                    k->name + ": no source lines in the cubin, so its metrics cannot be shown "
                              "per line. Compile with -lineinfo (nvcc) to get them.");
    } else if (counters.unmapped_inst_executed * 100 > counters.inst_executed) {
      p.add_warning("unmapped-instructions",
                    k->name + ": " +
                        std::to_string(counters.unmapped_inst_executed * 100 / counters.inst_executed) +
                        "% of its executed instructions have no source line");
    }
  }
  for (const std::string& kernel : empty_flush_kernels_)
    p.add_warning("sass-no-records", "CUPTI returned no SASS records after measuring " +
                                         profile::demangle(kernel) +
                                         "; its per-line metrics are missing");
  if (cubins_.capped())
    p.add_warning("cubins-capped", "the loaded modules exceeded the capture limit; PCs of "
                                   "later modules could not be mapped to source lines");
  p.collector.metrics = metric_names_;
  p.collector.sass_records = records_;
  p.collector.cubins = cubins_.count();
}

}  // namespace warplens::inject
