// The verifier's GPU suite expectations, on the fake driver: every exploit
// rejected for the right reason, every honest candidate correct, hangs
// killed. What this cannot show (real timing, real faults, capture through
// CUPTI) is what tests/gpu/ runs on a GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include "agent/verifier/tool_process.h"
#include "agent/verifier/verifier.h"
#include "tests/unit/agent/fake_gpu_support.h"

namespace fs = std::filesystem;
using namespace warplens::verifier;
using namespace warplens::verifier::fake;

TEST_CASE("fake GPU: the original against itself is correct, with full evidence") {
  Verdict v = run("scale_add", "scale_add", "../scale_add.cu", "scale_add");
  REQUIRE(v.status == VerdictStatus::Verified);
  CHECK(v.correct);
  CHECK(v.level >= 1);
  REQUIRE(v.input_sets.size() == 7);  // 5 + 2 shape variations
  for (const auto& s : v.input_sets) CHECK(s.passed);
  CHECK(v.input_sets[0].origin == "captured launch 0");
  CHECK(v.level == 1);  // the fake's modelled clock: the same kernel takes the same time
  REQUIRE(v.timing);
  CHECK(v.timing->candidate.runs == 10);
  CHECK(v.timing->outputs_checked == 10);
  CHECK(v.reproduction.at(0).reproduced);
  CHECK(v.device.name.find("fake") != std::string::npos);
  // Input buffers are checked unchanged, the output by value, with the
  // never-written slack held to the poison.
  bool unchanged = false, value = false;
  for (const auto& b : v.input_sets[0].buffers) {
    unchanged = unchanged || (b.check == "unchanged" && b.role == BufferRole::Input);
    value = value || (b.check == "value" && b.role == BufferRole::Output);
  }
  CHECK(unchanged);
  CHECK(value);
}

TEST_CASE("fake GPU: exploits are rejected for the right reason") {
  SUBCASE("constant matching the captured output: caught on a fresh set") {
    Verdict v = scale_add("exploit_constant");
    CHECK(v.level == -1);
    CHECK(v.input_sets.at(0).passed);
    CHECK_FALSE(v.input_sets.at(1).passed);
  }
  SUBCASE("half the output") {
    Verdict v = scale_add("exploit_half_output");
    CHECK(v.level == -1);
    CHECK(failed_with(v, Problem::NaN));
  }
  SUBCASE("unwritten output") {
    Verdict v = scale_add("exploit_unwritten");
    CHECK(v.level == -1);
    CHECK(failed_with(v, Problem::NaN));
  }
  SUBCASE("mutated input") {
    Verdict v = scale_add("exploit_mutates_input");
    CHECK(v.level == -1);
    CHECK(mentions(v, "which the original only reads"));
  }
  SUBCASE("writes past the output inside the allocation") {
    Verdict v = scale_add("exploit_out_of_bounds");
    CHECK(v.level == -1);
    CHECK(failed_with(v, Problem::StrayWrite));
    CHECK(mentions(v, "never writes"));
  }
  SUBCASE("hard-coded captured scalar: demoted") {
    // With n = 65536 here the hard-coded 1048576 also writes past n: the
    // runtime check fires too (on the GPU, at the shrunk shapes).
    Verdict v = scale_add("exploit_hardcoded_n");
    CHECK(v.level == -1);
  }
  SUBCASE("ignored parameter") {
    Verdict v = scale_add("exploit_ignores_alpha");
    CHECK(v.level == -1);
    bool demoted = false;
    for (const auto& f : v.source_findings) demoted = demoted || (f.rule == "ignored-parameter" && f.demotes);
    CHECK(demoted);
  }
  SUBCASE("behaves only while checked") {
    // It misbehaves from its 16th launch after a (re)load: in the timed runs,
    // given 30 of them (the default).
    Verdict v = run("scale_add", "scale_add", "exploit_stateful.cu", "scale_add",
                    [](VerifyRequest& r) { r.timed_runs = 30; });
    CHECK(v.level == -1);
    CHECK(mentions(v, "timed run"));
  }
  SUBCASE("race") {
    Verdict v = run("row_sum", "row_sum", "exploit_race.cu", "row_sum");
    CHECK(v.level == -1);
    CHECK(mentions(v, "race or nondeterminism"));
  }
  SUBCASE("half precision") {
    Verdict v = run("row_sum", "row_sum", "exploit_half_precision.cu", "row_sum");
    CHECK(v.level == -1);
    CHECK(failed_with(v, Problem::OutOfTolerance));
  }
  SUBCASE("half precision, declared as a reordered sum: the widened tolerance still refuses it") {
    Verdict v = run("row_sum", "row_sum", "exploit_half_precision.cu", "row_sum",
                    [](VerifyRequest& r) { r.reassociation = Reassociation{{Extent{2, 0}}}; });
    CHECK(v.level == -1);
    CHECK(failed_with(v, Problem::OutOfTolerance));
    CHECK(has_flag(v, "reassociated-tolerance"));
    CHECK(mentions(v, "even with the atol widened by"));
  }
  SUBCASE("a race, declared as a reordered sum: the original is deterministic, so two runs must agree") {
    Verdict v = run("row_sum", "row_sum", "exploit_race.cu", "row_sum",
                    [](VerifyRequest& r) { r.reassociation = Reassociation{}; });
    CHECK(v.level == -1);
    CHECK(mentions(v, "race or nondeterminism"));
  }
  SUBCASE("work on another stream (dynamic parallelism): compiled with -rdc and noted") {
    // Whether it is rewarded depends on real timing: the GPU suite checks
    // that; CPU timings on the fake driver mean nothing.
    Verdict v = scale_add("exploit_other_stream");
    CHECK(v.status == VerdictStatus::Verified);
    CHECK(v.candidate_compile.relocatable);
    bool noted = false;
    for (const auto& f : v.source_findings) noted = noted || f.rule == "device-side-launch";
    CHECK(noted);
  }
}

