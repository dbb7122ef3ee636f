// The verdict logic on what the H200 actually produced: fixtures written by
// tests/gpu/run_verifier_h200.sh (fixtures/ in its tarball, installed into
// tests/fixtures/verifier/h200/ by tests/gpu/install_verifier_fixtures.sh):
//
//   replays/<case>/   plan.json, candidate.json, verdict.json (reference.json
//                      in recordings before 2026-12-02)
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
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

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

// Exploits whose results are right, so that the best the verifier can do is
// not let them win (level <= 1, never offered): work hidden on another stream,
// and memoisers, which with a fresh input set in every run never see an input
// twice (H200 run of 2026-12-02: exploit_memo_rows correct at 0.59x). Every
// other exploit computes something wrong and must be level -1.
bool exploit_may_be_correct(const std::string& name) {
  return name == "exploit_other_stream" || starts_with(name, "exploit_memo_");
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
    // The pipeline's last step: a winner goes under compute-sanitizer, whose
    // outcome the recorded verdict holds (the replay's own results cannot
    // show a read past an allocation; H200 run of 2026-12-02:
    // exploit_transpose_read_past level 2 from the replay, -1 after memcheck).
    if (recorded.sanitizer) {
      CHECK(wants_sanitizer(v));  // only a winner goes under the sanitizer
      apply_sanitizer(v, *recorded.sanitizer);
    }

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
    if (starts_with(name, "exploit_")) {
      if (exploit_may_be_correct(name)) CHECK(v.level <= 1);
      else CHECK(v.level == -1);
    }
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

namespace {

// The suite version a recording holds (fixtures/suite.txt; recordings made
// before the file existed are version 1).
int recorded_suite_version() {
  std::error_code ec;
  const fs::path f = test::recorded_fixtures_dir() / "suite.txt";
  if (!fs::exists(f, ec)) return 1;
  const std::string text = read_text_file(f);
  const auto at = text.rfind(' ');
  return at == std::string::npos ? 1 : std::atoi(text.c_str() + at + 1);
}
bool have_suite_v2() { return test::have_recorded_fixtures() && recorded_suite_version() >= 2; }

// Issue 14's rows (suite version 2, tests/gpu/verifier_gpu_issue14_test.cpp).
const char* const kSuiteV2Verdicts[] = {
    "exploit_memo_static", "exploit_memo_malloc", "exploit_memo_rows", "exploit_write_past_allocation",
    "exploit_write_far_past_allocation", "exploit_write_before_allocation", "exploit_transpose_write_past",
    "exploit_transpose_read_past", "exploit_transpose_no_bounds", "exploit_transpose_square",
    "exploit_vec4_no_tail", "exploit_fp64_downgrade", "exploit_fp64_float_accumulate", "honest_gemm_tiled",
    "honest_axpy_vec4", "honest_dscale_add_fma", "honest_drow_sum_shuffle", "identity_scale_add",
    "identity_row_sum", "identity_add_one", "identity_scale_span", "identity_gemm_beta", "identity_dscale_add",
    "identity_drow_sum", "identity_axpy_inplace"};

// Every verdict the GPU suite writes (tests/gpu/verifier_gpu_*_test.cpp): a
// recording without one of them is incomplete, and fails below.
const char* const kSuiteVerdicts[] = {
    "exploit_constant", "exploit_half_output", "exploit_unwritten", "exploit_mutates_input",
    "exploit_out_of_bounds", "exploit_other_stream", "exploit_hardcoded_n", "exploit_ignores_alpha",
    "exploit_hang", "exploit_hang_timed", "exploit_stateful", "exploit_race", "exploit_half_precision",
    "honest_after_hang", "honest_scale_add_launch_bounds", "honest_scale_add_vec4",
    "honest_scale_add_two_shapes", "honest_transpose_tiled", "honest_transpose_padded", "honest_transpose_16x16",
    "honest_row_sum_shuffle", "honest_scale_span", "honest_add_one_managed", "identity_transpose",
    "honest_transpose_padded_vs_pytorch"};

// What a recorded verdict must say for its case; one line per broken
// expectation (none: as expected). An exploit that is offered, a hang
// reported as anything but a hang, an honest candidate rejected: each is a
// regression of the verifier, recorded on the GPU, and fails CI.
std::vector<std::string> verdict_regressions(const std::string& name, const Verdict& v) {
  std::vector<std::string> out;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) out.push_back(name + ": " + what);
  };
  expect(v.status == VerdictStatus::Verified, "not verified (" + v.error + ")");
  expect(!v.reproduce.empty(), "no reproduce command");
  if (starts_with(name, "exploit_")) {
    expect(!v.offerable(), "an exploit would be offered (level " + std::to_string(v.level) + ")");
    if (exploit_may_be_correct(name)) expect(v.level <= 1, "an exploit rewarded as faster (level " + std::to_string(v.level) + ")");
    else expect(v.level == -1, "an exploit accepted at level " + std::to_string(v.level));
  }
  if (starts_with(name, "exploit_hang")) {
    // A hang reported as a pass (H200 run 2: "correct; 1.02x") fails here.
    expect(!v.correct, "a hang reported as correct");
    expect(has_flag(v, "hung"), "a hang without the `hung` flag");
    expect(mentions(v, "did not finish within "), "a hang without its deadline in the reasons");
    expect(!v.timing, "a hang with timing");
  }
  if (starts_with(name, "honest_") || starts_with(name, "identity_")) {
    expect(v.correct && v.level >= 1, "an honest candidate rejected (level " + std::to_string(v.level) + ")");
    bool sets = v.input_sets.size() >= 5;
    for (const auto& s : v.input_sets) sets = sets && (s.passed || s.skipped);
    expect(sets, "fewer than 5 input sets, or one failed");
    expect(v.timing && v.timing->candidate.runs >= 30 && v.timing->outputs_checked == v.timing->candidate.runs,
           "not timed over at least 30 runs with every output checked");
  }
  if (starts_with(name, "identity_")) expect(v.level == 1, "the original against itself is not level 1");
  if (name == "honest_scale_add_two_shapes") {
    // Both captured launches are input sets of their own, besides 3 fresh
    // ones and the shape variations.
    int captured = 0, fresh = 0;
    for (const auto& s : v.input_sets) {
      captured += starts_with(s.origin, "captured launch ");
      fresh += starts_with(s.origin, "fresh from launch ");
    }
    expect(captured == 2 && fresh == 3 && v.input_sets.size() > 1 && v.input_sets[1].origin == "captured launch 1",
           "not both captured launches and 3 fresh sets (" + std::to_string(captured) + " captured, " +
               std::to_string(fresh) + " fresh)");
  }
  // Issue 14 (suite version 2; recordings of version 1 have none of these).
  if (starts_with(name, "exploit_memo_")) {
    bool flagged = false;
    for (const auto& f : v.source_findings) flagged = flagged || (f.rule == "device-state" && f.needs_review);
    expect(flagged, "memoising state not flagged for review");
  }
  if (starts_with(name, "exploit_write_") || name == "exploit_transpose_write_past")
    expect(v.level == -1 && mentions(v, "outside the allocation the program made"),
           "a write outside the allocation not caught by the guard bands");
  if (name == "exploit_transpose_read_past")
    expect((v.sanitizer && v.sanitizer->ran && !v.sanitizer->clean && v.level == -1) ||
               has_flag(v, "sanitizer-not-run"),
           "a read past the allocation neither demoted by compute-sanitizer nor held for review");
  if (name == "exploit_transpose_no_bounds" || name == "exploit_transpose_square" || name == "exploit_vec4_no_tail") {
    bool on_variation = false;
    for (const auto& s : v.input_sets) on_variation = on_variation || (s.checked && !s.passed && !s.shape.variation.empty());
    expect(v.level == -1 && on_variation, "a kernel right only at the captured shape not caught on a shrunk one");
  }
  // Every set that ran says what it exercised (issue 13, item 5), in
  // verdicts of a verifier that records shapes (it names its pipeline).
  for (const auto& s : v.input_sets)
    if (s.checked && !v.pipeline.empty())
      expect(s.shape.recorded, "input set " + std::to_string(s.index) + " without its shape");
  return out;
}

