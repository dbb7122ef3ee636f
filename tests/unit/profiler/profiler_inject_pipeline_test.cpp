// The injection library's own code (profiling session, SASS collector,
// flush buffer, cubin store, recorder) run against a fake CUDA driver and
// CUPTI (fake_cuda_cupti.h): the callbacks a profiled program would trigger
// are fed in by hand, the fake hands back records shaped like CUPTI's, and
// the profile the session writes is read back. No GPU, no libcupti.
//
// What it pins down: the order of the CUPTI calls (the reference probe's:
// configuration before the module loads, Enable before the launch, flush
// only after a synchronisation), the way records become per-line data, and
// the collector's account of a flush that could not be attributed.
#include <doctest/doctest.h>

#include <cuda.h>
#include <cupti.h>

#include <fstream>
#include <sstream>

#include "fake_cuda_cupti.h"
#include "profiler/inject/profiling_session.h"
#include "profiler/injection_config.h"
#include "profiler/profile_data.h"
#include "profiler/scratch_dir.h"

using namespace warplens;
using namespace warplens::profile;
using fake_gpu::Instruction;

namespace {

const CUcontext kCtx = reinterpret_cast<CUcontext>(0x5e55);
const std::string kNaive = "_Z15transpose_naivePfPKf";
const std::string kCopy = "_Z4copyPfPKf";
constexpr std::uint64_t kWarps = 131072;

// The naive transpose as the probe measured it (reference section 9): the
// load at 0xc0 coalesced, the store at 0xf0 on the same line 8x, plus an
// address computation and an instruction without a line.
void define_kernels() {
  std::vector<Instruction> naive = {
      {0x10, 23, {{"inst_executed", kWarps}, {"thread_inst_executed", kWarps * 32}}},
      {0xc0, 25,
       {{"inst_executed", kWarps},
        {"thread_inst_executed", kWarps * 32},
        {"sectors_mem_global", 524288},
        {"sectors_mem_global_ideal", 524288},
        {"inst_executed_op_global_ld", kWarps}}},
      {0xf0, 25,
       {{"inst_executed", kWarps},
        {"thread_inst_executed", kWarps * 32},
        {"sectors_mem_global", 4194304},
        {"sectors_mem_global_ideal", 524288},
        {"inst_executed_op_global_st", kWarps}}},
      {0x100, 0, {{"inst_executed", kWarps}}},
  };
  fake_gpu::define_kernel(kNaive, naive);
  fake_gpu::define_kernel(kCopy, {{0x20, 40, {{"inst_executed", 100}}}});
}

struct Run {
  ScratchDir dir{"warplens-pipeline-test-"};
  std::unique_ptr<inject::ProfilingSession> session;
  std::uint32_t correlation = 0;
  char cubin[64] = "not really a cubin, but the fake only needs bytes";

  // The metrics pass by default (SASS metrics on, the Activity API off, as
  // the runner sets it); `metrics` / `activity` make the other passes.
  explicit Run(SassSetup setup, SassMode mode = SassMode::PerLaunch, int metric_launches = 1,
               bool metrics = true, bool activity = false) {
    fake_gpu::reset();
    define_kernels();
    InjectionConfig c;
    c.output_path = dir.file("profile-%p.json");
    c.sass_dump_path = dir.file("dump-%p.tsv");
    c.sass_setup = setup;
    c.settings.sass_mode = mode;
    c.settings.metric_launches = metric_launches;
    c.settings.metrics = metrics;
    c.activity = activity;
    c.pass = metrics ? "metrics" : "timing";
    session = std::make_unique<inject::ProfilingSession>(c);
    session->start_activity();  // as InitializeInjection does
  }

  void context_created() {
    CUpti_ResourceData d{};
    d.context = kCtx;
    session->on_resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, d);
  }

