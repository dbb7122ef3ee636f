// cupti_sass_matrix: the reference SASS-metrics probe
// (/work/shared/reference/cupti-sass-probe.cu, which returned correct
// per-line numbers on the H200) with switches that move it, one difference
// at a time, towards what libwarplens_inject.so does. Run once per variant
// (a fresh process each: CUPTI state is per process); the first variant
// whose values turn to 0 names the difference that matters.
//
//   usage: cupti_sass_matrix FLAG[,FLAG...]     ("reference": no flag)
//
// Flags:
//   metrics15            warplens' 15 metrics instead of the probe's 5
//   structsize           records' structSize = sizeof (the probe leaves 0)
//   activity             Activity API on (CONCURRENT_KERNEL, MEMCPY) first
//   callbacks            also subscribe to the driver's launch callbacks
//   preload              load the module (launch a tiny kernel) before
//                        cuptiProfilerInitialize / SetConfig
//   preload_after_config load it after SetConfig, before Enable
//   brackets             Enable / sync / flush / Disable around each kernel
//                        (outside callbacks)
//   init_in_callback     Initialize + SetConfig in the first launch's ENTER
//                        callback (warplens' first H200 run)
//   enable_in_callback   Enable at each launch's ENTER callback; sync, flush
//                        and Disable at its EXIT (warplens' per-launch mode)
//   init_at_context      Initialize + SetConfig in the CONTEXT_CREATED
//                        resource callback (warplens' fix)
//   enable_at_context    also Enable there; flush once at the end
//
// Output: progress lines, then one line
//   matrix <flags>: records R instances K values V matched M nonzero Z mapped P
//     naive_sectors max/min A/B tile_wavefronts_max C   (expect 4194304/524288 and 4194304)
// Build: nvcc -O3 -lineinfo -arch=sm_90 cupti_sass_matrix.cu -lcupti -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#define N 2048

#define PARAMS(Type, var) CUpti_##Type##_Params var = {CUpti_##Type##_Params_STRUCT_SIZE}

static void report(const char* what, CUptiResult r) {
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  std::printf("  %s -> %d%s%s\n", what, int(r), r ? " " : "", r ? (msg ? msg : "?") : "");
}

__global__ void warm(int* p) {
  if (p) *p = 1;
}

__global__ void naive(float* o, const float* i) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  o[x * N + y] = i[y * N + x];
}

