// The verifier's answer and its evidence. Everything needed to understand
// (and, with `reproduce`, to re-run) a verdict: input sets and what was
// checked on each, tolerances, worst errors, timing medians and spreads,
// reward level and reasons. Serialised as "warplens-verdict" version 1
// (docs/verifier.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/source_comparison.h"
#include "agent/verifier/timing_stats.h"

namespace warplens::verifier {

inline constexpr int kVerdictFormatVersion = 1;

enum class VerdictStatus : std::uint8_t {
  Verified,   // a level was decided (including -1)
  Error,      // could not verify: no GPU, bad capture, original does not compile or replay
  Cancelled,
};
const char* to_string(VerdictStatus s);

struct CompileEvidence {
  bool attempted = false;
  bool ok = false;
  bool relocatable = false;
  std::string command;
  std::string log;
  double ms = 0;
};

struct InputSetEvidence {
  int index = 0;
  std::string origin;                 // "captured launch 0", "fresh from launch 0 (seed 3)", "shape variation ..."
  SetShape shape;                     // the grids, blocks and integer arguments this set exercised
  bool skipped = false;               // a shape variation the original itself fails: not run
  std::string skip_reason;
  bool checked = false;               // false: not reached (an earlier set failed) or skipped
  bool passed = false;
  bool deterministic = true;
  std::string failure;
  std::vector<BufferCheck> buffers;   // per allocation: the worse of the two runs
  // What ran on this set: the original's launches (two for a fused pair) and
  // the candidate's, after its launch changes.
  std::vector<LaunchGeometry> original_launches;
  std::vector<LaunchGeometry> candidate_launches;
};

struct TimingEvidence {
  std::string method;                 // how the numbers were taken, one line
  std::string basis;                  // "launch-stream" or "device-idle"
  TimingSummary original;             // on the basis used
  TimingSummary candidate;
  TimingSummary original_stream;      // both bases, for the record
  TimingSummary candidate_stream;
  TimingSummary original_device;
  TimingSummary candidate_device;
  int warmup = 0;
  std::uint64_t l2_flush_bytes = 0;
  int outputs_checked = 0;
  int fresh_sets = 0;                     // distinct never-seen input sets the warm-up and timed runs used
  std::uint64_t seed = 0;                 // their base seed (drawn at random unless fixed)
  bool module_reloaded = false;           // the candidate's module loaded anew before timing
  std::optional<TimingSummary> eager;     // PyTorch eager, same method
  std::optional<TimingSummary> compiled;  // torch.compile, same method
  std::string pytorch_note;
};

// compute-sanitizer memcheck over a winner (sanitizer.h).
struct SanitizerEvidence {
  bool ran = false;
  bool clean = false;
  int errors = 0;
  std::string report;                 // the first error the sanitizer reported
  std::string command;
  std::string note;                   // why it did not run, or did not finish
  int runs = 0;                       // candidate runs under the sanitizer
  double ms = 0;
  // Where ms went (the replay's own account; the rest is the sanitizer's
  // start-up and tear-down): load, prepare, upload, kernel, replay (all).
  std::map<std::string, double> phase_ms;
};

struct Verdict {
  int format_version = kVerdictFormatVersion;
  VerdictStatus status = VerdictStatus::Error;
  int level = -1;                     // the reward level after demotion
  int measured_level = -1;            // before source-comparison demotion
  bool correct = false;
  double speedup = 0;                 // original / candidate median
  bool needs_review = false;          // held for review: > 1000x, > 10x without complete evidence, device state, ...
  std::vector<std::string> reasons;   // why this level (or the error), in order
  std::vector<std::string> flags;     // machine-readable: "implausible-speedup", ...
  std::vector<SourceFinding> source_findings;
  std::string error;                  // status Error: what went wrong

  // Provenance.
  std::string kernel;
  std::string symbol;
  std::string capture_dir;
  std::string original_source;
  std::string candidate_source;
  std::string pytorch_reference;
  int timing_launch = 0;
  DeviceSummary device;
  Tolerance tolerance;
  LaunchGeometry original_launch;
  LaunchGeometry candidate_launch;
  FunctionInfo original_function;
  FunctionInfo candidate_function;
  CompileEvidence original_compile;
  CompileEvidence candidate_compile;
  std::vector<Reproduction> reproduction;
  bool reference_reused = false;      // the original's compile and reference came from the cache
  std::string pipeline;               // "device" or "host"
  std::string shapes_note;            // why shapes were (partly) not varied
  std::vector<InputSetEvidence> input_sets;
  std::optional<SanitizerEvidence> sanitizer;
  std::optional<TimingEvidence> timing;
  std::vector<std::string> notes;
  std::string reproduce;              // one command that re-runs this verification
  double wall_ms = 0;
  std::map<std::string, double> stage_ms;

  bool offerable() const { return status == VerdictStatus::Verified && level >= 2 && !needs_review; }
};

std::string to_json_text(const Verdict& v);
Verdict parse_verdict(const std::string& json_text);  // throws std::runtime_error

// A few lines for humans: level, reasons, worst error, medians.
std::string summary_text(const Verdict& v);

}  // namespace warplens::verifier
