#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "profiler/profile_data.h"
#include "test_support.h"

using namespace warplens;
using namespace warplens::profile;

namespace {

Profile full_profile() {
  Profile p;
  p.tool_version = "0.1.0";
  p.command = {"./prog", "--size", "2048"};
  p.working_directory = "/work";
  p.started_at = "2025-01-31T12:00:00Z";
  p.wall_ms = 1234.5;
  p.exit_code = 3;
  p.settings.kernel_regex = "naive|tiled";
  p.settings.metric_launches = 2;
  p.settings.launch_records = 7;
  p.settings.budget_ms = 1500;
  p.settings.metrics = true;
  p.settings.sass_mode = SassMode::WholeRun;
  p.passes = {{"metrics", 900.5, 3, true}, {"timing", 334, 0, false}};
  Device d;
  d.name = "NVIDIA H200";
  d.chip = "GH100";
  d.cc_major = 9;
  d.sm_count = 132;
  d.memory_clock_khz = 3201000;
  d.memory_bus_width_bits = 6144;
  d.l2_cache_bytes = 52428800;
  d.peak_bandwidth_gbs = 4916.736;
  d.driver_version = 13000;
  p.devices.push_back(d);
  Kernel k;
  k.name = "naive(float*, float const*)";
  k.mangled = "_Z5naivePfPKf";
  k.launch_count = 3;
  k.metric_launches = 2;
  Launch l;
  l.index = 2;
  l.pass = "timing";
  l.grid = {64, 64, 1};
  l.block = {32, 32, 1};
  l.registers_per_thread = 16;
  l.static_shared_bytes = 4224;
  l.dynamic_shared_bytes = 128;
  l.local_bytes_per_thread = 8;
  l.duration_ns = 35200;
  l.instrumented = true;
  l.stream = 7;
  l.device = 0;
  k.launches.push_back(l);
  k.timing.add(35200);
  k.timing.add(36000);
  KernelCounters c;
  c.inst_executed = 1;
  c.thread_inst_executed = 2;
  c.global_load_requests = 3;
  c.global_store_requests = 4;
  c.global_sectors = 5;
  c.global_sectors_ideal = 6;
  c.shared_load_requests = 7;
  c.shared_store_requests = 8;
  c.shared_wavefronts = 9;
  c.shared_wavefronts_ideal = 10;
  c.local_sectors = 11;
  c.branch_divergent = 12;
  c.branch_uniform = 13;
  c.unmapped_inst_executed = 14;
  k.counters = c;
  p.kernels.push_back(k);
  Kernel timing_only;
  timing_only.name = timing_only.mangled = "extern_c_kernel";
  p.kernels.push_back(timing_only);
  for (LineKind kind : kAllLineKinds) {
    LineMetrics m;
    m.file = "/src/t.cu";
    m.line = 25;
    m.kernel = k.mangled;
    m.kind = kind;
    m.executed = 131072;
    // Only the fields the kind carries survive a round trip (by design).
    if (kind == LineKind::All) m.threads_executed = 4194304;
    if (is_global(kind) || is_local(kind)) m.sectors = 4194304;
    if (is_global(kind)) m.sectors_ideal = 524288;
    if (is_shared(kind)) m.wavefronts = 99, m.wavefronts_ideal = 33;
    if (kind == LineKind::Branch) m.divergent = 5, m.uniform = 6;
    m.pcs = {0xc0, 0xf0, 0x1a0};
    p.lines.push_back(m);
  }
  p.memcpy.host_to_device = {1, 16777216, 335000};
  p.memcpy.device_to_host = {3, 50331648, 1000000};
  p.memcpy.peer = {1, 2, 3};
  p.warnings = {{"budget-exhausted", "later launches were timed only"}};
  p.collector.cupti_version = 130001;
  p.collector.pid = 4242;
  p.collector.metrics = {"smsp__sass_inst_executed"};
  p.collector.sass_overhead_ms = 12.5;
  p.collector.cubins = 2;
  p.collector.sass_records = 95;
  p.collector.dropped_activity_records = 1;
  return p;
}

std::string parse_error(const std::string& json) {
  std::string error;
  CHECK_FALSE(parse_profile(json, &error).has_value());
  return error;
}

}  // namespace