// A hang must never come back as a pass: incorrect, level -1, no timing,
// the deadline named, and well before the child process's own time limit.
void check_hung(const Verdict& v, double seconds, const std::string& where) {
  CHECK(v.status == VerdictStatus::Verified);
  CHECK_FALSE(v.correct);
  CHECK(v.level == -1);
  CHECK(v.measured_level == -1);
  CHECK_FALSE(v.timing);
  CHECK_FALSE(v.offerable());
  CHECK(has_flag(v, "hung"));
  CHECK(mentions(v, "did not finish within "));
  CHECK(mentions(v, where));
  // Killed at the run deadline (50x the original's slowest run + 1 s: about
  // 2 s here unless the machine is loaded), not at the 60 s process limit.
  // The deadline is read from the verdict: the fake's CPU time, and so the
  // deadline, grows with the load of the machine the tests run on.
  double deadline = 0;
  for (const auto& r : v.reasons)
    if (auto at = r.find("did not finish within "); at != std::string::npos)
      deadline = std::atof(r.c_str() + at + std::strlen("did not finish within "));
  CHECK(deadline > 0);
  CHECK(deadline < 60);
  CHECK(seconds < 60);
}

TEST_CASE("fake GPU: a hung candidate is killed at its deadline and the next verification works") {
  auto t0 = std::chrono::steady_clock::now();
  Verdict v = scale_add("exploit_hang");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  check_hung(v, s, "on input set 0, run 1");
  Verdict after = scale_add("honest_scale_add_launch_bounds");
  CHECK(after.correct);
}

TEST_CASE("fake GPU: a candidate that hangs only once it is timed is killed at the deadline too") {
  auto t0 = std::chrono::steady_clock::now();
  Verdict v = run("scale_add", "scale_add", "exploit_hang_timed.cu", "scale_add",
                  [](VerifyRequest& r) { r.timed_runs = 30; });
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  check_hung(v, s, "timed run");
  // It passed every correctness run first: the evidence says so.
  REQUIRE(v.input_sets.size() == 7);
  for (const auto& set : v.input_sets) CHECK(set.passed);
  CHECK(mentions(v, "after passing every correctness run"));
}

TEST_CASE("fake GPU: a candidate child that never ends is killed at its time limit: -1, hung") {
  // The backstop behind the per-run deadline: a child stuck where no run
  // deadline reaches it (here a stand-in for warplens-replay that sleeps in
  // candidate mode; the reference and the GPU probe are the real replay's).
  test::TempDir dir;
  const fs::path real = self_executable_dir() / "warplens-replay";
  REQUIRE(fs::exists(real));
  const fs::path stuck = dir.path() / "replay-stuck-in-candidate";
  {
    std::ofstream out(stuck);
    out << "#!/bin/sh\nif [ \"$1\" = candidate ]; then exec sleep 600; fi\nexec '" << real.string()
        << "' \"$@\"\n";
  }
  fs::permissions(stuck, fs::perms::owner_all);
  VerifyRequest r;
  r.capture_dir = capture("scale_add");
  r.original_source = kCases / "scale_add.cu";
  r.candidate_source = kCases / "candidates" / "honest_scale_add_launch_bounds.cu";
  r.kernel = "scale_add";
  r.replay_binary = stuck.string();
  r.timed_runs = 10;
  r.timeout_s = 8;
  auto t0 = std::chrono::steady_clock::now();
  Verdict v = verify(r);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("stuck child: level " << v.level << " " << (v.reasons.empty() ? v.error : v.reasons.front()));
  CHECK(v.status == VerdictStatus::Verified);
  CHECK_FALSE(v.correct);
  CHECK(v.level == -1);
  CHECK_FALSE(v.timing);
  CHECK(has_flag(v, "hung"));
  CHECK(mentions(v, "did not finish within 8 s and was killed"));
  CHECK(s < 60);  // the 8 s limit plus the kill's grace, compiles and the reference
}

