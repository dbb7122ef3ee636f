// The profiler on a real GPU: the example programs are built with
// nvcc -lineinfo -O3 for the GPU at hand and run under libwarplens_inject.so;
// the per-line numbers must match what the hardware is known to do
// (cupti-per-line-metrics.md section 9 for the transposes).
//
// Exits 77 (ctest: skipped) when there is no GPU. With WARPLENS_GPU_OUT set,
// each case keeps its profile, the program's output and the injection
// library's log (verbose) under $WARPLENS_GPU_OUT/profiler/<case>/.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <fstream>
#include <set>
#include <sstream>

#include "profiler/build_single_file.h"
#include "profiler/gpu_probe.h"
#include "profiler/measured_findings.h"
#include "profiler/profile_data.h"
#include "profiler/runner.h"
#include "profiler/scratch_dir.h"
#include "profiler/subprocess.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;
namespace fs = std::filesystem;

namespace {

GpuStatus g_gpu;

// Measured facts worth reading even when every check passes (instrumentation
// slowdowns, ratios): printed and kept in $WARPLENS_GPU_OUT/profiler/notes.txt.
void note(const std::string& text) {
  std::printf("NOTE: %s\n", text.c_str());
  std::fflush(stdout);
  if (const char* out = std::getenv("WARPLENS_GPU_OUT"); out && *out) {
    fs::create_directories(std::string(out) + "/profiler");
    std::ofstream(std::string(out) + "/profiler/notes.txt", std::ios::app) << text << "\n";
  }
}

#define NOTE(expr)                  \
  do {                              \
    std::ostringstream note_stream; \
    note_stream << expr;            \
    note(note_stream.str());        \
  } while (0)

struct Program {
  std::string source;
  std::string text;
  std::string executable;
};

ScratchDir& build_dir() {
  static ScratchDir dir("warplens-gpu-test-");
  return dir;
}

std::string nvcc() {
  std::string n = WARPLENS_TEST_NVCC;
  return n.empty() ? locate_nvcc() : n;
}

// Builds tests/gpu/<name>.cu once per test run.
const Program& program(const std::string& name) {
  static std::map<std::string, Program> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  Program p;
  p.source = test::source_dir() + "/tests/gpu/" + name + ".cu";
  p.text = test::read_file(p.source);
  BuildOptions b;
  b.source = p.source;
  b.arch = g_gpu.devices.front().arch();
  b.output_dir = build_dir().path();
  b.nvcc = nvcc();
  BuildResult r = build_single_file(b);
  REQUIRE_MESSAGE(r.ok, r.message);
  p.executable = r.executable;
  return cache.emplace(name, std::move(p)).first->second;
}

std::string case_dir(const std::string& name) {
  const char* out = std::getenv("WARPLENS_GPU_OUT");
  if (!out || !*out) return {};
  return std::string(out) + "/profiler/" + name;
}

Profile run(const std::string& case_name, const std::string& executable, std::vector<std::string> args,
            RunOptions o = {}) {
  o.command = {executable};
  o.command.insert(o.command.end(), args.begin(), args.end());
  o.injection_library = WARPLENS_TEST_INJECT_LIB;
  o.timeout = std::chrono::seconds(40);  // the programs take a second or two
  o.verbose = true;
  o.work_dir = case_dir(case_name);
  RunResult r = run_profile(o);
  REQUIRE_MESSAGE(r.status == RunStatus::Ok, r.message);
  Profile p = *r.profile;
  for (const Warning& w : p.warnings) NOTE(case_name << ": warning [" << w.code << "] " << w.message);
  if (!o.work_dir.empty()) {
    std::string error;
    save_profile(p, o.work_dir + "/profile.json", &error);
  }
  CHECK(p.exit_code == 0);
  return p;
}

// Warnings that mean the metrics could not be trusted or collected.
void check_no_collection_problems(const Profile& p) {
  for (const char* code : {"counters-permission", "sass-unsupported", "sass-unavailable", "legacy-profiler",
                           "counters-busy", "another-profiler", "callbacks-unavailable", "sass-no-records",
                           "sass-flush", "sass-sync", "sass-dropped", "runtime-launch-untracked",
                           "launch-correlation", "no-lineinfo", "activity-unavailable", "activity-dropped"}) {
    CAPTURE(code);
    CHECK_FALSE(p.has_warning(code));
  }
}

const Kernel& kernel(const Profile& p, const std::string& name_part) {
  for (const Kernel& k : p.kernels)
    if (k.name.find(name_part) != std::string::npos) return k;
  FAIL("no kernel named like " << name_part);
  throw;
}

const LineMetrics* record(const Profile& p, const Kernel& k, int line, LineKind kind) {
  for (const LineMetrics& l : p.lines)
    if (l.kernel == k.mangled && l.line == line && l.kind == kind) return &l;
  return nullptr;
}

double sectors_per_request(const LineMetrics* l) {
  REQUIRE(l);
  REQUIRE(l->executed > 0);
  return double(l->sectors) / double(l->executed);
}

double sector_ratio(const LineMetrics* l) {
  REQUIRE(l);
  REQUIRE(l->sectors_ideal > 0);
  return double(l->sectors) / double(l->sectors_ideal);
}

double wavefront_ratio(const LineMetrics* l) {
  REQUIRE(l);
  REQUIRE(l->wavefronts_ideal > 0);
  return double(l->wavefronts) / double(l->wavefronts_ideal);
}

double instrumented_slowdown(const Kernel& k) {
  double instrumented = 0;
  for (const Launch& l : k.launches)
    if (l.instrumented) instrumented = double(l.duration_ns);
  return k.timing.launches && instrumented > 0 ? instrumented / k.timing.mean_ns() : 0;
}

constexpr std::uint64_t kTransposeWarps = 131072;  // 64 x 64 blocks of 32 warps

void check_transpose_lines(const Profile& p, const Program& prog, std::uint64_t measured_launches) {
  const int naive_line = test::line_of(prog.text, "// LINE naive");
  const Kernel& naive = kernel(p, "transpose_naive");
  const LineMetrics* load = record(p, naive, naive_line, LineKind::GlobalLoad);
  const LineMetrics* store = record(p, naive, naive_line, LineKind::GlobalStore);
  REQUIRE(load);
  REQUIRE(store);
  CHECK(load->executed == measured_launches * kTransposeWarps);
  CHECK(store->executed == measured_launches * kTransposeWarps);
  CHECK(sectors_per_request(load) == doctest::Approx(4.0).epsilon(0.05));
  CHECK(sectors_per_request(store) == doctest::Approx(32.0).epsilon(0.05));
  CHECK(sector_ratio(load) == doctest::Approx(1.0).epsilon(0.05));
  CHECK(sector_ratio(store) == doctest::Approx(8.0).epsilon(0.05));

  const Kernel& tiled = kernel(p, "transpose_tiled");
  const int tiled_write = test::line_of(prog.text, "// LINE tiled-write");
  const int tiled_read = test::line_of(prog.text, "// LINE tiled-read");
  CHECK(sector_ratio(record(p, tiled, tiled_write, LineKind::GlobalLoad)) == doctest::Approx(1.0).epsilon(0.05));
  CHECK(wavefront_ratio(record(p, tiled, tiled_write, LineKind::SharedStore)) == doctest::Approx(1.0).epsilon(0.05));
  CHECK(wavefront_ratio(record(p, tiled, tiled_read, LineKind::SharedLoad)) == doctest::Approx(32.0).epsilon(0.05));
  CHECK(sector_ratio(record(p, tiled, tiled_read, LineKind::GlobalStore)) == doctest::Approx(1.0).epsilon(0.05));

  const Kernel& padded = kernel(p, "transpose_padded");
  for (const LineMetrics& l : p.lines) {
    if (l.kernel != padded.mangled) continue;
    CAPTURE(l.line);
    CAPTURE(to_string(l.kind));
    if (is_global(l.kind)) CHECK(sector_ratio(&l) <= 1.05);
    if (is_shared(l.kind)) CHECK(wavefront_ratio(&l) <= 1.05);
  }
}

}  // namespace

