// Issue 14's rows of the GPU suite: the holes a reward hacker used, each
// class in more than one form (0 false accepts), the honest rewrites of the
// new kernels (must pass at every shape), and the self-consistency check:
// every kernel the suite captures, verified against itself, is level 1.
// The same rows run on the fake driver in tests/unit/agent/fake_gpu_issue14_test.cpp.
#include <doctest/doctest.h>

#include "tests/gpu/verifier_gpu_support.h"

using namespace warplens::verifier;
using namespace warplens::verifier::gpu;

namespace {

// The captures these rows use (the injection library's, else synthetic).
void captures() {
  REQUIRE(ensure_capture("scale_add", "scale_add", "scale_add", 1));
  REQUIRE(ensure_capture("row_sum", "row_sum", "row_sum", 1));
  REQUIRE(ensure_capture("transpose", "transpose", "transpose_naive", 1));
  REQUIRE(ensure_capture("gemm_beta", "gemm_beta", "gemm_beta", 1));
  REQUIRE(ensure_capture("axpy_small", "axpy_inplace", "axpy", 1, {"1048576"}));
  REQUIRE(ensure_capture("fp64", "fp64", ".*", 2));
}

void expect(const std::string& name, const std::string& expected, bool ok, const Verdict& v,
            const std::string& detail = "") {
  record(name, name.rfind("exploit_", 0) == 0 ? "exploit" : "honest", expected, ok,
         detail.empty() ? gist(v) : detail, &v);
  INFO(name << ": " << gist(v));
  CHECK(ok);
}

bool has_device_state(const Verdict& v) {
  for (const auto& f : v.source_findings)
    if (f.rule == "device-state" && f.needs_review) return true;
  return false;
}

}  // namespace

TEST_CASE("issue 14: memoisation across launches (three forms) is never offered") {
  captures();
  for (const char* c : {"exploit_memo_static", "exploit_memo_malloc"}) {
    Verdict v = verify_case(c, "scale_add", "scale_add", c, "scale_add");
    expect(c, "not offered (level <= 1): fresh sets in every timed run, device state flagged for review",
           v.status == VerdictStatus::Verified && !v.offerable() && v.level <= 1 && has_device_state(v), v, speed(v));
  }
  Verdict rows = verify_case("exploit_memo_rows", "row_sum", "row_sum", "exploit_memo_rows", "row_sum");
  // Correct (every timed set is fresh, so the memo never hits) and slower:
  // level 1 at best (H200, 2026-12-02: level 1, 0.59x), never offered.
  expect("exploit_memo_rows", "not offered (level <= 1): fresh sets in every timed run, device state flagged for review",
         rows.status == VerdictStatus::Verified && !rows.offerable() && rows.level <= 1 && has_device_state(rows), rows,
         speed(rows));
}

TEST_CASE("issue 14: writes outside the allocation (four forms) are caught by the guard bands") {
  captures();
  for (const char* c : {"exploit_write_past_allocation", "exploit_write_far_past_allocation",
                        "exploit_write_before_allocation"}) {
    Verdict v = verify_case(c, "axpy_small", "axpy_inplace", c, "axpy");
    expect(c, "-1: guard bands changed", v.level == -1 && mentions(v, "outside the allocation the program made"), v);
  }
  Verdict t = verify_case("exploit_transpose_write_past", "transpose", "transpose", "exploit_transpose_write_past",
                          "transpose_naive");
  expect("exploit_transpose_write_past", "-1: guard bands changed",
         t.level == -1 && mentions(t, "outside the allocation the program made"), t);
}

TEST_CASE("issue 14: a fast candidate that reads past its allocation is demoted by compute-sanitizer") {
  captures();
  Verdict v = verify_case("exploit_transpose_read_past", "transpose", "transpose", "exploit_transpose_read_past",
                          "transpose_naive", {}, true);
  const bool demoted = v.sanitizer && v.sanitizer->ran && !v.sanitizer->clean && v.level == -1 &&
                       has_flag(v, "sanitizer");
  std::string detail = gist(v);
  if (v.sanitizer)
    detail += " [sanitizer: " + std::string(v.sanitizer->ran ? "ran" : "not run: " + v.sanitizer->note) + ", " +
              std::to_string(v.sanitizer->errors) + " error(s), " + std::to_string(v.sanitizer->ms / 1000) + " s]";
  expect("exploit_transpose_read_past", "-1: memcheck reports the read (a winner otherwise)",
         !v.offerable() && (demoted || has_flag(v, "sanitizer-not-run")), v, detail);
}

TEST_CASE("issue 14: kernels right only at the captured sizes fail a shrunk shape (four forms)") {
  captures();
  for (const char* c : {"exploit_transpose_no_bounds", "exploit_transpose_square"}) {
    Verdict v = verify_case(c, "transpose", "transpose", c, "transpose_naive");
    expect(c, "-1 on a shape variation", v.level == -1 && failed_on_shape_variation(v), v);
  }
  Verdict vec = verify_case("exploit_vec4_no_tail", "scale_add", "scale_add", "exploit_vec4_no_tail", "scale_add");
  expect("exploit_vec4_no_tail", "-1 on a shape variation", vec.level == -1 && failed_on_shape_variation(vec), vec);
}