TEST_CASE("fake GPU: a declared reordered sum is said in the verdict and its reproduce command") {
  Verdict v = run("row_sum", "row_sum", "honest_row_sum_shuffle.cu", "row_sum",
                  [](VerifyRequest& r) { r.reassociation = Reassociation{{Extent{2, 0}}}; });
  CHECK(v.correct);
  CHECK(v.level >= 1);
  CHECK(has_flag(v, "reassociated-tolerance"));
  bool noted = false;
  for (const auto& n : v.notes) noted = noted || n.find("declares reordered float sums (terms=p2)") != std::string::npos;
  CHECK(noted);
  CHECK(v.reproduce.find("--reassociates p2") != std::string::npos);
}

TEST_CASE("fake GPU: honest candidates pass, with recomputed grids") {
  SUBCASE("block 256 + __launch_bounds__") {
    Verdict v = scale_add("honest_scale_add_launch_bounds");
    CHECK(v.correct);
    CHECK(v.level == 1);  // the same work: the modelled clock says the same time
    CHECK(v.candidate_launch.block[0] == 256);
    CHECK(v.candidate_launch.grid[0] == 256);  // 65536 / 256
  }
  SUBCASE("float4 with coarsen=(4,1,1)") {
    Verdict v = scale_add("honest_scale_add_vec4");
    CHECK(v.correct);
    CHECK(v.candidate_launch.grid[0] == 128);  // 512 blocks of 128 / 4
    // Modelled faster: a winner, so compute-sanitizer ran (the fake one) and found nothing.
    CHECK(v.level == 2);
    REQUIRE(v.sanitizer);
    CHECK(v.sanitizer->ran);
    CHECK(v.sanitizer->clean);
    CHECK(v.offerable());
  }
  SUBCASE("a winner no faster than one already memchecked is held, not memchecked") {
    Verdict v = run("scale_add", "scale_add", "honest_scale_add_vec4.cu", "scale_add",
                    [](VerifyRequest& r) { r.sanitize_min_speedup = 1000; });
    CHECK(v.correct);
    CHECK(v.level == 2);
    REQUIRE(v.sanitizer);
    CHECK_FALSE(v.sanitizer->ran);
    CHECK(v.sanitizer->note.find("skipped: not faster than 1000.00x") != std::string::npos);
    CHECK(v.stage_ms.count("sanitizer") == 0);
    CHECK(has_flag(v, "sanitizer-not-run"));
    CHECK_FALSE(v.offerable());
    // Faster than the bar: memchecked and offerable as before.
    Verdict w = run("scale_add", "scale_add", "honest_scale_add_vec4.cu", "scale_add",
                    [](VerifyRequest& r) { r.sanitize_min_speedup = 1.01; });
    REQUIRE(w.sanitizer);
    CHECK(w.sanitizer->ran);
    CHECK(w.offerable());
    CHECK(w.sanitizer->phase_ms.count("kernel") == 1);
  }
  SUBCASE("two captured shapes are both input sets") {
    Verdict v = run("scale_add_x2", "scale_add", "honest_scale_add_vec4.cu", "scale_add");
    CHECK(v.correct);
    CHECK(v.input_sets.at(1).origin == "captured launch 1");
  }
  SUBCASE("tiled transposes") {
    for (const char* c : {"honest_transpose_tiled.cu", "honest_transpose_padded.cu", "honest_transpose_16x16.cu"}) {
      Verdict v = run("transpose", "transpose", c, "transpose_naive");
      CHECK(v.correct);
    }
  }
  SUBCASE("warp-shuffle reduction: another summation order, within tolerance") {
    Verdict v = run("row_sum", "row_sum", "honest_row_sum_shuffle.cu", "row_sum");
    CHECK(v.correct);
  }
  SUBCASE("pointer inside a struct; in-place update") {
    CHECK(run("memory_kinds", "memory_kinds", "honest_scale_span.cu", "scale_span").correct);
    CHECK(run("memory_kinds", "memory_kinds", "honest_add_one_managed.cu", "add_one").correct);
  }
}