TEST_CASE("a profile survives JSON and back unchanged") {
  Profile p = full_profile();
  std::string json = to_json(p);
  std::string error;
  auto back = parse_profile(json, &error);
  REQUIRE_MESSAGE(back.has_value(), error);
  CHECK(*back == p);
  CHECK(to_json(*back) == json);
  // Compact form parses to the same thing.
  auto compact = parse_profile(to_json(p, -1), &error);
  REQUIRE(compact.has_value());
  CHECK(*compact == p);
}

TEST_CASE("the JSON spells the documented field names") {
  std::string json = to_json(full_profile());
  for (const char* field :
       {"\"schema\": \"warplens-profile/1\"", "\"peak_bandwidth_gbs\"", "\"arch\": \"sm_90\"",
        "\"metric_launches\": 2", "\"kind\": \"global_store\"", "\"sectors_ideal\": 524288",
        "\"wavefronts_ideal\": 33", "\"divergent\": 5", "\"pcs\": [", "\"0xf0\"",
        "\"sass_mode\": \"whole-run\"", "\"mean_ns\": 35600.0", "\"counters\": null"}) {
    CAPTURE(field);
    CHECK(json.find(field) != std::string::npos);
  }
}

TEST_CASE("parse errors name the offending value") {
  CHECK(parse_error("{") == "not a warplens profile: invalid JSON (syntax error at byte 2)");
  // Whatever file was named, its text is not repeated (it may be /etc/shadow).
  CHECK(parse_error("root:$6$hash:19000:0:99999:7:::") == "not a warplens profile: invalid JSON (syntax error at byte 1)");
  CHECK(parse_error(std::string(10000, '[')) == "not a warplens profile: JSON nested deeper than 128 levels (the limit)");
  CHECK(parse_error("[1]") == "document: expected a JSON object");
  CHECK(parse_error("{}") == "document: missing field \"schema\"");
  CHECK(parse_error(R"({"schema": "warplens-profile/2"})").find("unsupported schema \"warplens-profile/2\"") !=
        std::string::npos);
  const std::string head = R"({"schema": "warplens-profile/1", )";
  CHECK(parse_error(head + R"("kernels": [{"mangled": "k", "launches": [{"grid": [1, 2]}]}]})") ==
        "kernels[0].launches[0].grid: expected an array of 3 integers");
  CHECK(parse_error(head + R"("lines": [{"file": "a.cu", "line": 3, "kernel": "k", "kind": "globl"}]})") ==
        "lines[0].kind: unknown line kind \"globl\"");
  CHECK(parse_error(head + R"("lines": [{"file": "a.cu", "line": -1, "kernel": "k", "kind": "all"}]})")
            .find("lines[0].line") == 0);
  CHECK(parse_error(head + R"("lines": [{"file": "a.cu", "line": 1, "kernel": "k", "kind": "all", "pcs": ["0xzz"]}]})") ==
        "lines[0].pcs[0]: bad PC offset \"0xzz\"");
  CHECK(parse_error(head + R"("kernels": [{"mangled": "k", "launch_count": -3}]})") ==
        "kernels[0].launch_count: expected a non-negative integer");
  CHECK(parse_error(head + R"("settings": {"sass_mode": "sometimes"}})") ==
        "settings.sass_mode: unknown SASS mode \"sometimes\"");
}

TEST_CASE("unknown fields are ignored within a major version") {
  std::string error;
  auto p = parse_profile(
      R"({"schema": "warplens-profile/1", "future_field": {"x": 1},
          "kernels": [{"mangled": "_Z1kv", "new_thing": true}]})",
      &error);
  REQUIRE_MESSAGE(p.has_value(), error);
  REQUIRE(p->kernels.size() == 1);
  CHECK(p->kernels[0].name == "_Z1kv");  // name defaults to the mangled name
  CHECK_FALSE(p->kernels[0].counters.has_value());
}