__global__ void tile(float* o, const float* i) {
  __shared__ float t[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  t[threadIdx.y][threadIdx.x] = i[y * N + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  o[y * N + x] = t[threadIdx.x][threadIdx.y];
}

__global__ void pad(float* o, const float* i) {
  __shared__ float t[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  t[threadIdx.y][threadIdx.x] = i[y * N + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  o[y * N + x] = t[threadIdx.x][threadIdx.y];
}

// ---------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------

static std::set<std::string> g_flags;
static bool flag(const char* f) { return g_flags.count(f) != 0; }

static const char* kProbeMetrics[] = {"inst_executed", "sectors_mem_global", "sectors_mem_global_ideal",
                                      "l1tex_pipe_lsu_wavefronts_mem_shared",
                                      "l1tex_pipe_lsu_wavefronts_mem_shared_ideal"};
static const char* kWarplensMetrics[] = {
    "inst_executed", "thread_inst_executed", "sectors_mem_global", "sectors_mem_global_ideal",
    "l1tex_pipe_lsu_wavefronts_mem_shared", "l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "branch_targets_threads_divergent", "branch_targets_threads_uniform", "inst_executed_op_global_ld",
    "inst_executed_op_global_st", "inst_executed_op_shared_ld", "inst_executed_op_shared_st",
    "inst_executed_op_local_ld", "inst_executed_op_local_st", "sectors_mem_local"};

static std::vector<std::string> g_cubins;
static std::map<unsigned long long, std::string> g_metric_names;  // id -> short name
static bool g_configured = false;

struct Value {
  std::string function;
  unsigned pc;
  unsigned long long id;
  unsigned long long value;
  int line;
};
static std::vector<Value> g_values;
static size_t g_records = 0, g_instances = 0;

// ---------------------------------------------------------------------------
// SASS steps
// ---------------------------------------------------------------------------

static void configure() {
  if (g_configured) return;
  g_configured = true;
  PARAMS(Profiler_Initialize, init);
  report("cuptiProfilerInitialize", cuptiProfilerInitialize(&init));
  PARAMS(Device_GetChipName, chip);
  report("cuptiDeviceGetChipName", cuptiDeviceGetChipName(&chip));
  std::vector<CUpti_SassMetrics_Config> configs;
  const char** names = flag("metrics15") ? kWarplensMetrics : kProbeMetrics;
  size_t count = flag("metrics15") ? sizeof kWarplensMetrics / sizeof *kWarplensMetrics
                                   : sizeof kProbeMetrics / sizeof *kProbeMetrics;
  for (size_t k = 0; k < count; ++k) {
    std::string full = std::string("smsp__sass_") + names[k];
    PARAMS(SassMetrics_GetProperties, prop);
    prop.pChipName = chip.pChipName;
    prop.pMetricName = full.c_str();
    if (cuptiSassMetricsGetProperties(&prop) != CUPTI_SUCCESS) {
      std::printf("  no metric %s\n", full.c_str());
      continue;
    }
    CUpti_SassMetrics_Config c{};
    c.metricId = prop.metric.metricId;
    c.outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    configs.push_back(c);
    g_metric_names[c.metricId] = names[k];
  }
  PARAMS(SassMetricsSetConfig, set);
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  report("cuptiSassMetricsSetConfig", cuptiSassMetricsSetConfig(&set));
}

static void enable(CUcontext ctx) {
  PARAMS(SassMetricsEnable, en);
  en.ctx = ctx;
  en.enableLazyPatching = 1;
  report("cuptiSassMetricsEnable", cuptiSassMetricsEnable(&en));
}

static int line_of(const char* function, unsigned pc) {
  CUpti_GetSassToSourceCorrelationParams corr = {CUpti_GetSassToSourceCorrelationParamsSize};
  corr.functionName = function;
  corr.pcOffset = pc;
  for (const std::string& cubin : g_cubins) {
    corr.cubin = cubin.data();
    corr.cubinSize = cubin.size();
    if (cuptiGetSassToSourceCorrelation(&corr) == CUPTI_SUCCESS) {
      std::free(corr.fileName);
      std::free(corr.dirName);
      return int(corr.lineNumber);
    }
  }
  return 0;
}

static void flush(CUcontext ctx, const char* when) {
  PARAMS(SassMetricsGetDataProperties, dp);
  dp.ctx = ctx;
  CUptiResult r = cuptiSassMetricsGetDataProperties(&dp);
  const size_t records = dp.numOfPatchedInstructionRecords;
  const size_t instances = dp.numOfInstances;
  std::printf("  flush %s: GetDataProperties %d, %zu records x %zu instances\n", when, int(r), records,
              instances);
  if (r != CUPTI_SUCCESS || records == 0 || instances == 0) return;
  std::vector<CUpti_SassMetrics_Data> data(records);
  std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances * 15);
  for (size_t i = 0; i < records; ++i) {
    data[i].pInstanceValues = &values[i * instances * 15];
    if (flag("structsize")) data[i].structSize = sizeof(CUpti_SassMetrics_Data);
  }
  PARAMS(SassMetricsFlushData, fl);
  fl.ctx = ctx;
  fl.numOfPatchedInstructionRecords = records;
  fl.numOfInstances = instances;
  fl.pMetricsData = data.data();
  report("cuptiSassMetricsFlushData", cuptiSassMetricsFlushData(&fl));
  g_records += records;
  g_instances = instances;
  for (CUpti_SassMetrics_Data& d : data) {
    std::string fn = d.functionName ? d.functionName : "";
    int line = d.functionName ? line_of(d.functionName, d.pcOffset) : 0;
    for (size_t k = 0; k < instances; ++k)
      g_values.push_back({fn, d.pcOffset, (unsigned long long)d.pInstanceValues[k].metricId,
                          (unsigned long long)d.pInstanceValues[k].value, line});
    std::free(const_cast<char*>(d.functionName));
  }
}

static void disable(CUcontext ctx) {
  PARAMS(SassMetricsDisable, dis);
  dis.ctx = ctx;
  CUptiResult r = cuptiSassMetricsDisable(&dis);
  std::printf("  cuptiSassMetricsDisable -> %d, %zu dropped\n", int(r), dis.numOfDroppedRecords);
}

// ---------------------------------------------------------------------------
// Callbacks and activity
// ---------------------------------------------------------------------------

static bool is_launch(CUpti_CallbackId id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
         id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
}

static void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto* res = static_cast<const CUpti_ResourceData*>(data);
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      const auto* m = static_cast<const CUpti_ModuleResourceData*>(res->resourceDescriptor);
      g_cubins.emplace_back(m->pCubin, m->cubinSize);
      std::printf("  module loaded (%zu bytes)\n", m->cubinSize);
    } else if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      CUcontext current = nullptr;
      cuCtxGetCurrent(&current);
      std::printf("  context created (%s current)\n", current == res->context ? "already" : "not yet");
      // As the injection library does: make it current for the setup.
      const bool push = current != res->context && cuCtxPushCurrent(res->context) == CUDA_SUCCESS;
      if (flag("init_at_context") || flag("enable_at_context")) configure();
      if (flag("enable_at_context")) enable(res->context);
      if (push) cuCtxPopCurrent(&current);
    }
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !is_launch(id)) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  const char* name = cb->symbolName ? cb->symbolName : "?";
  if (std::strstr(name, "warm")) return;  // the preload kernel is never measured
  if (cb->callbackSite == CUPTI_API_ENTER) {
    std::printf("  launch %s\n", name);
    if (flag("init_in_callback")) configure();
    if (flag("enable_in_callback")) enable(cb->context);
  } else if (flag("enable_in_callback")) {
    std::printf("  cuCtxSynchronize -> %d\n", int(cuCtxSynchronize()));
    flush(cb->context, name);
    disable(cb->context);
  }
}