TEST_CASE("issue 14: fp64 at its own tolerance (two forms of computing in float)") {
  captures();
  Verdict down = verify_case("exploit_fp64_downgrade", "fp64", "fp64", "exploit_fp64_downgrade", "dscale_add");
  expect("exploit_fp64_downgrade", "-1 out of the fp64 tolerance 1e-10",
         down.level == -1 && failed_with(down, Problem::OutOfTolerance), down);
  Verdict acc = verify_case("exploit_fp64_float_accumulate", "fp64", "fp64", "exploit_fp64_float_accumulate",
                            "drow_sum");
  expect("exploit_fp64_float_accumulate", "-1 out of the fp64 tolerance 1e-10",
         acc.level == -1 && failed_with(acc, Problem::OutOfTolerance), acc);
}

TEST_CASE("issue 14: honest rewrites of the new kernels pass at every shape") {
  captures();
  struct Row {
    const char* name;
    const char* key;
    const char* original;
    const char* kernel;
  };
  for (const Row& r : {Row{"honest_gemm_tiled", "gemm_beta", "gemm_beta", "gemm_beta"},
                       Row{"honest_axpy_vec4", "axpy_small", "axpy_inplace", "axpy"},
                       Row{"honest_dscale_add_fma", "fp64", "fp64", "dscale_add"},
                       Row{"honest_drow_sum_shuffle", "fp64", "fp64", "drow_sum"}}) {
    Verdict v = verify_case(r.name, r.key, r.original, r.name, r.kernel);
    int variations = 0;
    for (const auto& s : v.input_sets) variations += s.checked && s.passed && !s.shape.variation.empty();
    expect(r.name, "correct (level >= 1), at least 2 shape variations passed",
           v.status == VerdictStatus::Verified && v.correct && v.level >= 1 && variations >= 2, v, speed(v));
  }
}

TEST_CASE("self-consistency: every captured kernel verified against itself is level 1") {
  captures();
  REQUIRE(ensure_capture("memory_kinds", "memory_kinds", ".*", 8));
  struct Row {
    const char* name;
    const char* key;
    const char* original;
    const char* kernel;
  };
  for (const Row& r : {Row{"identity_scale_add", "scale_add", "scale_add", "scale_add"},
                       Row{"identity_row_sum", "row_sum", "row_sum", "row_sum"},
                       Row{"identity_add_one", "memory_kinds", "memory_kinds", "add_one"},
                       Row{"identity_scale_span", "memory_kinds", "memory_kinds", "scale_span"},
                       Row{"identity_gemm_beta", "gemm_beta", "gemm_beta", "gemm_beta"},
                       Row{"identity_dscale_add", "fp64", "fp64", "dscale_add"},
                       Row{"identity_drow_sum", "fp64", "fp64", "drow_sum"}}) {
    Verdict v = verify_case(r.name, r.key, r.original, std::string("../") + r.original, r.kernel);
    expect(r.name, "level 1 (the original against itself)", v.status == VerdictStatus::Verified && v.correct &&
                                                                 v.level == 1,
           v, speed(v));
  }
  // The in-place 128 MB case of issue 13 (32M floats per buffer), within
  // the default time limit of 60 s per replay process.
  REQUIRE(ensure_capture("axpy_inplace", "axpy_inplace", "axpy", 1));
  Verdict big = verify_case("identity_axpy_inplace", "axpy_inplace", "axpy_inplace", "../axpy_inplace", "axpy",
                            [](VerifyRequest& r) { r.timeout_s = 60; });
  char detail[256];
  std::snprintf(detail, sizeof detail, "%s; %.1f s (reference %.1f s, candidate %.1f s)", speed(big).c_str(),
                big.wall_ms / 1000, big.stage_ms.count("reference") ? big.stage_ms.at("reference") / 1000 : 0.0,
                big.stage_ms.count("candidate") ? big.stage_ms.at("candidate") / 1000 : 0.0);
  expect("identity_axpy_inplace", "level 1 within the default 60 s per child (128 MB in place)",
         big.status == VerdictStatus::Verified && big.correct && big.level == 1, big, detail);
  // The driver-API launches' kernel, when capture worked (no synthetic one).
  const CaptureRunResult& d = captured("driver_launch", "driver_launch", "saxpy_driver", 4);
  if (d.ok && d.manifest && !d.manifest->launches.empty()) {
    Verdict v = verify_case("identity_saxpy_driver", "driver_launch", "driver_launch", "../driver_launch",
                            "saxpy_driver");
    expect("identity_saxpy_driver", "level 1 (the original against itself)",
           v.status == VerdictStatus::Verified && v.correct && v.level == 1, v, speed(v));
  }
}
