// Token-level comparison of the candidate kernel's source with the original's,
// for cheats that running on captured inputs cannot see: hard-coding a
// captured scalar argument (a shape the capture happens to use) and ignoring
// a parameter the original reads. Such candidates are demoted to level -1
// with the reason stated. Also notes (without demoting) dynamic parallelism
// and half-precision conversions that the original does not use.
//
// The facts come from source_tokens (macros and named constants used by the
// body are expanded, comments and strings never count). An agent with a
// real AST can pass its own KernelSourceFacts instead.
#pragma once

#include <string>
#include <vector>

#include "agent/verifier/kernel_signature.h"
#include "agent/verifier/source_tokens.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

struct NumericLiteral {
  double value = 0;
  bool is_integer = true;
  std::string spelling;
  int line = 0;
};

struct KernelSourceFacts {
  bool found = false;
  std::string kernel;
  std::vector<std::string> param_names;
  std::vector<int> param_uses;            // identifier uses in the body, per parameter
  std::vector<NumericLiteral> literals;   // numeric literals the body uses
  bool device_side_launch = false;        // <<< or the device runtime's launch API in the body
  bool half_precision = false;            // half / bfloat16 types or conversions in the body
};

KernelSourceFacts kernel_source_facts(const TokenizedSource& source, const KernelDefinition& kernel);

// A scalar argument of the captured launch, by value.
struct CapturedScalar {
  int param = 0;
  bool is_integer = true;
  double value = 0;
};
std::vector<CapturedScalar> captured_scalars(const capture::LaunchRecord& launch, const KernelSignature& signature);

// Whether scalar parameters `p` and `q` hold the same value in every record:
// the same bytes, or (integers of different widths: a producer's
// `unsigned int n` and a consumer's `long long n` passed the same count) the
// same value. A fused kernel that reads one of them reads the other.
bool same_scalar_in_every_record(const std::vector<capture::LaunchRecord>& records, const KernelSignature& signature,
                                 std::size_t p, std::size_t q);

struct SourceFinding {
  std::string rule;      // "ignored-parameter", "hard-coded-argument", "device-side-launch", "half-precision",
                         // "device-state", "not-compared"
  bool demotes = false;  // true: the verdict becomes -1 with `message` as the reason
  std::string message;
  int param = -1;
  int line = 0;          // candidate source line, when known
  bool needs_review = false;  // true: never offered automatically (a person must look at it)
};

std::vector<SourceFinding> compare_kernel_sources(const KernelSourceFacts& original,
                                                  const KernelSourceFacts& candidate,
                                                  const std::vector<CapturedScalar>& scalars);

}  // namespace warplens::verifier
