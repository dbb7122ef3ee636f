#include "fake_cuda_cupti.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

namespace fake_gpu {
namespace {

struct PendingValue {
  std::string function;
  std::uint32_t pc;
  std::string metric;
  std::uint64_t value;
};

struct State {
  std::mutex mu;
  std::vector<std::string> calls;
  std::map<std::string, std::vector<Instruction>> kernels;
  std::map<std::string, std::uint64_t> ids;  // configured: short metric name -> id
  bool configured = false;
  bool enabled = false;
  std::vector<PendingValue> pending;          // one record per (PC, metric)
  Values values = Values::Real;
  // Activity API
  CUpti_BuffersCallbackRequestFunc buffer_requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc buffer_completed = nullptr;
  bool tracing_kernels = false;
  std::vector<CUpti_ActivityKernel10> kernel_records;  // not yet handed over
  std::deque<std::string> names;                     // keeps the records' names alive
  std::uint64_t clock_ns = 1'000'000;
};

State& state() {
  static State s;
  return s;
}

void log_call(const std::string& what) { state().calls.push_back(what); }

// The metric id CUPTI would give: any stable 64-bit number works.
std::uint64_t id_of(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

const CUcontext kContext = reinterpret_cast<CUcontext>(0x5e55);

}  // namespace

void reset() {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.calls.clear();
  s.kernels.clear();
  s.ids.clear();
  s.configured = s.enabled = false;
  s.pending.clear();
  s.values = Values::Real;
  s.buffer_requested = nullptr;
  s.buffer_completed = nullptr;
  s.tracing_kernels = false;
  s.kernel_records.clear();
}

void define_kernel(const std::string& function, std::vector<Instruction> instructions) {
  std::lock_guard lock(state().mu);
  state().kernels[function] = std::move(instructions);
}

void set_values(Values v) {
  std::lock_guard lock(state().mu);
  state().values = v;
}

void run(const std::string& function, std::uint32_t correlation_id) {
  State& s = state();
  std::lock_guard lock(s.mu);
  log_call("run " + function);
  if (s.tracing_kernels) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = s.clock_ns;
    k.end = k.start + (s.enabled ? 350'000 : 35'000);
    s.clock_ns = k.end + 1000;
    k.gridX = k.gridY = 64;
    k.gridZ = 1;
    k.blockX = k.blockY = 32;
    k.blockZ = 1;
    k.registersPerThread = 16;
    k.streamId = 7;
    k.deviceId = 0;
    k.correlationId = correlation_id;
    s.names.push_back(function);
    k.name = s.names.back().c_str();
    s.kernel_records.push_back(k);
  }
  if (!s.enabled) return;
  for (const Instruction& in : s.kernels[function]) {
    for (const auto& [metric, value] : in.metrics) {
      if (!s.ids.count(metric)) continue;  // not configured: no record
      bool found = false;
      for (PendingValue& p : s.pending)
        if (p.function == function && p.pc == in.pc && p.metric == metric) {
          p.value += value;
          found = true;
        }
      if (!found) s.pending.push_back({function, in.pc, metric, value});
    }
  }
}

const std::vector<std::string>& calls() { return state().calls; }

void note(const std::string& event) {
  std::lock_guard lock(state().mu);
  log_call(event);
}

int first(const std::string& event) {
  const auto& c = state().calls;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i] == event) return int(i);
  return -1;
}

}  // namespace fake_gpu

using fake_gpu::state;

// ---------------------------------------------------------------------------
// CUPTI
// ---------------------------------------------------------------------------

