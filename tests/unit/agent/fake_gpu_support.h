// Shared by the fake-GPU verifier tests: synthetic captures of the case
// programs at CPU-friendly sizes, one verify() call, and what to look for in
// a verdict.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "agent/verifier/verifier.h"
#include "bench/synthetic_captures.h"
#include "tests/unit/agent/verifier_test_support.h"

namespace warplens::verifier::fake {

namespace fs = std::filesystem;

inline const fs::path kCases = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "gpu" / "verifier_cases";

inline gpu::SyntheticSizes small_sizes() {
  gpu::SyntheticSizes small;
  small.scale_n = 1 << 16;
  small.transpose_dim = 256;
  small.row_sum_rows = 64;
  small.gemm_n = 64;
  small.axpy_n = 1 << 16;
  small.fp64_n = 1 << 14;
  small.fp64_rows = 64;
  return small;
}

inline fs::path capture(const std::string& key) {
  static test::TempDir dir;
  static std::map<std::string, fs::path> made;
  auto it = made.find(key);
  if (it != made.end()) return it->second;
  fs::path d = dir.path() / key;
  if (!gpu::write_synthetic_capture(key, d, small_sizes())) throw std::runtime_error("no synthetic capture " + key);
  return made[key] = d;
}

inline Verdict run(const std::string& key, const std::string& original, const fs::path& candidate,
                   const std::string& kernel, const std::function<void(VerifyRequest&)>& tweak = {}) {
  VerifyRequest r;
  r.capture_dir = capture(key);
  r.original_source = kCases / (original + ".cu");
  r.candidate_source = candidate.is_absolute() ? candidate : kCases / "candidates" / candidate;
  r.kernel = kernel;
  r.timed_runs = 10;
  r.timeout_s = 60;
  // WARPLENS_TEST_KEEP_WORK=1 keeps each verification's work directory (its
  // path is in the verdict's notes) for debugging.
  if (const char* keep = std::getenv("WARPLENS_TEST_KEEP_WORK"); keep && *keep == '1') r.keep_work_dir = true;
  if (tweak) tweak(r);
  Verdict v = verify(r);
  for (const auto& n : v.notes)
    if (r.keep_work_dir) MESSAGE("note: " << n);
  MESSAGE(candidate.filename().string() << ": level " << v.level << " (measured " << v.measured_level << ") "
                                        << (v.reasons.empty() ? v.error : v.reasons.back()));
  return v;
}

inline Verdict scale_add(const std::string& candidate) {
  return run("scale_add", "scale_add", candidate + ".cu", "scale_add");
}

inline bool mentions(const Verdict& v, const std::string& text) {
  for (const auto& r : v.reasons)
    if (r.find(text) != std::string::npos) return true;
  return v.error.find(text) != std::string::npos;
}

inline bool failed_with(const Verdict& v, Problem p) {
  for (const auto& s : v.input_sets)
    for (const auto& b : s.buffers)
      if (!b.comparison.ok && b.comparison.worst && b.comparison.worst->problem == p) return true;
  return false;
}

inline bool has_flag(const Verdict& v, const std::string& flag) {
  return std::find(v.flags.begin(), v.flags.end(), flag) != v.flags.end();
}

inline bool has_finding(const Verdict& v, const std::string& rule) {
  for (const auto& f : v.source_findings)
    if (f.rule == rule) return true;
  return false;
}

// The first input set that failed, or nullptr.
inline const InputSetEvidence* failed_set(const Verdict& v) {
  for (const auto& s : v.input_sets)
    if (s.checked && !s.passed) return &s;
  return nullptr;
}

inline int checked_variations(const Verdict& v) {
  int n = 0;
  for (const auto& s : v.input_sets) n += s.checked && !s.shape.variation.empty() ? 1 : 0;
  return n;
}

}  // namespace warplens::verifier::fake
