// low-occupancy / register-spill / resource-usage findings, the code lens,
// the hover and the __launch_bounds__ quick fix, on an annotated snippet of
// tests/fixtures/ptxas/kernels.cu with the kernel model built by hand and
// ptxas' recorded CUDA 13 sm_90 output as the resource usage.
#include <doctest/doctest.h>

#include "analysis/launch_bounds_fix.h"
#include "analysis/occupancy_findings.h"
#include "occupancy_test_support.h"

using namespace warplens;
using namespace warplens::test;

namespace {

const char* kSnippet = R"cu($t^__global__ void $t_name[[transpose]](const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
}
namespace ns {
template <typename T, int BS>
$s^__global__ void $s_name[[scale]](T* __restrict__ out, const T* in, T a, int n) {}
}
__global__ void $h_lb[[__launch_bounds__(256, 2)]] $h_name[[heavy]](const float* in, float* out, int n) {}
$a^__global__ void $a_name[[accumulate]](const float4* __restrict__ in, float* out, int n) {}
void host(const float* in, float* out, int n) {
  $l1[[transpose<<<grid, dim3(32, 8)>>>(in, out, n)]];
  $l2[[heavy<<<grid, $l2b[[256]]>>>(in, out, n)]];
}
)cu";

const std::string kFile = "/src/kernels.cu";

struct Snippet {
  Annotated a = annotate(kSnippet);
  KernelModel model;
  AnalysisOptions options;
  GpuSelection gpu;
  ResourceUsageResult resources;

  Snippet() {
    model.file = kFile;
    auto kernel = [&](const std::string& name, std::vector<std::string> params, const std::string& prefix) {
      Function f = make_kernel(name, std::move(params));
      f.name_range = a.ranges.at(prefix + "_name");
      f.range = {f.name_range.start, f.name_range.end};
      if (a.points.count(prefix)) f.declaration_start = {a.points.at(prefix), a.points.at(prefix)};
      return f;
    };
    model.functions.push_back(kernel("transpose", {"const float *", "float *", "int"}, "t"));
    Function scale = kernel("scale", {"T *__restrict__", "const T *", "T", "int"}, "s");
    scale.is_template = true;
    model.functions.push_back(scale);
    Function heavy = kernel("heavy", {"const float *", "float *", "int"}, "h");
    heavy.launch_bounds = LaunchBounds{256, 2, "__launch_bounds__(256, 2)", a.ranges.at("h_lb")};
    model.functions.push_back(heavy);
    model.functions.push_back(kernel("accumulate", {"const float4 *__restrict__", "float *", "int"}, "a"));

    LaunchSite l1 = make_launch(model.functions[0], std::array<std::int64_t, 3>{32, 8, 1}, "dim3(32, 8)");
    l1.range = a.ranges.at("l1");
    LaunchSite l2 = make_launch(model.functions[2], std::array<std::int64_t, 3>{256, 1, 1}, "256");
    l2.range = a.ranges.at("l2");
    l2.block.range = a.ranges.at("l2b");
    model.launches = {l1, l2};

    gpu = select_gpu("sm_90", /*probe_local_gpu=*/false);
    resources = recorded("ptxas/cuda13/kernels_sm_90.txt");
  }

  static ResourceUsageResult recorded(const std::string& fixture, ResourceUsageStatus status = ResourceUsageStatus::Ok) {
    ResourceUsageResult r;
    r.status = status;
    r.requested_arch = r.compiled_arch = "sm_90";
    r.cuda_version = "13.0";
    r.raw_output = read_fixture(fixture);
    ToolOutput parsed = parse_nvcc_output(r.raw_output);
    r.functions = parsed.functions;
    r.diagnostics = parsed.diagnostics;
    r.command = "nvcc -cubin -arch=sm_90 -Xptxas -v ... " + kFile;
    return r;
  }

  OccupancyAnalysis run() { return analyze_occupancy(kFile, model, resources, gpu, options); }
};

const KernelResourceReport& report(const OccupancyAnalysis& a, const std::string& name) {
  for (const auto& k : a.kernels)
    if (k.name == name) return k;
  FAIL("no report for " << name);
  throw 0;
}

std::vector<const Finding*> findings(const OccupancyAnalysis& a, const std::string& code,
                                     const std::string& kernel_name = "") {
  std::vector<const Finding*> out;
  for (const auto& f : a.findings)
    if (f.code == code && (kernel_name.empty() || f.message.find("`" + kernel_name + "`") != std::string::npos))
      out.push_back(&f);
  return out;
}

}  // namespace