extern "C" {

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "CUPTI_ERROR (fake)";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*,
                                       CUpti_SubscriberParams*) {
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId) {
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) {
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed) {
  std::lock_guard lock(state().mu);
  state().buffer_requested = requested;
  state().buffer_completed = completed;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::lock_guard lock(state().mu);
  fake_gpu::log_call("cuptiActivityEnable");
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) state().tracing_kernels = true;
  return CUPTI_SUCCESS;
}
// Hands every pending kernel record over in one buffer (records of one
// type, laid out back to back, as GetNextRecord below walks them).
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  std::vector<CUpti_ActivityKernel10> records;
  CUpti_BuffersCallbackRequestFunc requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed = nullptr;
  {
    std::lock_guard lock(state().mu);
    fake_gpu::log_call("cuptiActivityFlushAll");
    records.swap(state().kernel_records);
    requested = state().buffer_requested;
    completed = state().buffer_completed;
  }
  if (records.empty() || !requested || !completed) return CUPTI_SUCCESS;
  uint8_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  requested(&buffer, &size, &max_records);
  const size_t bytes = records.size() * sizeof(CUpti_ActivityKernel10);
  if (!buffer || size < bytes) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memcpy(buffer, records.data(), bytes);
  completed(nullptr, 0, buffer, size, bytes);  // the library frees the buffer
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  uint8_t* next = *record ? reinterpret_cast<uint8_t*>(*record) + sizeof(CUpti_ActivityKernel10) : buffer;
  if (next + sizeof(CUpti_ActivityKernel10) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext, uint32_t* deviceId) {
  *deviceId = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) {
  std::lock_guard lock(state().mu);
  fake_gpu::log_call("cuptiProfilerInitialize");
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params* p) {
  p->isSupported = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSassMetricsGetProperties(CUpti_SassMetrics_GetProperties_Params* p) {
  if (!p->pMetricName || std::strncmp(p->pMetricName, "smsp__sass_", 11) != 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->metric.metricId = fake_gpu::id_of(p->pMetricName);
  p->metric.pMetricName = p->pMetricName;
  p->metric.pMetricDescription = "fake";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSassMetricsSetConfig(CUpti_SassMetricsSetConfig_Params* p) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  fake_gpu::log_call("cuptiSassMetricsSetConfig");
  if (s.configured) return CUPTI_ERROR_INVALID_OPERATION;
  s.configured = true;
  // Names by id: every metric warplens may ask for.
  for (std::size_t i = 0; i < p->numOfMetricConfig; ++i)
    for (const char* name :
         {"inst_executed", "thread_inst_executed", "sectors_mem_global", "sectors_mem_global_ideal",
          "l1tex_pipe_lsu_wavefronts_mem_shared", "l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
          "branch_targets_threads_divergent", "branch_targets_threads_uniform",
          "inst_executed_op_global_ld", "inst_executed_op_global_st", "inst_executed_op_shared_ld",
          "inst_executed_op_shared_st", "inst_executed_op_local_ld", "inst_executed_op_local_st",
          "sectors_mem_local"})
      if (fake_gpu::id_of(std::string("smsp__sass_") + name) == p->pConfigs[i].metricId)
        s.ids[name] = p->pConfigs[i].metricId;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSassMetricsEnable(CUpti_SassMetricsEnable_Params*) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  fake_gpu::log_call("cuptiSassMetricsEnable");
  if (!s.configured || s.enabled) return CUPTI_ERROR_INVALID_OPERATION;
  s.enabled = true;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSassMetricsDisable(CUpti_SassMetricsDisable_Params* p) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  fake_gpu::log_call("cuptiSassMetricsDisable");
  if (!s.enabled) return CUPTI_ERROR_INVALID_OPERATION;
  s.enabled = false;
  p->numOfDroppedRecords = s.pending.size();
  s.pending.clear();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSassMetricsGetDataProperties(CUpti_SassMetricsGetDataProperties_Params* p) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  fake_gpu::log_call("cuptiSassMetricsGetDataProperties");
  if (!s.enabled) return CUPTI_ERROR_INVALID_OPERATION;
  p->numOfPatchedInstructionRecords = s.pending.size();
  p->numOfInstances = 1;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSassMetricsFlushData(CUpti_SassMetricsFlushData_Params* p) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  fake_gpu::log_call("cuptiSassMetricsFlushData");
  if (!s.enabled) return CUPTI_ERROR_INVALID_OPERATION;
  if (p->numOfPatchedInstructionRecords != s.pending.size() || p->numOfInstances != 1)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (std::size_t i = 0; i < s.pending.size(); ++i) {
    const auto& v = s.pending[i];
    CUpti_SassMetrics_Data& d = p->pMetricsData[i];
    d.functionName = strdup(v.function.c_str());
    d.pcOffset = v.pc;
    d.cubinCrc = 0xc0ffee;
    d.functionIndex = 0;
    d.pInstanceValues[0].metricId = s.values == fake_gpu::Values::UnknownIds ? 0 : s.ids[v.metric];
    d.pInstanceValues[0].value = s.values == fake_gpu::Values::AllZero ? 0 : v.value;
  }
  s.pending.clear();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetSassToSourceCorrelation(CUpti_GetSassToSourceCorrelationParams* p) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  if (!p->cubin || p->cubinSize == 0 || !p->functionName) return CUPTI_ERROR_INVALID_PARAMETER;
  auto k = s.kernels.find(p->functionName);
  if (k == s.kernels.end()) return CUPTI_ERROR_UNKNOWN;
  for (const fake_gpu::Instruction& in : k->second) {
    if (in.pc != p->pcOffset) continue;
    if (in.line == 0) return CUPTI_ERROR_UNKNOWN;
    p->lineNumber = uint32_t(in.line);
    p->fileName = strdup("profiler_transpose.cu");
    p->dirName = strdup("/src/tests/gpu");
    return CUPTI_SUCCESS;
  }
  return CUPTI_ERROR_UNKNOWN;
}

// ---------------------------------------------------------------------------
// CUDA driver
// ---------------------------------------------------------------------------

CUresult CUDAAPI cuCtxGetCurrent(CUcontext* ctx) {
  *ctx = fake_gpu::kContext;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxPushCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxPopCurrent(CUcontext* ctx) {
  *ctx = fake_gpu::kContext;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSynchronize() {
  std::lock_guard lock(state().mu);
  fake_gpu::log_call("cuCtxSynchronize");
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorName(CUresult, const char** name) {
  *name = "CUDA_ERROR (fake)";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice) {
  std::strncpy(name, "Fake H200", size_t(len));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 3201000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 6016; break;
    default: *v = 0; break;
  }
  return CUDA_SUCCESS;
}

}  // extern "C"
