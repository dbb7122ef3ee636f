// The candidate replay's state, shared by its correctness phase
// (replay_candidate.cpp) and its timing phase (replay_timing.cpp).
//
// Per captured launch used: the captured contents once in device memory, an
// original side and a candidate side (own allocations, guard bands), and a
// copy of the candidate's first run for the determinism check. The
// original's results are recomputed on the GPU right after each candidate
// run, on the same freshly prepared inputs, compared there, and scrubbed
// before the candidate runs again: they are never in this process's device
// memory while a candidate kernel runs.
#pragma once

#include <memory>
#include <vector>

#include "agent/verifier/replay/buffer_ops.h"
#include "agent/verifier/replay/gpu_lock.h"
#include "agent/verifier/replay/replay_capture.h"
#include "agent/verifier/replay/replay_modes.h"
#include "agent/verifier/replay/replay_sets.h"

namespace warplens::replay {

struct LaunchState {
  const verifier::LaunchLayout* layout = nullptr;
  const capture::LaunchRecord* launch = nullptr;
  std::unique_ptr<Pristine> pristine;
  std::unique_ptr<ReplaySide> original;
  std::unique_ptr<ReplaySide> candidate;
  std::vector<DeviceBuffer> kept;  // the candidate's run 1, for the determinism check
  std::vector<bool> guards_unchecked;
  std::vector<bool> elided;        // a fused candidate's temporary: not checked (plan.elided)
};

class CandidateReplay {
 public:
  CandidateReplay(const verifier::ReplayPlan& plan, const verifier::ReferenceResult& reference,
                  verifier::CandidateResult& result, const EmergencyExit& on_hang);
  void run();

 private:
  bool load();
  bool correctness();
  void timing();  // replay_timing.cpp

  // The candidate's run on `side`'s prepared inputs; false (failure set)
  // when it faults; hangs end the process.
  bool run_candidate(LaunchState& ls, const std::string& where);
  void run_original(LaunchState& ls, const std::string& where);
  // Every allocation of the candidate's run against the original's run
  // right after it, from the same poison.
  // `nan_equal`: NaN where the original wrote NaN counts as equal (the timing
  // runs' fresh inputs; see replay_timing.cpp). The correctness sets keep the
  // plan's rule.
  // `set` gives the launch's integer arguments for a declared
  // reassociation's term count (plan.reassociation).
  verifier::RunCheck check_run(int run, int poison, LaunchState& ls, const std::vector<verifier::BufferRole>& roles,
                               const SetContext& set, bool nan_equal = false);
  // c.comparison again with a declared reassociation's widened tolerance
  // (reassociation.h) when it failed by tolerance alone; `expected` 0: the
  // original's result.
  void widen_for_reassociation(LaunchState& ls, const std::vector<verifier::BufferRole>& roles, const SetContext& set,
                               std::size_t a, const verifier::Tolerance& tolerance,
                               const verifier::CompareOptions& o, verifier::BufferCheck& c, CUdeviceptr expected = 0);
  std::string guard_failure(LaunchState& ls, int poison);
  void reload_candidate();
  LaunchState& state_for(int launch);
  void finish();

  const verifier::ReplayPlan& plan_;
  const verifier::ReferenceResult& reference_;
  verifier::CandidateResult& result_;
  const EmergencyExit& on_hang_;
  std::chrono::steady_clock::time_point t0_;

  std::unique_ptr<CapturedLaunches> capture_;
  std::unique_ptr<Context> ctx_;
  std::unique_ptr<GpuLock> lock_;
  verifier::DeviceSummary device_;
  std::unique_ptr<Stream> stream_;
  CUstream s_ = nullptr;
  std::unique_ptr<BufferOps> ops_;
  std::unique_ptr<Module> original_module_, candidate_module_;
  CUfunction original_ = nullptr, candidate_ = nullptr;
  std::vector<CUfunction> originals_;  // one per part of a launch sequence; original_ is the first
  std::vector<LaunchState> launches_;
  std::uint64_t pristine_hash_ = 0;
};

// The integrity of the captured contents kept in device memory.
std::uint64_t pristine_hash(BufferOps& ops, const std::vector<LaunchState>& launches, CUstream s);

}  // namespace warplens::replay