TEST_CASE("heavy: register-limited, low occupancy with lever and fix; spills") {
  if (!occupancy_calculator_available()) return;
  Snippet s;
  auto a = s.run();
  const auto& h = report(a, "heavy");
  REQUIRE(h.resources_known);
  CHECK(h.registers == 128);
  CHECK(h.block_source == BlockShapeSource::LaunchSite);
  CHECK(h.occupancy == doctest::Approx(0.25));
  CHECK(h.limiter == "registers");
  CHECK(h.code_lens == "128 regs · 25% occupancy (registers) @ 256 threads · 272 B spilled");

  auto low = findings(a, codes::kLowOccupancy, "heavy");
  REQUIRE(low.size() == 1);
  const Finding& f = *low[0];
  CHECK(f.severity == Severity::Warning);
  CHECK(f.location.range == s.a.ranges.at("h_name"));
  CHECK(f.kernel == s.model.functions[2].key);
  CHECK(f.message ==
        "low occupancy: `heavy` reaches 25% (16 of 64 warps per SM) on sm_90 with 256-thread blocks (launch at "
        "line 12: <<<grid, 256>>>) — registers: 128 per thread allow 2 blocks of 256 threads (25%); at ≤ 80 "
        "registers, 3 blocks (37.5%); at ≤ 64, 4 blocks (50%) — try `__launch_bounds__(256, 4)`");
  CHECK(std::get<std::string>(*f.data.get("limiter")) == "registers");
  CHECK(std::get<std::int64_t>(*f.data.get("blocks_per_sm")) == 2);
  CHECK(std::get<std::string>(*f.data.get("block_source")) == "launch");
  CHECK(std::get<double>(*f.data.get("occupancy")) == doctest::Approx(0.25));
  REQUIRE(f.related.size() == 1);
  CHECK(f.related[0].location.range == s.a.ranges.at("l2"));
  // The numbers are in the kernel's hover (once); the finding only says why it matters.
  CHECK(h.hover_markdown.find("By block size: 64 → 25% · 128 → 25% · **256 → 25%** · 512 → over `__launch_bounds__`") !=
        std::string::npos);
  CHECK(f.explanation_markdown.find("| registers |") == std::string::npos);

  REQUIRE(f.fixes.size() == 1);
  CHECK(f.fixes[0].title.find("Change to `__launch_bounds__(256, 4)`") == 0);
  std::string fixed = apply_fix(s.a.code, f.fixes[0]);
  CHECK(fixed.find("__global__ void __launch_bounds__(256, 4) heavy(const float* in") != std::string::npos);
  CHECK(fixed.size() == s.a.code.size());

  auto spill = findings(a, codes::kRegisterSpill, "heavy");
  REQUIRE(spill.size() == 1);
  CHECK(spill[0]->message ==
        "`heavy` spills registers to local memory: 272 B stored and 272 B loaded per thread, at 128 registers on "
        "sm_90 (`__launch_bounds__(256, 2)` limits the registers to fit 2 blocks per SM)");
  CHECK(std::get<std::int64_t>(*spill[0]->data.get("spill_store_bytes")) == 272);
}

TEST_CASE("transpose: full occupancy, no findings, 2-D block in the lens") {
  if (!occupancy_calculator_available()) return;
  Snippet s;
  auto a = s.run();
  const auto& t = report(a, "transpose");
  CHECK(t.occupancy == doctest::Approx(1.0));
  // No limiter at 100%: nothing keeps it lower, and "(warps)" would read like a problem.
  CHECK(t.code_lens == "14 regs · 4.1 KB smem · 100% occupancy @ 32×8 (256) threads");
  CHECK(t.limiter == "none");
  CHECK(t.hover_markdown.find("limited by") == std::string::npos);
  CHECK(t.hover_markdown.find("**Theoretical occupancy 100%**: 8 blocks × 8 warps = 64 of 64 warps per SM.") !=
        std::string::npos);
  CHECK(findings(a, codes::kLowOccupancy, "transpose").empty());
  CHECK(findings(a, codes::kRegisterSpill, "transpose").empty());
  CHECK(t.hover_markdown.find("Block 32×8 (256) threads from launch at line 11: <<<grid, dim3(32, 8)>>>") !=
        std::string::npos);
}

