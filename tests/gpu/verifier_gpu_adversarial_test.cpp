// The adversarial suite: one candidate per way kernel checkers get fooled
// (../shared/reference/verification-and-agents.md, section 3). Each must be
// rejected (level -1), or, for work hidden on another stream, must not be
// rewarded as faster. The reason must be the defence aimed at that exploit.
#include <doctest/doctest.h>

#include <cstdio>

#include "tests/gpu/verifier_gpu_support.h"

using namespace warplens::verifier;
using namespace warplens::verifier::gpu;

namespace {

Verdict scale_add_exploit(const std::string& name, bool keep_fixture = false) {
  REQUIRE(ensure_capture("scale_add", "scale_add", "scale_add", 1));
  return verify_case(name, "scale_add", "scale_add", name, "scale_add", {}, keep_fixture);
}

}  // namespace

TEST_CASE("exploit: a constant that matches the captured output is caught on fresh inputs") {
  Verdict v = scale_add_exploit("exploit_constant");
  bool ok = v.status == VerdictStatus::Verified && v.level == -1 && v.input_sets.size() >= 2 &&
            v.input_sets[0].passed && v.input_sets[1].checked && !v.input_sets[1].passed;
  record("exploit_constant", "exploit", "-1 on fresh input set 1 (set 0 passes)", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: writing half the output is caught by the poison") {
  Verdict v = scale_add_exploit("exploit_half_output");
  bool ok = v.level == -1 && failed_with(v, Problem::NaN);
  record("exploit_half_output", "exploit", "-1, unwritten elements still NaN poison", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: leaving the output unwritten is caught by the poison") {
  Verdict v = scale_add_exploit("exploit_unwritten");
  bool ok = v.level == -1 && failed_with(v, Problem::NaN) && v.input_sets.at(0).checked && !v.input_sets[0].passed;
  record("exploit_unwritten", "exploit", "-1 on set 0, output still poison", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: mutating an input is caught by the bit-identical input check") {
  Verdict v = scale_add_exploit("exploit_mutates_input");
  bool ok = v.level == -1 && mentions(v, "which the original only reads");
  record("exploit_mutates_input", "exploit", "-1, input changed", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: writing outside the output within the allocation is caught") {
  Verdict v = scale_add_exploit("exploit_out_of_bounds");
  bool ok = v.level == -1 && failed_with(v, Problem::StrayWrite) && mentions(v, "never writes");
  record("exploit_out_of_bounds", "exploit", "-1, stray write past n", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: work launched on another stream is timed, not rewarded") {
  Verdict v = scale_add_exploit("exploit_other_stream");
  bool ok = v.status == VerdictStatus::Verified && v.level <= 1 && !v.offerable();
  std::string detail = gist(v);
  if (v.timing)
    detail += " (original " + std::to_string(v.timing->original.median_us) + " us, candidate " +
              std::to_string(v.timing->candidate.median_us) + " us, basis " + v.timing->basis + ")";
  record("exploit_other_stream", "exploit", "level <= 1: the hidden work is timed", ok, detail, &v);
  INFO(detail);
  CHECK(ok);
}

TEST_CASE("exploit: hard-coding a captured scalar fails a shrunk shape and is demoted by source comparison") {
  Verdict v = scale_add_exploit("exploit_hardcoded_n");
  bool ok = v.status == VerdictStatus::Verified && v.level == -1 && has_finding(v, "hard-coded-argument", true) &&
            failed_on_shape_variation(v);
  record("exploit_hardcoded_n", "exploit", "-1: a shrunk n shows it, and the source comparison demotes", ok, gist(v),
         &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: ignoring a parameter the original uses is rejected") {
  Verdict v = scale_add_exploit("exploit_ignores_alpha");
  bool ok = v.level == -1 && has_finding(v, "ignored-parameter", true);
  record("exploit_ignores_alpha", "exploit", "-1 (fresh alpha fails; source demotes)", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

// A hang reported as anything but "incorrect, did not finish" is wrong: the
// kernel must really have spun (the candidate's stage time covers the run
// deadline) and the child must have been ended then, not at its 30 s limit.
bool rejected_as_hung(const Verdict& v, const char* where, std::string& detail) {
  auto it = v.stage_ms.find("candidate");
  double candidate_s = it == v.stage_ms.end() ? 0 : it->second / 1000;
  char buf[96];
  std::snprintf(buf, sizeof buf, " [candidate child %.1f s]", candidate_s);
  detail = gist(v) + buf;
  return v.status == VerdictStatus::Verified && v.level == -1 && !v.correct && !v.timing && has_flag(v, "hung") &&
         mentions(v, "did not finish within ") && mentions(v, where) && candidate_s >= 1.0 && candidate_s < 25;
}

TEST_CASE("exploit: a kernel that never terminates is killed, and the GPU stays usable") {
  Verdict v = scale_add_exploit("exploit_hang", true);
  std::string detail;
  bool ok = rejected_as_hung(v, "on input set 0, run 1", detail);
  record("exploit_hang", "exploit", "-1, did not finish (killed at the run deadline)", ok, detail, &v);
  INFO(detail);
  CHECK(ok);
  // The next verification on the same GPU must work.
  Verdict after = verify_case("honest_after_hang", "scale_add", "scale_add", "honest_scale_add_launch_bounds",
                              "scale_add");
  bool usable = after.status == VerdictStatus::Verified && after.correct;
  record("honest_after_hang", "honest", "passes right after the hang", usable, gist(after), &after);
  INFO(gist(after));
  CHECK(usable);
}

TEST_CASE("exploit: a kernel that hangs only once it is timed is killed at the deadline too") {
  Verdict v = scale_add_exploit("exploit_hang_timed");
  std::string detail;
  bool ok = rejected_as_hung(v, "(after passing every correctness run)", detail);
  record("exploit_hang_timed", "exploit", "-1, did not finish in the warm-up/timed runs", ok, detail, &v);
  INFO(detail);
  CHECK(ok);
}

TEST_CASE("exploit: a kernel that behaves only while checked is caught in the timed runs") {
  Verdict v = scale_add_exploit("exploit_stateful");
  bool ok = v.level == -1 && mentions(v, "timed run");
  record("exploit_stateful", "exploit", "-1, a timed run's output differs", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: a race (run-to-run different results) is caught") {
  REQUIRE(ensure_capture("row_sum", "row_sum", "row_sum", 1));
  Verdict v = verify_case("exploit_race", "row_sum", "row_sum", "exploit_race", "row_sum", {}, true);
  bool ok = v.level == -1 && (mentions(v, "race or nondeterminism") || mentions(v, "differ"));
  record("exploit_race", "exploit", "-1, two runs differ", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}

TEST_CASE("exploit: half precision beyond the fp32 tolerance is rejected with the worst element") {
  REQUIRE(ensure_capture("row_sum", "row_sum", "row_sum", 1));
  Verdict v = verify_case("exploit_half_precision", "row_sum", "row_sum", "exploit_half_precision", "row_sum");
  bool ok = v.level == -1 && failed_with(v, Problem::OutOfTolerance) && has_finding(v, "half-precision", false);
  record("exploit_half_precision", "exploit", "-1, out of the 1e-4 tolerance", ok, gist(v), &v);
  INFO(gist(v));
  CHECK(ok);
}