// Expectations of the GPU suite that were themselves wrong when a recording
// was made. A row judged WRONG by one of them is judged again from its
// verdict by verdict_regressions, which holds today's expectation.
struct RetiredExpectation {
  const char* row;
  const char* expected;  // the summary's `expected` column as recorded
};
const RetiredExpectation kRetiredExpectations[] = {
    // Counted exactly 5 input sets, written before issue 14's shape
    // variations added theirs (H200, 2026-12-02: 2 captured + 3 fresh + 2
    // variations, all passed, level 2).
    {"honest_scale_add_two_shapes", "correct on both captured shapes + 3 fresh"},
};

bool retired_expectation(const std::string& row, const std::string& expected) {
  for (const auto& r : kRetiredExpectations)
    if (row == r.row && expected == r.expected) return true;
  return false;
}

std::vector<std::string> tsv_columns(const std::string& line) {
  std::vector<std::string> cols;
  std::istringstream row(line);
  for (std::string c; std::getline(row, c, '\t');) cols.push_back(c);
  return cols;
}

// The recorded summary.tsv's rows that did not come out as expected
// (capture rows included: a capture that failed on the GPU fails CI).
std::vector<std::string> summary_rows_wrong(const std::string& tsv) {
  std::vector<std::string> out;
  std::istringstream in(tsv);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header || line.empty()) {
      header = false;
      continue;
    }
    std::vector<std::string> cols;
    std::istringstream row(line);
    for (std::string c; std::getline(row, c, '\t');) cols.push_back(c);
    if (cols.size() < 4 || cols[3] != "ok") out.push_back(line.substr(0, 200));
  }
  return out;
}

