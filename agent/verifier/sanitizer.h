// compute-sanitizer (--tool memcheck, from the CUDA toolkit) over a winner
// before it is offered: guard bands catch writes just past an allocation,
// the sanitizer every out-of-bounds or misaligned access, reads included.
// The candidate is replayed alone on exact-size allocations (warplens-replay
// sanitize) under the sanitizer; any error it reports, or a fault, demotes
// the candidate to -1 with the sanitizer's message in the evidence.
#pragma once

#include <filesystem>
#include <stop_token>
#include <string>

#include "agent/verifier/replay_protocol.h"

namespace warplens::verifier {

// `configured`, else $WARPLENS_COMPUTE_SANITIZER, else next to nvcc
// (<cuda>/bin/compute-sanitizer, <cuda>/compute-sanitizer/compute-sanitizer),
// else on PATH; empty when none exists.
std::string find_compute_sanitizer(const std::string& configured, const std::string& nvcc);

struct SanitizerRun {
  bool started = false;     // the sanitizer ran and the replay wrote its result
  bool clean = false;       // no error reported, no fault
  int errors = 0;           // "ERROR SUMMARY: N errors"
  std::string report;       // the first reported error, a few lines
  std::string command;
  std::string problem;      // !started: why
  SanitizeResult replay;
  double ms = 0;
};

SanitizerRun run_compute_sanitizer(const std::string& sanitizer, const std::string& replay_binary,
                                   const std::filesystem::path& plan, const std::filesystem::path& reference,
                                   const std::filesystem::path& work_dir, double timeout_s, std::stop_token stop);

// Error count of a memcheck log ("========= ERROR SUMMARY: 3 errors"; -1 when
// there is no summary line) and its first reported error (the "=========" lines
// from the first "Invalid"/"Program hit"/error line, up to 6).
int sanitizer_error_count(const std::string& log, std::string* first_error);

}  // namespace warplens::verifier