TEST_CASE("transpose: the naive store is 8x uncoalesced, the tile read a 32-way conflict, padding clean") {
  const Program& prog = program("profiler_transpose");
  Profile p = run("transpose", prog.executable, {"3"});
  check_no_collection_problems(p);
  REQUIRE(p.devices.size() == 1);
  CHECK(p.devices[0].arch() == g_gpu.devices.front().arch());
  CHECK(p.devices[0].peak_bandwidth_gbs > 100);
  CHECK(p.devices[0].chip.size() > 0);
  REQUIRE(p.kernels.size() == 3);
  // Every kernel had two uninstrumented launches: no timing pass needed.
  CHECK(p.passes.size() == 1);
  for (const Kernel& k : p.kernels) {
    CAPTURE(k.name);
    CHECK(k.launch_count == 3);
    CHECK(k.metric_launches == 1);
    CHECK(k.timing.launches == 2);
    REQUIRE(k.counters);
    CHECK(k.counters->unmapped_inst_executed * 100 <= k.counters->inst_executed);  // -lineinfo maps ~all
    REQUIRE(k.launches.size() == 3);
    CHECK(k.launches[0].instrumented);
    CHECK_FALSE(k.launches[1].instrumented);
    CHECK(k.launches[0].grid == Dim3{64, 64, 1});
    CHECK(k.launches[0].block == Dim3{32, 32, 1});
    NOTE(k.name << ": instrumented launch " << instrumented_slowdown(k) << "x the mean of "
                   << k.timing.launches << " uninstrumented ones (" << k.timing.mean_ns() << " ns)");
  }
  check_transpose_lines(p, prog, 1);

  MeasuredFindingsRequest req;
  req.file = prog.source;
  req.text = prog.text;
  auto findings = measured_findings(p, req);
  std::set<std::pair<std::string, int>> got;
  for (const Finding& f : findings) {
    NOTE((f.location.range.start.line + 1) << ": " << f.message);
    got.insert({f.code, f.location.range.start.line + 1});
  }
  std::set<std::pair<std::string, int>> expected = {
      {"uncoalesced-global", test::line_of(prog.text, "// LINE naive")},
      {"shared-bank-conflict", test::line_of(prog.text, "// LINE tiled-read")}};
  CHECK(got == expected);
}