// A verdict as the GPU suite records it for an honest candidate.
Verdict honest_verdict() {
  Verdict v;
  v.status = VerdictStatus::Verified;
  v.correct = true;
  v.level = v.measured_level = 2;
  v.reproduce = "warplens verify ...";
  v.input_sets.resize(5);
  for (auto& s : v.input_sets) s.passed = s.checked = true;
  v.timing.emplace();
  v.timing->candidate.runs = 30;
  v.timing->outputs_checked = 30;
  return v;
}

Verdict hang_verdict() {
  Verdict v;
  v.status = VerdictStatus::Verified;
  v.reproduce = "warplens verify ...";
  v.reasons = {"the candidate did not finish within 2.0 s on input set 0, run 1"};
  v.flags = {"hung"};
  return v;
}

}  // namespace

TEST_CASE("recorded-verdict expectations catch each kind of regression") {
  CHECK(verdict_regressions("honest_scale_add_vec4", honest_verdict()).empty());
  CHECK(verdict_regressions("exploit_hang", hang_verdict()).empty());

  SUBCASE("an exploit accepted") {
    Verdict v = honest_verdict();  // correct and faster: what an exploit that fools the checks looks like
    auto r = verdict_regressions("exploit_constant", v);
    REQUIRE(r.size() == 2);
    CHECK(r[0] == "exploit_constant: an exploit would be offered (level 2)");
    CHECK(r[1] == "exploit_constant: an exploit accepted at level 2");
    v.level = 1;
    CHECK(verdict_regressions("exploit_constant", v).size() == 1);
    CHECK(verdict_regressions("exploit_other_stream", v).empty());
  }
  SUBCASE("a hang reported as a pass (H200 run 2)") {
    Verdict v = honest_verdict();
    v.level = v.measured_level = 1;
    auto r = verdict_regressions("exploit_hang", v);
    CHECK(std::find(r.begin(), r.end(), "exploit_hang: a hang reported as correct") != r.end());
    CHECK(std::find(r.begin(), r.end(), "exploit_hang: a hang without the `hung` flag") != r.end());
    CHECK(std::find(r.begin(), r.end(), "exploit_hang: a hang with timing") != r.end());
  }
  SUBCASE("an honest candidate rejected") {
    Verdict v = honest_verdict();
    v.correct = false;
    v.level = -1;
    v.input_sets[3].passed = false;
    CHECK(verdict_regressions("honest_transpose_tiled", v).size() == 2);
  }
  SUBCASE("an honest candidate timed without checking every output") {
    Verdict v = honest_verdict();
    v.timing->outputs_checked = 10;
    CHECK(verdict_regressions("honest_transpose_tiled", v).size() == 1);
  }
  SUBCASE("issue 14: memoising state not flagged, a write past the allocation accepted, a set without its shape") {
    Verdict memo = honest_verdict();
    memo.level = 1;
    auto r = verdict_regressions("exploit_memo_rows", memo);
    CHECK(std::find(r.begin(), r.end(), "exploit_memo_rows: memoising state not flagged for review") != r.end());
    Verdict write = honest_verdict();
    r = verdict_regressions("exploit_write_past_allocation", write);
    CHECK(std::find(r.begin(), r.end(),
                    "exploit_write_past_allocation: a write outside the allocation not caught by the guard bands") !=
          r.end());
    Verdict shapes = honest_verdict();
    shapes.pipeline = "device";
    r = verdict_regressions("honest_gemm_tiled", shapes);
    REQUIRE(r.size() == 5);
    CHECK(r[0] == "honest_gemm_tiled: input set 0 without its shape");
    for (auto& s : shapes.input_sets) s.shape.recorded = true;
    CHECK(verdict_regressions("honest_gemm_tiled", shapes).empty());
    Verdict self = honest_verdict();
    CHECK(verdict_regressions("identity_gemm_beta", self) ==
          std::vector<std::string>{"identity_gemm_beta: the original against itself is not level 1"});
  }
  SUBCASE("a verification that never ran") {
    Verdict v;
    v.status = VerdictStatus::Error;
    v.error = "nvcc not found";
    auto r = verdict_regressions("exploit_race", v);
    REQUIRE_FALSE(r.empty());
    CHECK(r[0] == "exploit_race: not verified (nvcc not found)");
  }
  SUBCASE("a summary row that came out wrong") {
    const std::string tsv =
        "case\tkind\texpected\tresult\tlevel\tmeasured\tverify_s\tdetail\n"
        "exploit_constant\texploit\t-1\tok\t-1\t-1\t1.20\tlevel -1\n"
        "capture-driver-api\tcapture\t3 launches\tWRONG\t-\t-\t-\trefused: the launch call itself failed\n";
    auto r = summary_rows_wrong(tsv);
    REQUIRE(r.size() == 1);
    CHECK(starts_with(r[0], "capture-driver-api"));
  }
}

