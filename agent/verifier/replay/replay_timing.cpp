// The candidate replay's timing phase: original and candidate interleaved in
// this process, each with its own allocations, the GPU held exclusively.
//
// No state across runs: the candidate's module is loaded anew first (its
// `__device__` and static data back to their initial values), and every
// warm-up and timed run gets a fresh input set that no run has seen before
// (re-drawn from the timed launch with a seed drawn at random here), so
// nothing a kernel kept from an earlier run can stand in for the work. Every
// one of those runs is checked against the original on the same set, whose
// inputs are written after the candidate ran.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "agent/verifier/replay/replay_candidate.h"
#include "agent/verifier/replay/replay_timer.h"

namespace warplens::replay {

using namespace verifier;

void CandidateReplay::reload_candidate() {
  candidate_module_.reset();
  candidate_module_ = std::make_unique<Module>(plan_.candidate.cubin);
  candidate_ = candidate_module_->find(plan_.candidate.symbol, plan_.candidate.name, nullptr);
  for (auto& ls : launches_) ls.candidate->set_function(candidate_);
}

void CandidateReplay::timing() {
  result_.stage = "timing";
  const InputSetSpec& tspec = plan_.input_sets.at(static_cast<std::size_t>(plan_.timing_set));
  const ReferenceSet& tref = reference_.sets.at(static_cast<std::size_t>(tspec.index));
  LaunchState& ls = state_for(tspec.launch);
  std::vector<BufferRole> roles;
  for (const auto& b : tref.buffers) roles.push_back(b.role);
  const LaunchGeometry original_geometry = captured_geometry(*ls.launch);
  auto geometry = candidate_geometry(original_geometry, plan_.candidate_launch, device_.sm_count,
                                     verifier::integer_params(*ls.layout, ls.launch->param_buffer), nullptr);
  ls.original->set_geometry(original_geometry);
  ls.candidate->set_geometry(*geometry);

  TimingSamples samples;
  samples.warmup = plan_.warmup_runs;
  try {
    reload_candidate();
  } catch (const std::exception& e) {
    result_.failure = std::string("the candidate cannot be loaded again for timing: ") + e.what();
    return;
  }
  samples.module_reloaded = true;
  // Correctness phases of other candidates may share the GPU; timing may not.
  lock_.reset();
  lock_ = std::make_unique<GpuLock>(ctx_->device(), GpuLock::Mode::Exclusive);

  samples.seed = plan_.timing_seed;
  if (!samples.seed) {
    std::random_device rd;
    samples.seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  Timer timer(device_.l2_bytes, plan_.l2_flush_bytes);
  samples.l2_flush_bytes = timer.flush_bytes();
  const CUstream ts = timer.stream();
  const CUstream saved = s_;
  s_ = ts;  // every buffer operation on the timer's stream, ahead of its flush

  bool candidate_timing = false;  // whose timed run is in flight (for a hang)
  int timing_run = -1;            // -1: warm-up
  auto timed = [&](ReplaySide& side) {
    candidate_timing = &side == ls.candidate.get();
    return timer.time([&](CUstream s) { side.launch(s); }, plan_.run_deadline_s);
  };
  const int total = plan_.warmup_runs + plan_.timed_runs;
  // The original faulted with this launch's floating-point scalars re-drawn
  // (a fresh set kept them): the timed runs keep them too.
  const bool captured_scalars = std::any_of(plan_.input_sets.begin(), plan_.input_sets.end(), [&](const InputSetSpec& s) {
    return s.launch == tspec.launch && s.captured_scalars;
  });
  try {
    for (int i = 0; i < total; ++i) {
      const bool warm = i < plan_.warmup_runs;
      timing_run = warm ? -1 : i - plan_.warmup_runs;
      InputSetSpec spec{-1, tspec.launch, true, samples.seed + static_cast<std::uint64_t>(i)};
      spec.captured_scalars = captured_scalars;
      const SetContext set = make_set(spec, *ls.launch, *ls.layout, *ls.pristine);
      ++samples.fresh_sets;
      // Alternate which side goes first. The original's result is never in
      // memory while the candidate runs, and its inputs are written after
      // the candidate ran: when the original went first, its result is
      // wiped and it runs once more, untimed, after the candidate, on inputs
      // written anew.
      const bool candidate_first = warm ? true : (timing_run % 2 == 0);
      TimedRun t_candidate, t_original;
      if (candidate_first) {
        scrub(*ops_, *ls.original, set, roles, 0, ts);
        prepare(*ops_, *ls.candidate, set, roles, 0, ts);
        t_candidate = timed(*ls.candidate);
        prepare(*ops_, *ls.original, set, roles, 0, ts);
        t_original = timed(*ls.original);
      } else {
        prepare(*ops_, *ls.original, set, roles, 0, ts);
        prepare(*ops_, *ls.candidate, set, roles, 0, ts);
        t_original = timed(*ls.original);
        scrub(*ops_, *ls.original, set, roles, 0, ts);
        t_candidate = timed(*ls.candidate);
        candidate_timing = false;
        prepare(*ops_, *ls.original, set, roles, 0, ts);
        ls.original->launch(ts);
        ls.original->wait(ts, plan_.run_deadline_s);
      }
      candidate_timing = false;
      std::string what = warm ? "warm-up run " + std::to_string(i) : "timed run " + std::to_string(timing_run);
      what += " (fresh input set, seed " + std::to_string(spec.seed) + ")";
      if (std::string g = guard_failure(ls, 0); !g.empty()) {
        samples.output_failure = what + ": " + g;
        break;
      }
      // The original's result stays until the next iteration prepares its
      // side, before the candidate runs again.
      // Fresh floats here are drawn for timing, not chosen for the kernel's
      // domain: where the original writes NaN on them (a sqrt of a negative
      // draw), the candidate must write NaN too, which the correctness sets'
      // rule (NaN never compares equal) would refuse even for the original.
      RunCheck rc = check_run(1, 0, ls, roles, set, /*nan_equal=*/true);
      if (!rc.passed) {
        for (const auto& c : rc.buffers)
          if (!c.comparison.ok) {
            samples.output_failure = what + " produced different contents in " + c.name + " than the original" +
                                     (c.comparison.worst ? "; worst: " + describe(*c.comparison.worst) : "");
            break;
          }
        break;
      }
      if (warm) continue;
      ++samples.outputs_checked;
      samples.candidate_us.push_back(t_candidate.event_us);
      samples.candidate_device_us.push_back(t_candidate.device_us);
      samples.original_us.push_back(t_original.event_us);
      samples.original_device_us.push_back(t_original.device_us);
    }
  } catch (const KernelHang& h) {
    // A kernel that behaved while checked and never ends once timed.
    result_.timed_out = true;
    result_.timing = samples;
    const std::string which = timing_run < 0 ? "warm-up run" : "timed run " + std::to_string(timing_run);
    result_.failure = candidate_timing
                          ? "the candidate " + std::string(h.what()) + " in " + which +
                                " (after passing every correctness run): treated as hung"
                          : "the original's " + which + " " + h.what() +
                                " after the candidate's run (the candidate left work running on the GPU): treated as hung";
    finish();
    on_hang_();
    throw;  // not reached: on_hang ends the process
  } catch (const CudaError& e) {
    result_.fault = error_name(e.code);
    result_.failure = std::string("the candidate failed while being timed: ") + e.what();
    result_.timing = samples;
    s_ = saved;
    return;
  }
  s_ = saved;
  result_.timing = samples;
  if (!samples.output_failure.empty()) {
    result_.failure = samples.output_failure;
    return;
  }
  if (pristine_hash(*ops_, launches_, ts) != pristine_hash_) {
    result_.failure = "the candidate changed device memory outside its own allocations while being timed (the "
                      "captured inputs the replay keeps on the GPU)";
    return;
  }
  result_.correct = true;
  result_.stage = "done";
}

}  // namespace warplens::replay
