// The verdict logic on what the H200 actually produced: fixtures written by
// tests/gpu/run_verifier_h200.sh ($OUT/fixtures, copied to
// tests/fixtures/verifier/h200/). For each recorded replay (plan, candidate
// result, verdict) the verdict is re-assembled from the raw results and must
// agree with the one recorded; recorded capture manifests must parse and
// say what the GPU suite checked. Skipped until fixtures are recorded.
#include <doctest/doctest.h>

#include <filesystem>

#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/verdict_builder.h"
#include "profiler/capture_format.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::verifier;

namespace {

fs::path recorded_dir() { return fs::path(WARPLENS_SOURCE_DIR) / "tests" / "fixtures" / "verifier" / "h200"; }
bool have_recordings() {
  std::error_code ec;
  return fs::is_directory(recorded_dir(), ec);
}

}  // namespace

TEST_CASE("recorded H200 replays: the verdict re-assembles from the raw results" *
          doctest::skip(!have_recordings())) {
  int replays = 0;
  for (const auto& entry : fs::directory_iterator(recorded_dir())) {
    fs::path dir = entry.path();
    if (!fs::exists(dir / "candidate.json") || !fs::exists(dir / "plan.json") || !fs::exists(dir / "verdict.json"))
      continue;
    ++replays;
    INFO("fixture " << dir.filename().string());
    ReplayPlan plan = parse_replay_plan(read_text_file(dir / "plan.json"));
    CandidateResult c = parse_candidate_result(read_text_file(dir / "candidate.json"));
    Verdict recorded = parse_verdict(read_text_file(dir / "verdict.json"));
    REQUIRE(recorded.status == VerdictStatus::Verified);

    Verdict v;
    v.status = VerdictStatus::Verified;
    v.source_findings = recorded.source_findings;
    record_candidate_checks(v, plan, c);
    if (c.timing && v.correct) v.timing = summarize_timing(*c.timing, nullptr);
    decide_level(v);

    CHECK(v.correct == recorded.correct);
    CHECK(v.measured_level == recorded.measured_level);
    CHECK(v.level == recorded.level);
    CHECK(v.input_sets.size() == recorded.input_sets.size());
    if (recorded.timing && !recorded.timing->eager) {
      REQUIRE(v.timing);
      CHECK(v.timing->candidate.median_us == doctest::Approx(recorded.timing->candidate.median_us));
      CHECK(v.timing->basis == recorded.timing->basis);
      CHECK(v.timing->outputs_checked == c.timing->outputs_checked);
    }
    // What the H200 said about each exploit class stays true of the logic.
    std::string name = dir.filename().string();
    if (name.rfind("exploit_", 0) == 0) CHECK(v.level == -1);
    if (name.rfind("honest_", 0) == 0) CHECK(v.correct);
  }
  CHECK(replays > 0);
}

TEST_CASE("recorded H200 capture manifests parse and hold what the GPU suite checked" *
          doctest::skip(!have_recordings())) {
  fs::path dir = recorded_dir() / "captures";
  REQUIRE(fs::is_directory(dir));
  int manifests = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++manifests;
    INFO("manifest " << entry.path().filename().string());
    capture::CaptureManifest m = capture::parse_manifest(read_text_file(entry.path()));
    CHECK(m.complete);
    CHECK(m.device.cc_major >= 7);
    std::string key = entry.path().stem().stem().string();  // "<key>.manifest.json"
    if (key == "scale_add") {
      REQUIRE(m.launches.size() == 1);
      CHECK(m.launches[0].allocations.size() == 3);
      CHECK(m.counters.runtime_launches >= 1);
      CHECK(m.counters.runtime_without_driver_callback == 0);
    } else if (key == "scale_add_capped") {
      CHECK(m.launches.empty());
      REQUIRE_FALSE(m.refusals.empty());
      CHECK(m.refusals[0].reason.find("over the cap") != std::string::npos);
    } else if (key == "memory_kinds") {
      bool managed = false;
      for (const auto& l : m.launches)
        for (const auto& a : l.allocations) managed = managed || a.memory == capture::MemoryKind::Managed;
      CHECK(managed);
      CHECK_FALSE(m.refusals.empty());
    } else if (key == "driver_launch") {
      REQUIRE(m.launches.size() == 3);
      CHECK(m.launches[2].api.rfind("cuLaunchKernelEx", 0) == 0);
    }
  }
  CHECK(manifests > 0);
}