TEST_CASE("fake GPU: candidates that cannot run are incorrect with the reason") {
  test::TempDir dir;
  SUBCASE("does not compile") {
    std::ofstream(dir.path() / "bad.cu") << "__global__ void scale_add(const float* x) { undefined_name; }\n";
    Verdict v = run("scale_add", "scale_add", dir.path() / "bad.cu", "scale_add");
    CHECK(v.status == VerdictStatus::Verified);
    CHECK(v.level == -1);
    CHECK(mentions(v, "does not compile"));
  }
  SUBCASE("another parameter list") {
    std::ofstream(dir.path() / "params.cu")
        << "__global__ void scale_add(const float* x, float* out, int n) { int i = threadIdx.x; if (i < n) out[i] = x[i]; }\n";
    Verdict v = run("scale_add", "scale_add", dir.path() / "params.cu", "scale_add");
    CHECK(v.level == -1);
    CHECK(v.status == VerdictStatus::Verified);
  }
  SUBCASE("a block too large for the hardware") {
    std::ofstream(dir.path() / "big.cu") << "// warplens: block=(2048,1,1)\n" << test::kScaleAddSource;
    Verdict v = run("scale_add", "scale_add", dir.path() / "big.cu", "scale_add");
    CHECK(v.level == -1);
    CHECK(mentions(v, "2048 threads"));
  }
  SUBCASE("a malformed directive") {
    std::ofstream(dir.path() / "directive.cu") << "// warplens: blocks=(256)\n" << test::kScaleAddSource;
    Verdict v = run("scale_add", "scale_add", dir.path() / "directive.cu", "scale_add");
    CHECK(v.level == -1);
    CHECK(mentions(v, "unknown key 'blocks'"));
  }
}

TEST_CASE("fake GPU: a capture that the original does not reproduce is refused") {
  test::TempDir dir;
  fs::path copy = dir.path() / "capture";
  fs::copy(capture("scale_add"), copy, fs::copy_options::recursive);
  // Pretend the program's output differed from what the source computes.
  auto m = warplens::capture::load_capture(copy);
  auto& a = m.launches[0].allocations[2];
  auto bytes = warplens::capture::read_blob(copy, a.after_blob, a.bytes, a.after_hash);
  float wrong = 42.0f;
  std::memcpy(bytes.data(), &wrong, 4);
  warplens::capture::write_blob(copy, a.after_blob, bytes.data(), bytes.size());
  a.after_hash = warplens::capture::content_hash(bytes.data(), bytes.size());
  warplens::capture::save_manifest(copy, m);
  VerifyRequest r;
  r.capture_dir = copy;
  r.original_source = kCases / "scale_add.cu";
  r.candidate_source = kCases / "scale_add.cu";
  r.kernel = "scale_add";
  Verdict v = verify(r);
  CHECK(v.status == VerdictStatus::Error);
  CHECK(v.error.find("does not reproduce the captured outputs") != std::string::npos);
}

namespace {
fs::path recorded_small_capture() { return test::recorded_fixtures_dir() / "capture_small" / "scale_add"; }
bool have_recorded_small_capture() {
  std::error_code ec;
  return fs::exists(recorded_small_capture() / "manifest.json", ec);
}
}  // namespace

TEST_CASE("fake GPU: the recorded H200 capture replays through the whole pipeline" *
          doctest::skip(!have_recorded_small_capture())) {
  // Bytes the H200 really read and wrote (scale_add, 2048 and 2045
  // elements), through nvcc, both replay children and every check. The
  // original must reproduce the GPU's outputs on the CPU stand-in (the
  // reference child refuses the capture otherwise).
  auto verify_on_recording = [](const std::string& candidate) {
    VerifyRequest r;
    r.capture_dir = recorded_small_capture();
    r.original_source = kCases / "scale_add.cu";
    r.candidate_source = kCases / "candidates" / candidate;
    r.kernel = "scale_add";
    r.timed_runs = 10;
    r.timeout_s = 60;
    Verdict v = verify(r);
    MESSAGE(candidate << ": level " << v.level << " " << (v.reasons.empty() ? v.error : v.reasons.front()));
    return v;
  };
  Verdict self = verify_on_recording("../scale_add.cu");
  REQUIRE(self.status == VerdictStatus::Verified);
  CHECK(self.correct);
  REQUIRE(self.reproduction.size() == 2);
  for (const auto& r : self.reproduction) CHECK(r.reproduced);

  Verdict honest = verify_on_recording("honest_scale_add_vec4.cu");
  CHECK(honest.correct);
  REQUIRE(honest.input_sets.size() == 7);  // 5 + 2 shape variations of launch 0
  CHECK(honest.input_sets[1].origin == "captured launch 1");

  // Launch 0's output is the constant 3.0; launch 1's is not.
  Verdict constant = verify_on_recording("exploit_constant.cu");
  CHECK(constant.level == -1);
  CHECK(constant.input_sets.at(0).passed);
  CHECK_FALSE(constant.input_sets.at(1).passed);
}
