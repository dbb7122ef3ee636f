// What the verifier (parent, no CUDA) and warplens-replay (child, driver API)
// exchange through files in a work directory:
//
//   plan.json        parent -> both children: cubins, kernels, input sets,
//                    layouts, tolerance, timing settings
//   reference.json   reference child -> parent, candidate child: per input
//                    set, each allocation's role, expected contents (blobs
//                    under ref/) and the bytes the original never writes
//   candidate.json   candidate child -> parent: every check, timing samples
//
// The reference (original kernel only) and the candidate run in different
// processes; the candidate process also loads the original, to time both
// interleaved in one process. Formats are versioned with the plan; both
// sides are always the same build.
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

namespace warplens::verifier {

inline constexpr int kReplayProtocolVersion = 1;

// warplens-replay's exit codes (the result file is written in every case).
inline constexpr int kReplayExitDone = 0;    // read the result
inline constexpr int kReplayExitError = 2;   // the replay itself failed (result.error)
inline constexpr int kReplayExitHung = 3;    // a kernel missed its deadline; ended without waiting for the GPU
inline constexpr int kReplayExitUsage = 64;  // bad command line

struct KernelRef {
  std::string cubin;   // path of the compiled cubin
  std::string symbol;  // the captured symbol: looked up first
  std::string name;    // unqualified name: fallback when the mangling differs
};

struct InputSetSpec {
  int index = 0;
  int launch = 0;          // captured launch it derives from (manifest index)
  bool fresh = false;      // false: exactly the captured inputs
  std::uint64_t seed = 0;  // for fresh sets
  std::vector<int> sequence;  // `launch` is a virtual launch: these captured launches, in program order
};
// "captured launch 0" / "fresh from launch 0 (seed 2)" / "captured launches 0+1"
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

  // Launch sequences (launch_sequence.h), all empty for a single kernel:
  std::vector<LaunchSequence> sequences;   // the virtual launches that layouts and input sets name
  std::vector<KernelRef> original_steps;   // the original's kernels, one per part, launched in order
                                           // (empty: `original` alone)
  std::vector<ParamSource> candidate_params;  // the candidate's parameters (empty: the unit's own)
  std::vector<ParamSource> elided;         // pointer parameters whose allocation the candidate no
                                           // longer writes (a fused temporary): not checked

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
  std::string expected_blob;     // relative to the work dir; empty for inputs
  std::uint64_t expected_hash = 0;
  ByteRanges unwritten;          // Output: bytes the original never writes
};

struct ReferenceSet {
  int index = 0;
  std::vector<ReferenceBuffer> buffers;
  bool deterministic = true;     // two runs of the original agreed bit for bit
  std::string nondeterminism;    // where they did not
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
};

struct BufferCheck {
  int allocation = 0;
  std::string name;              // "out (param 2)"
  BufferRole role = BufferRole::Input;
  std::string check;             // "value", "unchanged", "determinism"
  BufferComparison comparison;
};

struct RunCheck {
  int run = 1;                   // 1 or 2: the same inputs, different poison
  bool passed = true;
  std::vector<BufferCheck> buffers;
};

struct CandidateSet {
  int index = 0;
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
ReplayPlan parse_replay_plan(const std::string& text);
ReferenceResult parse_reference_result(const std::string& text);
CandidateResult parse_candidate_result(const std::string& text);
DeviceProbe parse_device_probe(const std::string& text);

std::string read_text_file(const std::filesystem::path& path);
void write_text_file(const std::filesystem::path& path, const std::string& text);  // atomic rename

}  // namespace warplens::verifier