  void module_loaded() {
    fake_gpu::note("module loaded");
    CUpti_ModuleResourceData m{};
    m.moduleId = 1;
    m.cubinSize = sizeof cubin;
    m.pCubin = cubin;
    CUpti_ResourceData d{};
    d.context = kCtx;
    d.resourceDescriptor = &m;
    session->on_resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, d);
  }

  // A driver launch: the entry callback, the kernel running, the exit callback.
  void launch(const std::string& kernel) {
    CUresult rv = CUDA_SUCCESS;
    CUpti_CallbackData d{};
    d.symbolName = kernel.c_str();
    d.functionName = "cuLaunchKernel";
    d.context = kCtx;
    d.correlationId = ++correlation;
    d.functionReturnValue = &rv;
    inject::LaunchCallback cb;
    cb.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    cb.data = &d;
    d.callbackSite = cb.site = CUPTI_API_ENTER;
    session->on_launch(cb);
    fake_gpu::run(kernel, d.correlationId);
    d.callbackSite = cb.site = CUPTI_API_EXIT;
    session->on_launch(cb);
  }

  Profile finish() {
    session->finish();
    std::string error;
    auto p = load_profile(dir.file("profile-" + std::to_string(::getpid()) + ".json"), &error);
    REQUIRE_MESSAGE(p.has_value(), error);
    return *p;
  }

  std::string dump() {
    std::ifstream in(dir.file("dump-" + std::to_string(::getpid()) + ".tsv"));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

const LineMetrics* line_record(const Profile& p, const std::string& kernel, int line, LineKind kind) {
  for (const LineMetrics& l : p.lines)
    if (l.kernel == kernel && l.line == line && l.kind == kind) return &l;
  return nullptr;
}

// Positions in the call log, checked in one place so a failure names them.
void check_order(const std::vector<std::string>& events) {
  std::string log;
  for (const std::string& c : fake_gpu::calls()) log += c + "\n";
  CAPTURE(log);
  for (std::size_t i = 1; i < events.size(); ++i) {
    CAPTURE(events[i - 1]);
    CAPTURE(events[i]);
    REQUIRE(fake_gpu::first(events[i - 1]) >= 0);
    REQUIRE(fake_gpu::first(events[i]) >= 0);
    CHECK(fake_gpu::first(events[i - 1]) < fake_gpu::first(events[i]));
  }
}

}  // namespace

TEST_CASE("per-launch with the setup at context creation follows the probe's order") {
  Run r(SassSetup::Context);
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  r.launch(kNaive);  // the second launch runs unmeasured
  check_order({"cuptiProfilerInitialize", "cuptiSassMetricsSetConfig", "module loaded",
               "cuptiSassMetricsEnable", "run " + kNaive, "cuCtxSynchronize",
               "cuptiSassMetricsGetDataProperties", "cuptiSassMetricsFlushData",
               "cuptiSassMetricsDisable"});
  // Exactly one bracket: the second launch ran outside it.
  int enables = 0;
  for (const std::string& c : fake_gpu::calls()) enables += c == "cuptiSassMetricsEnable";
  CHECK(enables == 1);

  Profile p = r.finish();
  CHECK(p.collector.sass_setup == "context");
  CHECK(p.collector.sass_records == 13);
  CHECK(p.collector.sass_values == 13);
  CHECK(p.collector.sass_nonzero_values == 13);
  CHECK(p.collector.sass_unmatched_values == 0);
  // Only the PC without a line is worth a word.
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].code == "unmapped-instructions");
  const LineMetrics* store = line_record(p, kNaive, 25, LineKind::GlobalStore);
  const LineMetrics* load = line_record(p, kNaive, 25, LineKind::GlobalLoad);
  REQUIRE(store);
  REQUIRE(load);
  CHECK(store->file == "/src/tests/gpu/profiler_transpose.cu");
  CHECK(store->executed == kWarps);
  CHECK(store->sectors == 4194304);
  CHECK(store->sectors_ideal == 524288);
  CHECK(load->sectors == 524288);
  const Kernel* k = p.find_kernel(kNaive);
  REQUIRE(k);
  REQUIRE(k->counters);
  CHECK(k->counters->inst_executed == 4 * kWarps);
  CHECK(k->counters->unmapped_inst_executed == kWarps);  // the PC without a line
  CHECK(k->launch_count == 2);
}