TEST_CASE("a guessed block size warns only when no block size would pass") {
  if (!occupancy_calculator_available()) return;
  // accumulate: 54 registers -> 1792 per warp -> 36 warps per SM at most,
  // i.e. 56.25% whatever the block size; no launch in the file.
  Snippet s;
  s.options.occupancy_threshold = 0.6;
  auto a = s.run();
  const auto& r = report(a, "accumulate");
  CHECK(r.block_source == BlockShapeSource::BuiltinDefault);
  CHECK(r.code_lens == "54 regs · 50% occupancy (registers) @ 256 threads (assumed)");
  auto low = findings(a, codes::kLowOccupancy, "accumulate");
  REQUIRE(low.size() == 1);
  CHECK(low[0]->severity == Severity::Warning);  // every size is below 60%
  // Insertion fix: no __launch_bounds__ yet.
  REQUIRE(low[0]->fixes.size() == 1);
  std::string fixed = apply_fix(s.a.code, low[0]->fixes[0]);
  CHECK(fixed.find("__launch_bounds__(256, 5) __global__ void accumulate(") != std::string::npos);

  s.options.occupancy_threshold = 0.55;  // 64-thread blocks would reach 56.25%
  a = s.run();
  low = findings(a, codes::kLowOccupancy, "accumulate");
  REQUIRE(low.size() == 1);
  CHECK(low[0]->severity == Severity::Information);
  CHECK(low[0]->message.find("(assumed: no launch, __launch_bounds__ or setting gives one)") != std::string::npos);

  s.options.kernel_blocks["accumulate"] = {256, 1, 1};  // the user says so: a warning again
  a = s.run();
  low = findings(a, codes::kLowOccupancy, "accumulate");
  REQUIRE(low.size() == 1);
  CHECK(low[0]->severity == Severity::Warning);
}

TEST_CASE("templates: the pattern reports its worst instantiation and lists the others") {
  if (!occupancy_calculator_available()) return;
  Snippet s;
  auto a = s.run();
  const auto& r = report(a, "scale");
  REQUIRE(r.resources_known);
  CHECK(r.instance == "void ns::scale<double, 128>(double*, double const*, double, int)");  // 12 > 10 registers
  REQUIRE(r.other_instances.size() == 1);
  CHECK(r.other_instances[0] == "void ns::scale<float, 256>(float*, float const*, float, int): 10 registers");
}

TEST_CASE("a launch over __launch_bounds__ cannot run: cannot-launch on the kernel and the launch, with fixes") {
  if (!occupancy_calculator_available()) return;
  Snippet s;
  s.model.launches[1].block.spelling = "512";
  s.model.launches[1].block.value = std::array<std::int64_t, 3>{512, 1, 1};  // heavy is bounded to 256
  auto a = s.run();
  CHECK(findings(a, codes::kLowOccupancy, "heavy").empty());
  auto cl = findings(a, codes::kCannotLaunch, "heavy");
  REQUIRE(cl.size() == 2);  // the kernel, then the launch
  CHECK(cl[0]->severity == Severity::Error);
  CHECK(cl[0]->location.range == s.a.ranges.at("h_name"));
  CHECK(cl[0]->message == "`heavy` cannot launch with 512-thread blocks (launch at line 12: <<<grid, 512>>>): "
                          "512 threads exceed __launch_bounds__(256) — `__launch_bounds__(512)` lets ptxas fit the "
                          "registers to 512 threads, or launch at most 256 threads per block");
  CHECK(cl[1]->severity == Severity::Error);
  CHECK(cl[1]->location.range == s.a.ranges.at("l2"));
  CHECK(cl[1]->message.find("this launch of `heavy` fails: 512 threads exceed __launch_bounds__(256)") == 0);
  CHECK(std::get<std::int64_t>(*cl[0]->data.get("largest_block")) == 256);
  const auto& r = report(a, "heavy");
  CHECK(r.code_lens == "128 regs · cannot launch @ 512 threads · 272 B spilled");
  CHECK(r.hover_markdown.find("**Cannot launch** with 512 threads: 512 threads exceed __launch_bounds__(256). Blocks of "
                              "at most 256 threads fit.") != std::string::npos);

  // The kernel: raise the bound to the launch. The launch: that, or the largest block that fits.
  REQUIRE(cl[0]->fixes.size() == 1);
  CHECK(cl[0]->fixes[0].title == "Change to `__launch_bounds__(512)`");
  CHECK(apply_fix(s.a.code, cl[0]->fixes[0]).find("__global__ void __launch_bounds__(512) heavy(") != std::string::npos);
  REQUIRE(cl[1]->fixes.size() == 2);
  CHECK(cl[1]->fixes[1].title ==
        "Launch with 256 threads per block (the largest that fits; adjust the grid to cover the data)");
  CHECK(apply_fix(s.a.code, cl[1]->fixes[1]).find("heavy<<<grid, 256>>>(in, out, n)") != std::string::npos);
}

