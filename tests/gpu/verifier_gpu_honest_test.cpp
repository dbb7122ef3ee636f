// Honest candidates must pass; the original against itself must be level 1
// (a sanity check of the timing); the PyTorch reference path; the timer's
// own check that work on another stream is counted.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "agent/verifier/compile.h"
#include "agent/verifier/tool_process.h"
#include "agent/verifier/verdict_builder.h"
#include "tests/gpu/verifier_gpu_support.h"

namespace fs = std::filesystem;
using namespace warplens::verifier;
using namespace warplens::verifier::gpu;

namespace {

void honest(const std::string& name, const std::string& capture_key, const std::string& original,
            const std::string& kernel, const std::function<bool(const Verdict&)>& extra = {}, bool fixture = false,
            const std::function<void(VerifyRequest&)>& tweak = {}) {
  Verdict v = verify_case(name, capture_key, original, name, kernel, tweak, fixture);
  bool ok = v.status == VerdictStatus::Verified && v.correct && v.level >= 1 && (!extra || extra(v));
  record(name, "honest", "correct (level >= 1)", ok, speed(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

}  // namespace

TEST_CASE("honest: bigger blocks with __launch_bounds__, grid recomputed") {
  REQUIRE(ensure_capture("scale_add", "scale_add", "scale_add", 1));
  honest("honest_scale_add_launch_bounds", "scale_add", "scale_add", "scale_add", [](const Verdict& v) {
    return v.candidate_launch.block[0] == 256 && v.candidate_launch.grid[0] == 4096;
  });
}

TEST_CASE("honest: vectorised float4 with declared coarsening") {
  REQUIRE(ensure_capture("scale_add", "scale_add", "scale_add", 1));
  honest("honest_scale_add_vec4", "scale_add", "scale_add", "scale_add",
         [](const Verdict& v) { return v.candidate_launch.grid[0] == 2048; });
}

TEST_CASE("honest: two captured launches of different shapes are both input sets") {
  REQUIRE(ensure_capture("scale_add_x2", "scale_add", "scale_add", 2));
  Verdict v = verify_case("honest_scale_add_two_shapes", "scale_add_x2", "scale_add", "honest_scale_add_vec4",
                          "scale_add");
  // Both captured launches and 3 fresh sets; the shape variations (issue 14)
  // come on top, as many as the sizes allow (the H200 run of 2026-12-02 had 2
  // and was judged WRONG by a count of exactly 5 written before they existed).
  int captured = 0, fresh = 0;
  bool all_passed = !v.input_sets.empty();
  for (const auto& s : v.input_sets) {
    captured += s.origin.rfind("captured launch ", 0) == 0;
    fresh += s.origin.rfind("fresh from launch ", 0) == 0;
    all_passed = all_passed && (s.passed || s.skipped);
  }
  bool ok = v.correct && all_passed && captured == 2 && fresh == 3 && v.input_sets[1].origin == "captured launch 1";
  record("honest_scale_add_two_shapes", "honest", "correct on both captured shapes, 3 fresh sets and the variations",
         ok, speed(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("honest: shared-memory transposes") {
  REQUIRE(ensure_capture("transpose", "transpose", "transpose_naive", 1));
  honest("honest_transpose_tiled", "transpose", "transpose", "transpose_naive", {}, true);
  honest("honest_transpose_padded", "transpose", "transpose", "transpose_naive");
  honest("honest_transpose_16x16", "transpose", "transpose", "transpose_naive", [](const Verdict& v) {
    return v.candidate_launch.grid[0] == 128 && v.candidate_launch.grid[1] == 128;
  });
}

TEST_CASE("honest: warp-shuffle reduction (different summation order, within tolerance)") {
  REQUIRE(ensure_capture("row_sum", "row_sum", "row_sum", 1));
  honest("honest_row_sum_shuffle", "row_sum", "row_sum", "row_sum", {}, true);
}

TEST_CASE("honest: struct parameter with an interior pointer; managed memory replayed in place") {
  REQUIRE(ensure_capture("memory_kinds", "memory_kinds", ".*", 8));
  honest("honest_scale_span", "memory_kinds", "memory_kinds", "scale_span");
  honest("honest_add_one_managed", "memory_kinds", "memory_kinds", "add_one");
}

TEST_CASE("sanity: the original against itself is correct and not faster (level 1)") {
  REQUIRE(ensure_capture("transpose", "transpose", "transpose_naive", 1));
  Verdict v = verify_case("identity_transpose", "transpose", "transpose", "../transpose", "transpose_naive");
  bool ok = v.correct && v.level == 1 && v.speedup > 0.9 && v.speedup < 1.1;
  record("identity_transpose", "honest", "level 1, speedup within 10% of 1.0", ok, speed(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("level 3: PyTorch eager and torch.compile timed with the same method") {
  REQUIRE(ensure_capture("transpose", "transpose", "transpose_naive", 1));
  Verdict v = verify_case("honest_transpose_padded_vs_pytorch", "transpose", "transpose", "honest_transpose_padded",
                          "transpose_naive", [](VerifyRequest& r) {
                            r.pytorch_reference = env().cases_dir / "transpose_model.py";
                            r.pytorch_timeout_s = 300;
                          });
  bool timed = v.timing && v.timing->eager.has_value();
  std::string detail = speed(v);
  if (v.timing) {
    if (v.timing->eager) detail += "; eager " + std::to_string(v.timing->eager->median_us) + " us";
    if (v.timing->compiled) detail += ", torch.compile " + std::to_string(v.timing->compiled->median_us) + " us";
    if (!v.timing->pytorch_note.empty()) detail += "; " + v.timing->pytorch_note;
  }
  bool ok = v.correct && (timed || (v.timing && !v.timing->pytorch_note.empty()));
  record("pytorch_level3_transpose", "honest", "correct; eager/compile timed (or why not)", ok, detail, &v);
  INFO(detail);
  CHECK(ok);
}

TEST_CASE("timer: work left on another stream is counted (warplens-replay timer-check)") {
  fs::path dir = env().work_dir / "timer";
  fs::create_directories(dir);
  std::ofstream(dir / "spin.cu") << "extern \"C\" __global__ void spin(long long cycles) {\n"
                                    "  long long start = clock64();\n"
                                    "  while (clock64() - start < cycles) {}\n"
                                    "}\n";
  CompileRequest c;
  c.source = dir / "spin.cu";
  c.output = dir / "spin.cubin";
  c.arch = env().device.arch;
  auto compiled = compile_to_cubin(c);
  if (!compiled.ok) record("timer_other_stream", "timer", "other-stream work counted", false, "spin.cu: " + compiled.log);
  REQUIRE_MESSAGE(compiled.ok, compiled.log);
  ToolSpec spec;
  spec.argv = {env().replay, "timer-check", "--cubin", c.output.string(), "--out", (dir / "timer.json").string()};
  spec.timeout_s = 120;
  spec.log_stem = dir / "timer-check";
  ToolRun run = run_tool(spec);
  if (!run.succeeded())
    record("timer_other_stream", "timer", "other-stream work counted", false,
           "timer-check: " + run.description + " " +
               (fs::exists(dir / "timer.json") ? read_text_file(dir / "timer.json").substr(0, 200) : ""));
  REQUIRE_MESSAGE(run.succeeded(), run.description << run.err);
  auto j = nlohmann::json::parse(read_text_file(dir / "timer.json"));
  TimingSamples s;
  s.original_us = j["own_stream"]["event_us"].get<std::vector<double>>();
  s.original_device_us = j["own_stream"]["device_us"].get<std::vector<double>>();
  s.candidate_us = j["other_stream"]["event_us"].get<std::vector<double>>();
  s.candidate_device_us = j["other_stream"]["device_us"].get<std::vector<double>>();
  bool outside = false;
  TimingEvidence t = summarize_timing(s, &outside);
  fs::create_directories(fixture_path(""));
  std::ofstream(fixture_path("timer_check.json")) << j.dump(1);
  // A stream-only timer would see almost nothing; the device-idle one sees the spin.
  bool ok = outside && t.basis == "device-idle" && t.candidate_stream.median_us < 0.2 * t.original_stream.median_us &&
            t.candidate.median_us > 0.8 * t.original_stream.median_us;
  char detail[200];
  std::snprintf(detail, sizeof detail,
                "own stream %.0f us; other stream: event %.1f us, device-idle %.0f us -> basis %s",
                t.original_stream.median_us, t.candidate_stream.median_us, t.candidate_device.median_us,
                t.basis.c_str());
  record("timer_other_stream", "timer", "other-stream work counted (device-idle basis)", ok, detail);
  INFO(detail);
  CHECK(ok);
}
