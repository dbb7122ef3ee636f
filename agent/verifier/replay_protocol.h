// What the verifier (parent, no CUDA) and warplens-replay (child, driver API)
// exchange through files in a work directory:
//
//   plan.json        parent -> both children: cubins, kernels, input sets
//                    (captured, fresh, shape variations), layouts,
//                    tolerance, guard bands, timing settings
//   reference.json   reference child -> parent, candidate child: per input
//                    set, each allocation's role, whether the original
//                    reproduces, is deterministic, or fails a shape variation
//                    (skipped); a hash of its outputs. Computed once per job
//                    and capture (reference_cache.h) and reused.
//   candidate.json   candidate child -> parent: every check, timing samples
//   sanitize.json    sanitize child (under compute-sanitizer) -> parent
//
// The reference (original kernel only) and the candidate run in different
// processes; the candidate process also loads the original: to time both
// interleaved, and to recompute the expected outputs on the GPU right after
// each candidate run (cheaper than moving them between processes, and the
// original's results are never in device memory while a candidate kernel
// runs). Formats are versioned with the plan and only ever grow; both sides
// are always the same build.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agent/verifier/compare.h"
#include "agent/verifier/input_generation.h"
#include "agent/verifier/launch_geometry.h"
#include "agent/verifier/launch_sequence.h"
#include "agent/verifier/reassociation.h"

namespace warplens::verifier {

inline constexpr int kReplayProtocolVersion = 1;

// warplens-replay's exit codes (the result file is written in every case).
inline constexpr int kReplayExitDone = 0;    // read the result
inline constexpr int kReplayExitError = 2;   // the replay itself failed (result.error)
inline constexpr int kReplayExitHung = 3;    // a kernel missed its deadline; ended without waiting for the GPU
inline constexpr int kReplayExitSetFailed = 4;  // reference: the original faulted on a shape variation (failed_set)
inline constexpr int kReplayExitUsage = 64;  // bad command line

struct KernelRef {
  std::string cubin;   // path of the compiled cubin
  std::string symbol;  // the captured symbol: looked up first
  std::string name;    // unqualified name: fallback when the mangling differs
};

struct InputSetSpec {
  InputSetSpec(int index_ = 0, int launch_ = 0, bool fresh_ = false, std::uint64_t seed_ = 0)
      : index(index_), launch(launch_), fresh(fresh_), seed(seed_) {}
  int index = 0;
  int launch = 0;          // captured launch it derives from (manifest index)
  bool fresh = false;      // false: exactly the captured inputs
  std::uint64_t seed = 0;  // for fresh sets
  // A shape variation (shape_variation.h): integer arguments overridden and
  // the original's grid shrunk with them (the candidate's follows from it).
  std::vector<ScalarValue> scalars;
  std::optional<LaunchGeometry> geometry;  // the original's; nullopt: captured
  std::string variation;                   // "n 1048576 -> 786431; grid (8192,1,1) -> (6144,1,1)"
  bool skipped = false;                    // set by the parent: the original failed it before
  std::string skip_reason;
  // A fresh set whose floating-point scalars keep their captured values:
  // set by the parent when the original faulted or hung with them jittered
  // (a scale that computes indices, as in an upsampling kernel).
  bool captured_scalars = false;
  std::vector<int> sequence;  // `launch` is a virtual launch: these captured launches, in program order
};
// "captured launch 0" / "fresh from launch 0 (seed 2)" / "captured launches 0+1" /
// "shape variation 1 of launch 0 (seed 6): n 1048576 -> 786431"
std::string describe(const InputSetSpec& s);

struct ReplayPlan {
  int version = kReplayProtocolVersion;
  std::string capture_dir;
  std::string work_dir;
  KernelRef original;
  KernelRef candidate;
  LaunchOverride candidate_launch;
  std::vector<LaunchLayout> layouts;       // one per captured launch used
  std::vector<InputSetSpec> input_sets;
  Tolerance tolerance;
  int warmup_runs = 3;
  int timed_runs = 30;
  int timing_set = 0;                      // index into input_sets
  double run_deadline_s = 10;              // one kernel run longer than this counts as hung
  std::uint64_t l2_flush_bytes = 0;        // 0: twice the device's L2 plus 1 MiB
  std::uint64_t guard_bytes = 1 << 20;     // poisoned bands before and after every replayed allocation
  std::string pipeline = "device";         // "device": buffer work as GPU kernels; "host": host loops (the pre-change method)
  std::uint64_t timing_seed = 0;           // seeds of the timed runs' fresh sets; 0: drawn at random