TEST_CASE("too many registers for the block: __launch_bounds__ with the block size, or the largest block that fits") {
  if (!occupancy_calculator_available()) return;
  Snippet s;
  s.model.functions[2].launch_bounds.reset();  // heavy's 128 registers, no bound
  s.model.launches[1].block.spelling = "1024";
  s.model.launches[1].block.value = std::array<std::int64_t, 3>{1024, 1, 1};
  auto a = s.run();
  auto cl = findings(a, codes::kCannotLaunch, "heavy");
  REQUIRE(cl.size() == 2);
  CHECK(cl[0]->message == "`heavy` cannot launch with 1024-thread blocks (launch at line 12: <<<grid, 1024>>>): "
                          "128 registers × 1024 threads exceed the register file available to one block — "
                          "`__launch_bounds__(1024)` lets ptxas fit the registers to 1024 threads (64 per thread), "
                          "or launch at most 512 threads per block");
  CHECK(std::get<std::int64_t>(*cl[0]->data.get("registers_to_fit")) == 64);
  CHECK(std::get<std::int64_t>(*cl[0]->data.get("largest_block")) == 512);
  const auto& r = report(a, "heavy");
  CHECK(r.remedy.registers_to_fit == 64);
  CHECK(r.remedy.largest_block == 512);
  CHECK(r.hover_markdown.find("`__launch_bounds__(1024)` makes ptxas fit 64 registers per thread (check for spills), "
                              "or blocks of at most 512 threads fit.") != std::string::npos);
  // The curve for the report view: every multiple of 32, the sizes above 512 cannot launch.
  REQUIRE(r.curve.size() == 32);
  CHECK(r.curve[15].block_threads == 512);
  CHECK(r.curve[15].result.blocks_per_sm == 1);
  CHECK(r.curve[16].result.blocks_per_sm == 0);
}

TEST_CASE("a block that cannot launch from a setting is information, not an error") {
  if (!occupancy_calculator_available()) return;
  Snippet s;
  s.model.launches.clear();
  s.model.functions[2].launch_bounds.reset();
  s.options.kernel_blocks["heavy"] = {1024, 1, 1};
  auto a = s.run();
  auto cl = findings(a, codes::kCannotLaunch, "heavy");
  REQUIRE(cl.size() == 1);  // no launch in the file to flag
  CHECK(cl[0]->severity == Severity::Information);
  CHECK(cl[0]->message.find("(from the kernelBlockSizes setting)") != std::string::npos);
}

TEST_CASE("build failures are reported where they are") {
  Snippet s;
  SUBCASE("ptxas: too much shared data, on the kernel, as an error") {
    s.model.functions.push_back(make_kernel("k", {"float *"}));
    s.model.functions.back().name_range = {{20, 16}, {20, 17}};
    s.resources = Snippet::recorded("ptxas/cuda13/error_too_much_smem_sm_90.txt", ResourceUsageStatus::BuildFailed);
    auto a = s.run();
    auto ru = findings(a, codes::kResourceUsage);
    REQUIRE(ru.size() == 1);
    CHECK(ru[0]->severity == Severity::Error);
    CHECK(ru[0]->location.range == Range{{20, 16}, {20, 17}});
    CHECK(ru[0]->message.find("nvcc could not compile the device code for sm_90, so registers and occupancy are "
                              "unknown: ptxas error: Entry function '_Z1kPf' uses too much shared data") == 0);
    CHECK(ru[0]->explanation_markdown.find("nvcc -cubin -arch=sm_90") != std::string::npos);
    CHECK(report(a, "transpose").code_lens == "resource usage unavailable: nvcc could not compile the device code");
    CHECK(findings(a, codes::kLowOccupancy).empty());
  }
  SUBCASE("front-end error: a warning on its line (Clang reports it too)") {
    std::string out = "/src/kernels.cu(3): error: identifier \"nope\" is undefined\n  x = nope;\n      ^\n\n";
    s.resources.status = ResourceUsageStatus::BuildFailed;
    s.resources.raw_output = out;
    s.resources.diagnostics = parse_nvcc_output(out).diagnostics;
    s.resources.functions.clear();
    auto a = s.run();
    auto ru = findings(a, codes::kResourceUsage);
    REQUIRE(ru.size() == 1);
    CHECK(ru[0]->severity == Severity::Warning);
    CHECK(ru[0]->location.range == Range{{2, 0}, {3, 0}});
  }
}

