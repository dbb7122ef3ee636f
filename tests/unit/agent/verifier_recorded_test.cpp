// The verdict logic on what the H200 actually produced: fixtures written by
// tests/gpu/run_verifier_h200.sh (fixtures/ in its tarball, installed into
// tests/fixtures/verifier/h200/ by tests/gpu/install_verifier_fixtures.sh):
//
//   replays/<case>/   plan.json, reference.json, candidate.json, verdict.json
//   verdicts/<case>.json               every verdict of the GPU suite
//   captures/<key>.manifest.json       capture manifests (no blobs)
//   capture_small/scale_add/           one whole capture (the fake-driver
//                                      tests replay it)
//
// For each recorded replay the verdict is re-assembled from the raw results
// and must agree with the one recorded; every recorded verdict must parse
// and say what its case expects; recorded manifests must hold what the GPU
// suite checked. Skipped until fixtures are recorded.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/verdict_builder.h"
#include "profiler/capture_format.h"
#include "tests/unit/agent/verifier_test_support.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::verifier;

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool mentions(const Verdict& v, const std::string& text) {
  for (const auto& r : v.reasons)
    if (r.find(text) != std::string::npos) return true;
  return false;
}

bool has_flag(const Verdict& v, const std::string& flag) {
  return std::find(v.flags.begin(), v.flags.end(), flag) != v.flags.end();
}

template <class T>
T param_value(const capture::LaunchRecord& l, int index) {
  T v{};
  std::memcpy(&v, l.param_buffer.data() + l.params.at(static_cast<std::size_t>(index)).offset, sizeof v);
  return v;
}

}  // namespace

TEST_CASE("recorded H200 replays: the verdict re-assembles from the raw results" *
          doctest::skip(!test::have_recorded_fixtures())) {
  const fs::path dir = test::recorded_fixtures_dir() / "replays";
  REQUIRE(fs::is_directory(dir));
  int replays = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path d = entry.path();
    if (!fs::exists(d / "candidate.json") || !fs::exists(d / "plan.json") || !fs::exists(d / "verdict.json"))
      continue;
    ++replays;
    INFO("fixture " << d.filename().string());
    ReplayPlan plan = parse_replay_plan(read_text_file(d / "plan.json"));
    CandidateResult c = parse_candidate_result(read_text_file(d / "candidate.json"));
    Verdict recorded = parse_verdict(read_text_file(d / "verdict.json"));
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
    std::string name = d.filename().string();
    if (starts_with(name, "exploit_")) CHECK(v.level == -1);
    if (starts_with(name, "honest_")) CHECK(v.correct);
    if (starts_with(name, "exploit_hang")) {
      // The replay's own account of a hang: incorrect however the rest reads.
      CHECK(c.timed_out);
      CHECK_FALSE(c.correct);
      CHECK(c.failure.find("did not finish within ") != std::string::npos);
    }
  }
  CHECK(replays > 0);
}

TEST_CASE("recorded H200 verdicts: each parses and says what its case expects" *
          doctest::skip(!test::have_recorded_fixtures())) {
  const fs::path dir = test::recorded_fixtures_dir() / "verdicts";
  REQUIRE(fs::is_directory(dir));
  int verdicts = 0;
  bool saw_hang = false;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++verdicts;
    const std::string name = entry.path().stem().string();
    INFO("verdict " << name);
    const std::string text = read_text_file(entry.path());
    Verdict v = parse_verdict(text);
    // The format round-trips: what warplens writes, it reads back the same.
    CHECK(to_json_text(parse_verdict(to_json_text(v))) == to_json_text(v));
    CHECK(v.status == VerdictStatus::Verified);
    CHECK_FALSE(v.reproduce.empty());
    if (starts_with(name, "exploit_")) {
      CHECK_FALSE(v.offerable());
      // Work hidden on another stream is correct: it must only not win.
      if (name == "exploit_other_stream") CHECK(v.level <= 1);
      else CHECK(v.level == -1);
    }
    if (starts_with(name, "exploit_hang")) {
      // A hang reported as a pass (H200 run 2: "correct; 1.02x") fails here.
      saw_hang = true;
      CHECK_FALSE(v.correct);
      CHECK(has_flag(v, "hung"));
      CHECK(mentions(v, "did not finish within "));
      CHECK_FALSE(v.timing);
    }
    if (starts_with(name, "honest_")) {
      CHECK(v.correct);
      CHECK(v.level >= 1);
      REQUIRE(v.input_sets.size() >= 5);
      for (const auto& s : v.input_sets) CHECK(s.passed);
      REQUIRE(v.timing);
      CHECK(v.timing->candidate.runs >= 30);
      CHECK(v.timing->outputs_checked == v.timing->candidate.runs);
    }
    if (name == "identity_transpose") CHECK(v.level == 1);
  }
  CHECK(verdicts > 0);
  CHECK(saw_hang);
}

TEST_CASE("recorded H200 capture manifests parse and hold what the GPU suite checked" *
          doctest::skip(!test::have_recorded_fixtures())) {
  const fs::path dir = test::recorded_fixtures_dir() / "captures";
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
      // kernelParams, the packed `extra` buffer, cuLaunchKernelEx: a = 2, 3, 4.
      REQUIRE(m.launches.size() == 3);
      CHECK(m.refusals.empty());
      CHECK_FALSE(starts_with(m.launches[1].api, "cuLaunchKernelEx"));
      CHECK(starts_with(m.launches[2].api, "cuLaunchKernelEx"));
      for (int l = 0; l < 3; ++l) {
        CHECK(param_value<float>(m.launches[static_cast<std::size_t>(l)], 0) == 2.0f + static_cast<float>(l));
        CHECK(m.launches[static_cast<std::size_t>(l)].pointers.size() == 2);
      }
    } else if (key == "scale_add_small") {
      REQUIRE(m.launches.size() == 2);
      CHECK(param_value<int>(m.launches[0], 4) == 2048);
      CHECK(param_value<int>(m.launches[1], 4) == 2045);
    }
  }
  CHECK(manifests > 0);
}

TEST_CASE("recorded H200 small capture: whole, every blob matching its hash" *
          doctest::skip(!test::have_recorded_fixtures())) {
  const fs::path dir = test::recorded_fixtures_dir() / "capture_small" / "scale_add";
  REQUIRE(fs::is_directory(dir));
  capture::CaptureManifest m = capture::load_capture(dir);
  REQUIRE(m.launches.size() == 2);
  for (const auto& l : m.launches)
    for (const auto& a : l.allocations) {
      // read_blob checks the size and the content hash.
      CHECK(capture::read_blob(dir, a.before_blob, a.bytes, a.before_hash).size() == a.bytes);
      CHECK(capture::read_blob(dir, a.after_blob, a.bytes, a.after_hash).size() == a.bytes);
    }
  // Launch 0 wrote 3.0 everywhere (alpha 2.5, x 1, y 0.5): the GPU's bytes.
  const auto& out = m.launches[0].allocations[2];
  auto after = capture::read_blob(dir, out.after_blob, out.bytes, out.after_hash);
  float first = 0;
  std::memcpy(&first, after.data(), sizeof first);
  CHECK(first == 3.0f);
}