TEST_CASE("save_profile writes atomically and load_profile reports missing files") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("warplens-profile-data-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "p.json").string();
  std::string error;
  REQUIRE(save_profile(full_profile(), path, &error));
  auto p = load_profile(path, &error);
  REQUIRE(p.has_value());
  CHECK(*p == full_profile());
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().filename() == "p.json");
  CHECK_FALSE(load_profile((dir / "missing.json").string(), &error).has_value());
  CHECK(error.find("cannot open") != std::string::npos);
  CHECK_FALSE(save_profile(full_profile(), (dir / "no" / "such" / "dir.json").string(), &error));
  fs::remove_all(dir);
}

TEST_CASE("every committed fixture parses and is internally consistent") {
  namespace fs = std::filesystem;
  int count = 0;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(test::source_dir() + "/tests/fixtures/profile"))
    files.push_back(entry.path());
  if (const char* fresh = std::getenv("WARPLENS_PROFILE_FIXTURE_DIR"); fresh && *fresh)
    for (const auto& entry : fs::directory_iterator(fresh)) files.push_back(entry.path());
  for (const fs::path& path : files) {
    if (path.extension() != ".json") continue;
    ++count;
    CAPTURE(path.string());
    std::string error;
    auto p = load_profile(path.string(), &error);
    REQUIRE_MESSAGE(p.has_value(), error);
    CHECK(p->schema == kSchema);
    REQUIRE_FALSE(p->devices.empty());
    // Described by the driver in every pass (run 2 wrote a chip and nothing else).
    CHECK(p->devices[0].arch() == "sm_90");
    CHECK_FALSE(p->devices[0].name.empty());
    CHECK(p->devices[0].sm_count > 0);
    CHECK(p->devices[0].peak_bandwidth_gbs > 0);
    CHECK_FALSE(p->devices[0].chip.empty());
    CHECK_FALSE(p->kernels.empty());
    CHECK_FALSE(p->lines.empty());
    // The default two passes: per-line data from the metrics pass, launches
    // and durations from the timing pass.
    REQUIRE(p->passes.size() == 2);
    CHECK(p->passes[0].kind == "metrics");
    CHECK(p->passes[0].metrics);
    CHECK(p->passes[1].kind == "timing");
    CHECK_FALSE(p->passes[1].metrics);
    CHECK(p->collector.sass_nonzero_values > 0);
    CHECK(p->collector.sass_setup == "context");
    for (const LineMetrics& l : p->lines) {
      CAPTURE(l.line);
      CHECK(l.line > 0);
      CHECK(p->find_kernel(l.kernel) != nullptr);
      CHECK(std::is_sorted(l.pcs.begin(), l.pcs.end()));
    }
    for (const Kernel& k : p->kernels) {
      if (!k.counters) continue;
      std::uint64_t line_sectors = 0, line_wavefronts = 0;
      for (const LineMetrics& l : p->lines) {
        if (l.kernel != k.mangled) continue;
        if (is_global(l.kind)) line_sectors += l.sectors;
        if (is_shared(l.kind)) line_wavefronts += l.wavefronts;
      }
      // Lines can only account for part of the totals (unmapped PCs), never more.
      CHECK(line_sectors <= k.counters->global_sectors);
      CHECK(line_wavefronts <= k.counters->shared_wavefronts);
      for (const Launch& l : k.launches) {
        CHECK(l.pass == "timing");
        CHECK_FALSE(l.instrumented);
        CHECK(l.duration_ns > 0);
      }
      CHECK(k.metric_launches >= 1);
      CHECK(k.timing.launches == k.launch_count);
      CHECK_FALSE(k.launches.empty());
    }
  }
  CHECK(count >= 3);
}
