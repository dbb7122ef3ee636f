// `warplens-replay sanitize`: the candidate alone, for compute-sanitizer
// --tool memcheck (the parent runs this process under it). Allocations have
// exactly the captured sizes, without guard bands, so every access past an
// allocation, read or write, is one the sanitizer reports. Only driver copies
// and the candidate's own kernels run (no buffer kernels): whatever the
// sanitizer reports is the candidate's. One run on the timed launch's
// captured set and one on every shape variation the original handles. The
// candidate is launched as in the candidate child (replay_units.h): its launch
// changes reshape the grid, a fused candidate takes its declared parameters
// from the pair's merged record.
#include <algorithm>
#include <chrono>

#include "agent/verifier/poison.h"
#include "agent/verifier/replay/gpu_lock.h"
#include "agent/verifier/replay/replay_capture.h"
#include "agent/verifier/replay/replay_modes.h"
#include "agent/verifier/replay/replay_sets.h"
#include "agent/verifier/replay/replay_units.h"

namespace warplens::replay {

using namespace verifier;

void sanitize_candidate(const ReplayPlan& plan, const ReferenceResult& reference, SanitizeResult& result,
                        const EmergencyExit& on_hang) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  CapturedLaunches capture(plan.capture_dir);
  capture.add_sequences(plan.sequences);
  result.load_ms = ms_since(t0);
  Context ctx;
  const int sm_count = ctx.summary().sm_count;
  GpuLock lock(ctx.device(), GpuLock::Mode::Shared);
  Stream stream;
  const CUstream s = stream.get();
  Module module(plan.candidate.cubin);
  CUfunction f = module.find(plan.candidate.symbol, plan.candidate.name, nullptr);
  result.ok = true;
  // memcheck slows kernels down by one or two orders of magnitude.
  const double deadline = std::max(30.0, 100 * plan.run_deadline_s);
  for (const auto& spec : plan.input_sets) {
    const bool timed = spec.index == plan.input_sets.at(static_cast<std::size_t>(plan.timing_set)).index;
    if (!timed && spec.variation.empty()) continue;
    if (spec.skipped || (static_cast<std::size_t>(spec.index) < reference.sets.size() &&
                         reference.sets[static_cast<std::size_t>(spec.index)].skipped))
      continue;
    const LaunchLayout* L = plan.layout_for(spec.launch);
    if (!L) throw std::runtime_error("internal: no layout for launch " + std::to_string(spec.launch));
    const auto& rec = capture.launch(spec.launch);
    const ReferenceSet& ref = reference.sets.at(static_cast<std::size_t>(spec.index));
    const auto t_prepare = Clock::now();
    InputSet in = make_input_set(rec, capture.before(spec.launch), *L, spec.fresh, spec.seed, spec.scalars);
    in.param_buffer = make_param_buffer(rec, *L, jitters_scalars(spec), spec.seed, spec.scalars);
    for (std::size_t a = 0; a < in.allocations.size() && a < ref.buffers.size(); ++a)
      if (ref.buffers[a].role == BufferRole::Output)
        fill_poison(in.allocations[a].data(), in.allocations[a].size(), L->allocations[a], Poison::A);
    // A shape the candidate child could not launch never made it a winner.
    auto step = candidate_step(plan, capture, f, spec.launch, sm_count, nullptr);
    auto geometry = candidate_geometry(spec.geometry.value_or(captured_geometry(rec)), plan.candidate_launch, sm_count,
                                       integer_params(*L, in.param_buffer), nullptr);
    result.prepare_ms += ms_since(t_prepare);
    if (!step || !geometry) continue;
    const auto t_upload = Clock::now();
    auto side = make_candidate_side(capture, *step, spec.launch, 0);
    side->set_geometry(*geometry);
    for (std::size_t a = 0; a < side->allocations(); ++a)
      upload(side->ptr(a), in.allocations[a].data(), side->bytes(a), s);
    side->set_params(in.param_buffer);
    check(cuStreamSynchronize(s), "cuStreamSynchronize");
    result.upload_ms += ms_since(t_upload);
    try {
      const auto t_kernel = Clock::now();
      side->launch(s);
      side->wait(s, deadline);
      result.kernel_ms += ms_since(t_kernel);
      ++result.runs;
    } catch (const KernelHang& h) {
      result.failure = std::string("the candidate ") + h.what() + " under compute-sanitizer on input set " +
                       std::to_string(spec.index);
      result.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      on_hang();
      throw;
    } catch (const CudaError& e) {
      result.fault = error_name(e.code);
      result.failure = "the candidate failed under compute-sanitizer on input set " + std::to_string(spec.index) +
                       " (" + describe(spec) + "): " + e.what();
      break;
    }
  }
  result.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace warplens::replay