TEST_CASE("the setup at the first launch (the first H200 run's order) configures after the module load") {
  Run r(SassSetup::Launch);
  r.context_created();
  CHECK(fake_gpu::first("cuptiSassMetricsSetConfig") == -1);
  r.module_loaded();
  r.launch(kNaive);
  check_order({"module loaded", "cuptiProfilerInitialize", "cuptiSassMetricsSetConfig",
               "cuptiSassMetricsEnable", "run " + kNaive, "cuCtxSynchronize", "cuptiSassMetricsFlushData"});
  Profile p = r.finish();
  CHECK(p.collector.sass_setup == "launch");
  CHECK(line_record(p, kNaive, 25, LineKind::GlobalStore));
}

TEST_CASE("whole-run enables at context creation, before any module loads, and flushes once") {
  Run r(SassSetup::Context, SassMode::WholeRun);
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  r.launch(kNaive);
  r.launch(kCopy);
  check_order({"cuptiSassMetricsSetConfig", "cuptiSassMetricsEnable", "module loaded", "run " + kNaive});
  CHECK(fake_gpu::first("cuptiSassMetricsFlushData") == -1);  // not before the end
  Profile p = r.finish();
  check_order({"run " + kCopy, "cuCtxSynchronize", "cuptiSassMetricsFlushData", "cuptiSassMetricsDisable"});
  const LineMetrics* store = line_record(p, kNaive, 25, LineKind::GlobalStore);
  REQUIRE(store);
  CHECK(store->executed == 2 * kWarps);  // both launches, summed
  CHECK(store->sectors == 2 * 4194304);
  const Kernel* naive = p.find_kernel(kNaive);
  REQUIRE(naive);
  CHECK(naive->metric_launches == 2);
  CHECK(line_record(p, kCopy, 40, LineKind::All));
}

TEST_CASE("records whose values are all 0: no lines, and the profile says what came back") {
  Run r(SassSetup::Context);
  fake_gpu::set_values(fake_gpu::Values::AllZero);
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  Profile p = r.finish();
  CHECK(p.lines.empty());
  CHECK(p.collector.sass_records == 13);
  CHECK(p.collector.sass_nonzero_values == 0);
  CHECK(p.has_warning("sass-all-zero"));
  CHECK_FALSE(p.has_warning("sass-unknown-metric"));
}

TEST_CASE("values with ids that were never configured are reported with the ids") {
  Run r(SassSetup::Context);
  fake_gpu::set_values(fake_gpu::Values::UnknownIds);
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  Profile p = r.finish();
  CHECK(p.lines.empty());
  CHECK(p.collector.sass_unmatched_values == 13);
  REQUIRE(p.has_warning("sass-unknown-metric"));
  for (const Warning& w : p.warnings)
    if (w.code == "sass-unknown-metric") CHECK(w.message.find("never configured (0)") != std::string::npos);
}

TEST_CASE("the dump holds every raw record of every flush, with the configured ids") {
  Run r(SassSetup::Context, SassMode::PerLaunch, /*metric_launches=*/2);
  fake_gpu::set_values(fake_gpu::Values::UnknownIds);  // dumped all the same
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  r.launch(kNaive);
  r.finish();
  const std::string dump = r.dump();
  CHECK(dump.rfind("# warplens-sass-dump/1\n", 0) == 0);
  CHECK(dump.find("# metric ") != std::string::npos);
  CHECK(dump.find("smsp__sass_inst_executed_op_global_st\n") != std::string::npos);
  CHECK(dump.find("# flush 1 " + kNaive + " records 13 instances 1\n") != std::string::npos);
  CHECK(dump.find("# flush 2 " + kNaive + " records 13 instances 1\n") != std::string::npos);
  // The store's sectors, raw: id 0 (unknown here), value, line.
  CHECK(dump.find("\t" + kNaive + "\t0xf0\t0\t0\t?\t4194304\t/src/tests/gpu/profiler_transpose.cu\t25\n") !=
        std::string::npos);
  std::size_t rows = 0;
  for (std::size_t at = dump.find("\n1\t"); at != std::string::npos; at = dump.find("\n1\t", at + 1)) ++rows;
  CHECK(rows == 13);
}