static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max = 0;
}

static size_t g_kernel_activities = 0;
static void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++g_kernel_activities;
  std::free(buffer);
}

// ---------------------------------------------------------------------------

int main(int argc, char** argv) {
  std::string variant = argc > 1 ? argv[1] : "reference";
  std::stringstream ss(variant);
  for (std::string f; std::getline(ss, f, ',');)
    if (f != "reference") g_flags.insert(f);
  static const char* known[] = {"metrics15", "structsize", "activity", "callbacks", "preload",
                                "preload_after_config", "brackets", "init_in_callback",
                                "enable_in_callback", "init_at_context", "enable_at_context"};
  for (const std::string& f : g_flags)
    if (std::none_of(std::begin(known), std::end(known), [&](const char* k) { return f == k; })) {
      std::printf("unknown flag %s\n", f.c_str());
      return 2;
    }
  std::printf("variant %s\n", variant.c_str());

  if (flag("activity")) {
    report("cuptiActivityRegisterCallbacks", cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    report("cuptiActivityEnable(CONCURRENT_KERNEL)", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    report("cuptiActivityEnable(MEMCPY)", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
  }
  CUpti_SubscriberHandle sub;
  report("cuptiSubscribe", cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_callback, nullptr));
  report("cuptiEnableDomain(RESOURCE)", cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE));
  const bool launch_callbacks = flag("callbacks") || flag("init_in_callback") || flag("enable_in_callback");
  if (launch_callbacks) {
    // The launch callbacks the injection library enables, driver and runtime.
    for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                                CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz})
      cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
    for (CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000})
      cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  }

  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, sizeof(float) * N * N);
  cudaMalloc(&out, sizeof(float) * N * N);
  cudaMemset(in, 0, sizeof(float) * N * N);
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);

  if (flag("preload")) {
    warm<<<1, 1>>>(nullptr);
    std::printf("  preload -> %d\n", int(cudaDeviceSynchronize()));
  }
  const bool in_callbacks = flag("init_in_callback") || flag("init_at_context") || flag("enable_at_context");
  if (!in_callbacks) configure();
  if (flag("preload_after_config")) {
    warm<<<1, 1>>>(nullptr);
    std::printf("  preload -> %d\n", int(cudaDeviceSynchronize()));
  }
  const bool outer_range = !flag("enable_in_callback") && !flag("brackets") && !flag("enable_at_context");
  if (outer_range) enable(ctx);

  dim3 grid(N / 32, N / 32), block(32, 32);
  void (*kernels[])(float*, const float*) = {naive, tile, pad};
  const char* names[] = {"naive", "tile", "pad"};
  for (int k = 0; k < 3; ++k) {
    if (flag("brackets")) enable(ctx);
    kernels[k]<<<grid, block>>>(out, in);
    if (flag("brackets")) {
      std::printf("  sync -> %d\n", int(cudaDeviceSynchronize()));
      flush(ctx, names[k]);
      disable(ctx);
    }
  }
  std::printf("  sync -> %d\n", int(cudaDeviceSynchronize()));
  if (outer_range || flag("enable_at_context")) {
    flush(ctx, "end");
    disable(ctx);
  }
  if (flag("activity")) cuptiActivityFlushAll(1);

  // Summary.
  size_t matched = 0, nonzero = 0, mapped = 0;
  unsigned long long naive_max = 0, naive_min = ~0ull, tile_wf_max = 0;
  for (const Value& v : g_values) {
    auto m = g_metric_names.find(v.id);
    if (v.line > 0) ++mapped;
    if (m == g_metric_names.end()) continue;
    ++matched;
    if (v.value) ++nonzero;
    if (m->second == "sectors_mem_global" && v.function.find("naive") != std::string::npos) {
      naive_max = std::max(naive_max, v.value);
      naive_min = std::min(naive_min, v.value);
    }
    if (m->second == "l1tex_pipe_lsu_wavefronts_mem_shared" && v.function.find("tile") != std::string::npos)
      tile_wf_max = std::max(tile_wf_max, v.value);
  }
  if (naive_min == ~0ull) naive_min = 0;
  std::printf("matrix %s: records %zu instances %zu values %zu matched %zu nonzero %zu mapped %zu "
              "naive_sectors max/min %llu/%llu tile_wavefronts_max %llu%s\n",
              variant.c_str(), g_records, g_instances, g_values.size(), matched, nonzero, mapped, naive_max,
              naive_min, tile_wf_max,
              flag("activity") ? (" kernel_activities " + std::to_string(g_kernel_activities)).c_str() : "");
  // The first unmatched ids, if any (a metric id mix-up would show here).
  int shown = 0;
  for (const Value& v : g_values)
    if (!g_metric_names.count(v.id) && shown++ < 3)
      std::printf("  unmatched id %llu value %llu at %s+0x%x\n", v.id, v.value, v.function.c_str(), v.pc);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