TEST_CASE("recorded H200 verdicts: every case of the suite, each as its case expects" *
          doctest::skip(!test::have_recorded_fixtures())) {
  const fs::path dir = test::recorded_fixtures_dir() / "verdicts";
  REQUIRE(fs::is_directory(dir));
  std::set<std::string> seen;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    seen.insert(name);
    INFO("verdict " << name);
    const std::string text = read_text_file(entry.path());
    Verdict v = parse_verdict(text);
    // The format round-trips: what warplens writes, it reads back the same.
    CHECK(to_json_text(parse_verdict(to_json_text(v))) == to_json_text(v));
    for (const auto& problem : verdict_regressions(name, v)) FAIL_CHECK(problem);
  }
  for (const char* name : kSuiteVerdicts) {
    INFO("verdict " << name);
    CHECK_MESSAGE(seen.count(name) == 1, "the recording has no verdict for " << name);
  }
  if (recorded_suite_version() >= 2)
    for (const char* name : kSuiteV2Verdicts) {
      INFO("verdict " << name);
      CHECK_MESSAGE(seen.count(name) == 1, "the recording has no verdict for " << name);
    }
}

TEST_CASE("recorded H200 verdicts of issue 14's rows (suite version 2)" * doctest::skip(!have_suite_v2())) {
  // The version-2 rows are checked with the others above; here what only a
  // version-2 recording can show: the in-place 128 MB case within the
  // default time limit, the sanitizer having run on the read-past exploit.
  const fs::path dir = test::recorded_fixtures_dir() / "verdicts";
  Verdict big = parse_verdict(read_text_file(dir / "identity_axpy_inplace.json"));
  CHECK(big.correct);
  CHECK(big.level == 1);
  for (const auto& [stage, ms] : big.stage_ms) CHECK_MESSAGE(ms < 60000, stage << " took " << ms << " ms");
  Verdict read_past = parse_verdict(read_text_file(dir / "exploit_transpose_read_past.json"));
  CHECK_FALSE(read_past.offerable());
}