TEST_CASE("the metrics pass leaves the Activity API off and describes the device from the driver") {
  Run r(SassSetup::Context);
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  r.launch(kNaive);
  r.launch(kCopy);
  Profile p = r.finish();
  CHECK(fake_gpu::first("cuptiActivityEnable") == -1);
  CHECK(fake_gpu::first("cuptiActivityFlushAll") == -1);
  // The device, although its chip was learnt (at context creation) before
  // any launch: the second H200 run wrote a device with a chip and nothing else.
  REQUIRE(p.devices.size() == 1);
  CHECK(p.devices[0].name == "Fake H200");
  CHECK(p.devices[0].arch() == "sm_90");
  CHECK(p.devices[0].sm_count == 132);
  CHECK(p.devices[0].peak_bandwidth_gbs > 4000);
  CHECK(p.devices[0].chip == "GH100");
  // Kernels from the launch callbacks: counts, no launch records or durations.
  REQUIRE(p.kernels.size() == 2);
  const Kernel* naive = p.find_kernel(kNaive);
  const Kernel* copy = p.find_kernel(kCopy);
  REQUIRE(naive);
  REQUIRE(copy);
  CHECK(naive->launch_count == 2);
  CHECK(naive->metric_launches == 1);
  CHECK(naive->launches.empty());
  CHECK(naive->timing.launches == 0);
  CHECK(copy->launch_count == 1);
  CHECK(copy->metric_launches == 1);
  CHECK(line_record(p, kNaive, 25, LineKind::GlobalStore));
  CHECK_FALSE(p.has_warning("sass-with-activity"));
  CHECK(p.memcpy.host_to_device.count == 0);
}

TEST_CASE("the timing pass traces every launch and makes no SASS call") {
  Run r(SassSetup::Context, SassMode::PerLaunch, 1, /*metrics=*/false, /*activity=*/true);
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  r.launch(kNaive);
  Profile p = r.finish();
  CHECK(fake_gpu::first("cuptiActivityEnable") >= 0);
  for (const char* call : {"cuptiProfilerInitialize", "cuptiSassMetricsSetConfig", "cuptiSassMetricsEnable",
                           "cuptiSassMetricsFlushData"}) {
    CAPTURE(call);
    CHECK(fake_gpu::first(call) == -1);
  }
  REQUIRE(p.devices.size() == 1);
  CHECK(p.devices[0].name == "Fake H200");
  CHECK(p.devices[0].chip.empty());  // known only where SASS metrics were configured
  CHECK(p.lines.empty());
  const Kernel* naive = p.find_kernel(kNaive);
  REQUIRE(naive);
  CHECK(naive->launch_count == 2);
  CHECK(naive->metric_launches == 0);
  CHECK_FALSE(naive->counters.has_value());
  CHECK(naive->timing.launches == 2);
  CHECK(naive->timing.total_ns == 2 * 35000);
  REQUIRE(naive->launches.size() == 2);
  for (const Launch& l : naive->launches) {
    CHECK(l.pass == "timing");
    CHECK_FALSE(l.instrumented);
    CHECK(l.grid == Dim3{64, 64, 1});
    CHECK(l.block == Dim3{32, 32, 1});
  }
  CHECK(p.warnings.empty());
}

TEST_CASE("SASS metrics and the Activity API together only by hand, and with a warning") {
  Run r(SassSetup::Context, SassMode::PerLaunch, 1, /*metrics=*/true, /*activity=*/true);
  r.context_created();
  r.module_loaded();
  r.launch(kNaive);
  r.launch(kNaive);
  Profile p = r.finish();
  CHECK(p.has_warning("sass-with-activity"));
  const Kernel* naive = p.find_kernel(kNaive);
  REQUIRE(naive);
  // The measured launch is told apart by its correlation id and left out of the timing.
  REQUIRE(naive->launches.size() == 2);
  CHECK(naive->launches[0].instrumented);
  CHECK_FALSE(naive->launches[1].instrumented);
  CHECK(naive->timing.launches == 1);
  CHECK(naive->timing.total_ns == 35000);
}