  // Launch sequences (launch_sequence.h), all empty for a single kernel:
  std::vector<LaunchSequence> sequences;   // the virtual launches that layouts and input sets name
  std::vector<KernelRef> original_steps;   // the original's kernels, one per part, launched in order
                                           // (empty: `original` alone)
  std::vector<ParamSource> candidate_params;  // the candidate's parameters (empty: the unit's own)
  std::vector<ParamSource> elided;         // pointer parameters whose allocation the candidate no
                                           // longer writes (a fused temporary): not checked
  // Set: the candidate declares reordered float sums (reassociation.h); a
  // float output that fails the tolerance is compared again with the
  // widened one.
  std::optional<Reassociation> reassociation;

  const LaunchLayout* layout_for(int launch) const;
  const LaunchSequence* sequence(int launch) const;  // nullptr for a captured launch
};

enum class BufferRole : std::uint8_t {
  Input,   // the original leaves it bit-identical: so must the candidate
  Output,  // the original's result does not depend on its prior contents: poisoned before every run
  InOut,   // read and written: initialised with the inputs, compared with tolerance
};
const char* to_string(BufferRole r);

struct ReferenceBuffer {
  BufferRole role = BufferRole::Input;
  std::string expected_blob;     // protocol 1's files (old recordings); empty now
  std::uint64_t expected_hash = 0;
  ByteRanges unwritten;          // protocol 1: bytes the original never writes
  std::uint64_t device_hash = 0; // element_ops.h hash of the original's result from poison A (not inputs)
};

struct ReferenceSet {
  int index = 0;
  std::vector<ReferenceBuffer> buffers;
  bool deterministic = true;     // two runs of the original agreed bit for bit
  std::string nondeterminism;    // where they did not
  bool skipped = false;          // a shape variation the original itself fails
  std::string skip_reason;
  LaunchGeometry geometry;       // the original's launch on this set
};

struct Reproduction {
  int launch = 0;
  bool reproduced = true;        // replaying the captured inputs gives the captured outputs
  std::string detail;
};

struct FunctionInfo {
  std::string symbol;
  int num_regs = 0;
  int static_shared_bytes = 0;
  int local_bytes = 0;
  int max_threads_per_block = 0;
};

struct DeviceSummary {
  std::string name;
  std::string arch;              // "sm_90"
  int cc_major = 0;
  int cc_minor = 0;
  std::uint64_t l2_bytes = 0;
  int sm_count = 0;
  int driver_version = 0;
};

struct ReferenceResult {
  bool ok = false;
  std::string error;
  DeviceSummary device;
  FunctionInfo function;
  std::vector<Reproduction> reproduction;
  std::vector<std::vector<BufferRole>> roles;  // per plan layout
  std::vector<ReferenceSet> sets;              // per plan input set
  bool deterministic = true;
  double max_run_ms = 0;                       // slowest single run of the original
  double wall_ms = 0;
  // Per layout and allocation: the original itself writes into the guard
  // bands (past its allocation), so they are not checked for the candidate.
  std::vector<std::vector<bool>> guards_unchecked;
  std::vector<std::string> notes;
  int failed_set = -1;                         // the set whose fault or hang ended this child
  std::string pipeline;
};

struct BufferCheck {
  int allocation = 0;
  std::string name;              // "out (param 2)"
  BufferRole role = BufferRole::Input;
  std::string check;             // "value", "unchanged", "determinism"
  BufferComparison comparison;
  // > 0: the strict comparison failed and this is the extra atol a declared
  // reassociation of `reassociated_terms` terms allowed (reassociation.h);
  // `comparison` is then the widened one.
  double widened_atol = 0;
  std::uint64_t reassociated_terms = 0;
};

struct RunCheck {
  int run = 1;                   // 1 or 2: the same inputs, different poison
  bool passed = true;
  std::vector<BufferCheck> buffers;
};

struct IntegerArg {
  int param = 0;
  std::string name;
  std::int64_t value = 0;
  std::int64_t captured = 0;     // the captured launch's value
};

// What one input set exercised: both launches and every integer argument.
struct SetShape {
  bool recorded = false;         // false: an older verifier that did not record shapes
  LaunchGeometry original;
  LaunchGeometry candidate;
  std::vector<IntegerArg> integer_args;
  std::string variation;         // empty: the captured shape
};

struct CandidateSet {
  int index = 0;
  bool skipped = false;          // not run: the original fails this shape variation
  std::string skip_reason;
  SetShape shape;
  bool passed = true;
  std::vector<RunCheck> runs;
  bool deterministic = true;
  std::optional<BufferCheck> determinism;  // the first difference between the two runs
  std::string failure;                      // one sentence when !passed
  std::vector<LaunchGeometry> original_launches;   // what the original launched on this set, per step
  std::vector<LaunchGeometry> candidate_launches;  // what the candidate launched (after its launch changes)
};

struct TimingSamples {
  std::vector<double> original_us;          // start -> end event on the launch stream
  std::vector<double> candidate_us;
  std::vector<double> original_device_us;   // start -> event after a device-wide synchronise
  std::vector<double> candidate_device_us;
  int warmup = 0;
  std::uint64_t l2_flush_bytes = 0;
  int outputs_checked = 0;                  // timed candidate runs whose outputs were verified
  std::string output_failure;               // a timed run that produced something else
  int fresh_sets = 0;                       // distinct fresh input sets the warm-up and timed runs used
  std::uint64_t seed = 0;                   // their base seed (random unless the plan fixes it)
  bool module_reloaded = false;             // the candidate's module was loaded anew for timing
};

struct CandidateResult {
  bool ok = false;               // false: the replay itself failed (see error)
  std::string error;
  std::string stage;             // "load", "correctness", "timing", "done"
  bool correct = false;
  std::string failure;           // why the candidate is incorrect (also faults and hangs)
  bool timed_out = false;
  std::string fault;             // CUDA error the candidate caused, e.g. CUDA_ERROR_ILLEGAL_ADDRESS
  std::vector<CandidateSet> sets;
  std::optional<TimingSamples> timing;
  LaunchGeometry original_geometry;
  LaunchGeometry candidate_geometry;
  FunctionInfo original_function;
  FunctionInfo candidate_function;
  double wall_ms = 0;
  std::string pipeline;
};

// The candidate replayed under compute-sanitizer: exact-size allocations (no
// guard bands, so every access past an allocation is the sanitizer's to
// see), the captured set and every shape variation, one run each.
struct SanitizeResult {
  bool ok = false;               // the replay itself worked (the sanitizer's report is read separately)
  std::string error;
  int runs = 0;
  std::string fault;             // a CUDA error the candidate caused
  std::string failure;
  double wall_ms = 0;
  // Where wall_ms went, summed over the runs: reading the capture, making
  // the input sets on the host (poison included), copying them to the
  // device, and the candidate's launches under the sanitizer.
  double load_ms = 0, prepare_ms = 0, upload_ms = 0, kernel_ms = 0;
};

struct DeviceProbe {
  bool ok = false;
  std::string error;
  DeviceSummary device;
};

// --- files ----------------------------------------------------------------
// All throw std::runtime_error naming the file on failure.
std::string to_json_text(const ReplayPlan& v);
std::string to_json_text(const ReferenceResult& v);
std::string to_json_text(const CandidateResult& v);
std::string to_json_text(const DeviceProbe& v);
std::string to_json_text(const SanitizeResult& v);
ReplayPlan parse_replay_plan(const std::string& text);
ReferenceResult parse_reference_result(const std::string& text);
CandidateResult parse_candidate_result(const std::string& text);
DeviceProbe parse_device_probe(const std::string& text);
SanitizeResult parse_sanitize_result(const std::string& text);

std::string read_text_file(const std::filesystem::path& path);
void write_text_file(const std::filesystem::path& path, const std::string& text);  // atomic rename

}  // namespace warplens::verifier