TEST_CASE("recorded H200 summary: every row of the GPU suite came out as expected" *
          doctest::skip(!test::have_recorded_fixtures())) {
  const fs::path summary = test::recorded_fixtures_dir() / "summary.tsv";
  REQUIRE_MESSAGE(fs::exists(summary), "no summary.tsv in " << summary.parent_path());
  const std::string tsv = read_text_file(summary);
  for (const auto& row : summary_rows_wrong(tsv)) {
    const auto cols = tsv_columns(row);
    const fs::path verdict = test::recorded_fixtures_dir() / "verdicts" / (cols[0] + ".json");
    if (cols.size() >= 3 && retired_expectation(cols[0], cols[2]) && fs::exists(verdict)) {
      INFO("judged again from its verdict (the recorded expectation was wrong): " << row);
      for (const auto& problem : verdict_regressions(cols[0], parse_verdict(read_text_file(verdict))))
        FAIL_CHECK(problem);
      continue;
    }
    FAIL_CHECK("not as expected on the GPU: " << row);
  }
  // Every row the suite writes is there (a test that stopped early writes none).
  std::set<std::string> rows;
  std::istringstream in(tsv);
  for (std::string line; std::getline(in, line);) rows.insert(line.substr(0, line.find('\t')));
  std::vector<std::string> expected(std::begin(kSuiteVerdicts), std::end(kSuiteVerdicts));
  std::replace(expected.begin(), expected.end(), std::string("honest_transpose_padded_vs_pytorch"),
               std::string("pytorch_level3_transpose"));
  for (const char* row : {"capture-runtime-launch", "capture-k-launches", "capture-driver-api", "capture-memory-kinds",
                          "capture-size-cap", "capture-small-fixture", "timer_other_stream"})
    expected.push_back(row);
  if (recorded_suite_version() >= 2) expected.insert(expected.end(), std::begin(kSuiteV2Verdicts), std::end(kSuiteV2Verdicts));
  for (const auto& row : expected) CHECK_MESSAGE(rows.count(row) == 1, "summary.tsv has no row " << row);
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
    std::string key = entry.path().stem().stem().string();  // "<key>.manifest.json"
    // The size-capped capture of 2026-11-30 was recorded before a refused
    // capture filled in its device (fixed in profiler/inject/launch_capture.cpp):
    // it captured nothing, so it has no device to check.
    if (!(key == "scale_add_capped" && m.launches.empty())) CHECK(m.device.cc_major >= 7);
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
      REQUIRE(m.launches.size() >= 3);
      CHECK_FALSE(starts_with(m.launches[1].api, "cuLaunchKernelEx"));
      CHECK(starts_with(m.launches[2].api, "cuLaunchKernelEx"));
      for (int l = 0; l < 3; ++l) {
        CHECK(param_value<float>(m.launches[static_cast<std::size_t>(l)], 0) == 2.0f + static_cast<float>(l));
        CHECK(m.launches[static_cast<std::size_t>(l)].pointers.size() == 2);
        CHECK(m.launches[static_cast<std::size_t>(l)].param_buffer.size() == 28);
      }
      // The fourth launch's `extra` size has tail padding (32): refused by
      // the driver, and by capture naming the driver's error; or accepted,
      // and captured like the others.
      if (m.launches.size() == 3) {
        REQUIRE(m.refusals.size() == 1);
        CHECK(m.refusals[0].sequence == 3);
        CHECK(m.refusals[0].reason.find("the launch call itself failed with CUDA_ERROR_") != std::string::npos);
      } else {
        CHECK(m.launches.size() == 4);
        CHECK(m.refusals.empty());
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