TEST_CASE("no nvcc, no properties, substituted arch: information, never silence") {
  Snippet s;
  s.resources = {};
  s.resources.status = ResourceUsageStatus::NvccNotFound;
  s.resources.message = "nvcc not found (looked in /usr/local/cuda); set warplens.cudaPath or CUDA_PATH";
  auto a = s.run();
  auto ru = findings(a, codes::kResourceUsage);
  REQUIRE(ru.size() == 1);
  CHECK(ru[0]->severity == Severity::Information);
  CHECK(ru[0]->message.find("need the CUDA toolkit") != std::string::npos);
  CHECK(report(a, "heavy").code_lens == "resource usage unavailable: nvcc not found");

  Snippet t;
  t.gpu = select_gpu("sm_35", false);
  CHECK_FALSE(t.gpu.gpu);
  CHECK(t.gpu.note.find("no device properties for sm_35") == 0);
  t.resources.arch_note = "CUDA 13.0's nvcc cannot compile for sm_35; registers ... from sm_75";
  a = t.run();
  CHECK(findings(a, codes::kResourceUsage).size() == 2);
  CHECK(report(a, "heavy").code_lens == "128 regs · 272 B spilled");
  CHECK(report(a, "heavy").occupancy_missing == t.gpu.note);
  CHECK(findings(a, codes::kLowOccupancy).empty());

  auto native = select_gpu("native", false);
  CHECK(native.arch == "sm_90");
  CHECK(native.note.find("no GPU answered") != std::string::npos);
  CHECK(select_gpu("banana", false).note.find("unknown architecture") == 0);
}

TEST_CASE("spills in a non-inlined __device__ function") {
  Snippet s;
  Function helper = make_kernel("helper", {"float"});
  helper.kind = FunctionKind::Device;
  helper.name_range = {{30, 10}, {30, 16}};
  s.model.functions.push_back(helper);
  for (auto& f : s.resources.functions)
    if (f.symbol == "_Z6helperf") f.spill_store_bytes = f.spill_load_bytes = 16;
  auto a = s.run();
  auto sp = findings(a, codes::kRegisterSpill, "helper");
  REQUIRE(sp.size() == 1);
  CHECK(sp[0]->location.range == helper.name_range);
  CHECK(sp[0]->message == "`helper` spills registers to local memory: 16 B stored and 16 B loaded per call, on sm_90");
}

TEST_CASE("launch bounds text and fix edge cases") {
  LaunchBounds macro{256, std::nullopt, "__launch_bounds__(BLOCK)", {{1, 11}, {1, 35}}};
  CHECK(launch_bounds_spelling(macro, 256, 4) == "__launch_bounds__(BLOCK, 4)");
  CHECK(launch_bounds_spelling(macro, 128, 4) == "__launch_bounds__(128, 4)");
  LaunchBounds cluster{256, 1, "__launch_bounds__(256, 1, 2)", {{1, 11}, {1, 39}}};
  CHECK(launch_bounds_spelling(cluster, 256, 4) == "__launch_bounds__(256, 4, 2)");
  CHECK(launch_bounds_spelling(std::nullopt, 128, 3) == "__launch_bounds__(128, 3)");

  Function f = make_kernel("k");
  f.range = {{3, 0}, {5, 1}};
  f.name_range = {{3, 16}, {3, 17}};
  CHECK_FALSE(launch_bounds_fix(f, kFile, 256, 4));  // no declaration_start from the front end
  f.declaration_start = {{3, 0}, {3, 0}};
  auto fix = launch_bounds_fix(f, kFile, 256, 4);
  REQUIRE(fix);
  CHECK(fix->edits.size() == 1);
  CHECK(fix->edits[0].new_text == "__launch_bounds__(256, 4) ");
  f.launch_bounds = LaunchBounds{256, 4, "__launch_bounds__(256, 4)", {{3, 11}, {3, 36}}};
  CHECK_FALSE(launch_bounds_fix(f, kFile, 256, 4));  // already so
  f.launch_bounds->range = {};
  CHECK_FALSE(launch_bounds_fix(f, kFile, 256, 2));  // cannot edit what we cannot locate
}