TEST_CASE("repeated measured launches are summed and counted per launch") {
  const Program& prog = program("profiler_transpose");
  RunOptions o;
  o.settings.metric_launches = 2;
  Profile p = run("transpose_two_measured", prog.executable, {"3"}, o);
  check_no_collection_problems(p);
  for (const Kernel& k : p.kernels) {
    CAPTURE(k.name);
    CHECK(k.metric_launches == 2);
    CHECK(k.timing.launches == 1);
  }
  check_transpose_lines(p, prog, 2);
}

TEST_CASE("a timing pass runs when every launch of a kernel was instrumented") {
  const Program& prog = program("profiler_transpose");
  Profile p = run("transpose_two_passes", prog.executable, {"1"});
  check_no_collection_problems(p);
  REQUIRE(p.passes.size() == 2);
  CHECK(p.passes[1].kind == "timing");
  for (const Kernel& k : p.kernels) {
    CAPTURE(k.name);
    CHECK(k.launch_count == 1);
    CHECK(k.timing.launches == 1);
    bool timed_in_second_pass = false;
    for (const Launch& l : k.launches) timed_in_second_pass |= l.pass == "timing" && !l.instrumented;
    CHECK(timed_in_second_pass);
    NOTE(k.name << ": instrumented " << instrumented_slowdown(k) << "x the timing pass");
  }
  check_transpose_lines(p, prog, 1);
}

TEST_CASE("uninstrumented launches of the metrics pass run at full speed") {
  // After a measured launch the kernel must run its original code again:
  // compare the metrics pass's uninstrumented launches with a run that
  // never enabled SASS metrics.
  const Program& prog = program("profiler_transpose");
  Profile measured = run("transpose_speed_metrics", prog.executable, {"6"});
  RunOptions off;
  off.settings.metrics = false;
  Profile plain = run("transpose_speed_plain", prog.executable, {"6"}, off);
  for (const Kernel& k : measured.kernels) {
    const Kernel& reference = kernel(plain, k.name);
    double ratio = k.timing.mean_ns() / reference.timing.mean_ns();
    NOTE(k.name << ": uninstrumented launches of the metrics pass " << ratio << "x activity-only launches");
    CHECK(ratio < 1.5);
  }
}

TEST_CASE("whole-run mode measures the same per-line numbers") {
  const Program& prog = program("profiler_transpose");
  RunOptions o;
  o.settings.sass_mode = SassMode::WholeRun;
  o.passes = Passes::One;
  Profile p = run("transpose_whole_run", prog.executable, {"2"}, o);
  check_no_collection_problems(p);
  for (const Kernel& k : p.kernels) {
    CAPTURE(k.name);
    CHECK(k.metric_launches == 2);  // everything after Enable runs instrumented
    CHECK(k.timing.launches == 0);
  }
  check_transpose_lines(p, prog, 2);
}

TEST_CASE("strided copy: sectors per request grow with the stride") {
  const Program& prog = program("profiler_strided_copy");
  Profile p = run("strided_copy", prog.executable, {"2"});
  check_no_collection_problems(p);
  const int line = test::line_of(prog.text, "// LINE strided-copy");
  const std::map<std::string, double> expected = {{"copy_strided<1>", 4}, {"copy_strided<2>", 8}, {"copy_strided<8>", 32}};
  for (const auto& [name, spr] : expected) {
    CAPTURE(name);
    const Kernel& k = kernel(p, name);
    CHECK(sectors_per_request(record(p, k, line, LineKind::GlobalLoad)) == doctest::Approx(spr).epsilon(0.05));
    CHECK(sector_ratio(record(p, k, line, LineKind::GlobalLoad)) == doctest::Approx(spr / 4).epsilon(0.05));
    CHECK(sector_ratio(record(p, k, line, LineKind::GlobalStore)) == doctest::Approx(1.0).epsilon(0.05));
    if (k.timing.launches) NOTE(name << ": " << k.timing.mean_ns() << " ns per launch");
  }
}

TEST_CASE("reductions: interleaved addressing conflicts, sequential addressing does not") {
  const Program& prog = program("profiler_bank_reduction");
  Profile p = run("bank_reduction", prog.executable, {});
  check_no_collection_problems(p);
  const int interleaved = test::line_of(prog.text, "// LINE interleaved");
  const int modulo = test::line_of(prog.text, "// LINE modulo");
  const int sequential = test::line_of(prog.text, "// LINE sequential");
  const Kernel& ki = kernel(p, "reduce_interleaved");
  const Kernel& km = kernel(p, "reduce_modulo");
  const Kernel& ks = kernel(p, "reduce_sequential");
  CHECK(wavefront_ratio(record(p, ki, interleaved, LineKind::SharedLoad)) > 2.0);
  CHECK(wavefront_ratio(record(p, km, modulo, LineKind::SharedLoad)) <= 1.1);
  CHECK(wavefront_ratio(record(p, ks, sequential, LineKind::SharedLoad)) <= 1.1);
  NOTE("interleaved: " << wavefront_ratio(record(p, ki, interleaved, LineKind::SharedLoad)) << "x ideal wavefronts");
  // Divergence is measured at branch instructions; whether the compiler
  // branched around the modulo's body or predicated it is its choice, so
  // this is recorded, not asserted.
  const LineMetrics* branch = record(p, km, modulo, LineKind::Branch);
  const LineMetrics* all = record(p, km, modulo, LineKind::All);
  REQUIRE(all);
  double simt = double(all->threads_executed) / (32.0 * double(all->executed));
  NOTE("modulo line: branch record " << (branch ? "yes" : "no") << ", divergent "
                                        << (branch ? branch->divergent : 0) << " uniform "
                                        << (branch ? branch->uniform : 0) << ", SIMT efficiency " << simt);
  // The loops' own branches are uniform: every thread of a block runs them alike.
  const int interleaved_loop = test::line_of(prog.text, "for (unsigned s = 1; s < kBlock; s *= 2)");
  if (const LineMetrics* loop = record(p, ki, interleaved_loop, LineKind::Branch)) CHECK(loop->divergent == 0);
}

TEST_CASE("the kernel filter and activity-only runs") {
  const Program& prog = program("profiler_transpose");
  RunOptions filtered;
  filtered.settings.kernel_regex = "tiled";
  Profile p = run("transpose_filter", prog.executable, {"2"}, filtered);
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.kernels[0].name.find("transpose_tiled") == 0);
  for (const LineMetrics& l : p.lines) CHECK(l.kernel == p.kernels[0].mangled);

  RunOptions off;
  off.settings.metrics = false;
  Profile plain = run("transpose_no_metrics", prog.executable, {"2"}, off);
  CHECK(plain.lines.empty());
  CHECK(plain.passes.size() == 1);
  REQUIRE(plain.kernels.size() == 3);
  for (const Kernel& k : plain.kernels) {
    CHECK_FALSE(k.counters.has_value());
    CHECK(k.timing.launches == 2);
  }
  CHECK(plain.memcpy.host_to_device.bytes == 2048ull * 2048 * 4);
  CHECK(plain.memcpy.device_to_host.count == 3);
}

TEST_CASE("a program built without -lineinfo: counters, no lines, and a warning") {
  const Program& prog = program("profiler_transpose");
  std::string exe = build_dir().file("transpose_no_lineinfo");
  ProcessSpec spec;
  spec.argv = {nvcc(), "-O3", "-arch=" + g_gpu.devices.front().arch(), "-o", exe, prog.source};
  spec.stderr_path = build_dir().file("no_lineinfo.log");
  REQUIRE(run_process(spec).exit_code == 0);
  Profile p = run("transpose_no_lineinfo", exe, {"2"});
  CHECK(p.lines.empty());
  CHECK(p.has_warning("no-lineinfo"));
  for (const Kernel& k : p.kernels) {
    REQUIRE(k.counters);
    CHECK(k.counters->unmapped_inst_executed == k.counters->inst_executed);
    CHECK(k.counters->global_sectors > 0);
  }
}

int main(int argc, char** argv) {
  g_gpu = probe_gpus();
  if (!g_gpu.available) {
    std::printf("skipped: %s\n", g_gpu.reason.c_str());
    return 77;
  }
  if (std::string(WARPLENS_TEST_INJECT_LIB).empty()) {
    std::printf("FAILED: a GPU is present but libwarplens_inject.so was not built (CUPTI not found)\n");
    return 1;
  }
  if (nvcc().empty()) {
    std::printf("FAILED: a GPU is present but nvcc was not found\n");
    return 1;
  }
  std::printf("GPU: %s (%s) via %s\n", g_gpu.devices.front().name.c_str(),
              g_gpu.devices.front().arch().c_str(), g_gpu.method.c_str());
  doctest::Context context(argc, argv);
  return context.run();
}
