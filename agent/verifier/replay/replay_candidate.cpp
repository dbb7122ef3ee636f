#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "agent/verifier/poison.h"
#include "agent/verifier/replay/replay_capture.h"
#include "agent/verifier/replay/replay_modes.h"
#include "agent/verifier/replay/replay_side.h"
#include "agent/verifier/replay/replay_timer.h"
#include "agent/verifier/replay/replay_units.h"

namespace warplens::replay {

using namespace verifier;

namespace {

std::string name_of(const LaunchLayout& layout, std::size_t a) {
  if (a < layout.allocation_names.size() && !layout.allocation_names[a].empty())
    return "allocation " + std::to_string(a) + " [" + layout.allocation_names[a] + "]";
  return "allocation " + std::to_string(a);
}

struct Expected {
  Blobs contents;  // per allocation; empty for inputs
};

Expected load_expected(const ReplayPlan& plan, const ReferenceSet& set) {
  Expected e;
  for (const auto& b : set.buffers) {
    if (b.role == BufferRole::Input) {
      e.contents.emplace_back();
      continue;
    }
    std::error_code ec;
    auto size = std::filesystem::file_size(std::filesystem::path(plan.work_dir) / b.expected_blob, ec);
    if (ec) throw std::runtime_error("reference output " + b.expected_blob + " is missing");
    e.contents.push_back(capture::read_blob(plan.work_dir, b.expected_blob, size, b.expected_hash));
  }
  return e;
}

// One candidate run's checks against the reference.
// `elided[a]`: a fused candidate's temporary, which it no longer writes:
// reported as such and not compared.
RunCheck check_run(int run, const LaunchLayout& L, const ReferenceSet& ref, const Expected& expected,
                   const InputSet& in, const Blobs& poison, const Blobs& got, const Tolerance& tol,
                   const std::vector<bool>& elided) {
  RunCheck rc;
  rc.run = run;
  for (std::size_t a = 0; a < ref.buffers.size(); ++a) {
    const auto& rb = ref.buffers[a];
    BufferCheck c;
    c.allocation = static_cast<int>(a);
    c.name = name_of(L, a);
    c.role = rb.role;
    const auto bytes = got[a].size();
    if (a < elided.size() && elided[a]) {
      c.check = "elided";
    } else if (rb.role == BufferRole::Input) {
      c.check = "unchanged";
      c.comparison = compare_exact(in.allocations[a].data(), got[a].data(), bytes, L.allocations[a]);
    } else {
      c.check = "value";
      const std::uint8_t* p = rb.role == BufferRole::Output ? poison[a].data() : nullptr;
      const ByteRanges& unwritten = rb.role == BufferRole::Output ? rb.unwritten : ByteRanges{};
      c.comparison =
          compare_with_tolerance(expected.contents[a].data(), got[a].data(), bytes, L.allocations[a], tol, unwritten, p);
    }
    rc.passed = rc.passed && c.comparison.ok;
    rc.buffers.push_back(std::move(c));
  }
  return rc;
}

std::string first_failure(const RunCheck& rc, const InputSetSpec& spec) {
  for (const auto& c : rc.buffers) {
    if (c.comparison.ok) continue;
    std::string what;
    if (c.check == "unchanged")
      what = "changed " + c.name + ", which the original only reads";
    else if (c.comparison.stray_bytes)
      what = "wrote " + std::to_string(c.comparison.stray_bytes) + " byte(s) of " + c.name +
             " that the original never writes";
    else
      what = std::to_string(c.comparison.mismatches) + " element(s) of " + c.name + " differ from the original";
    if (c.comparison.worst) what += "; worst: " + describe(*c.comparison.worst);
    return "input set " + std::to_string(spec.index) + " (" + describe(spec) + "), run " + std::to_string(rc.run) +
           ": " + what;
  }
  return "";
}

}  // namespace

void check_candidate(const ReplayPlan& plan, const ReferenceResult& reference, CandidateResult& result,
                     const EmergencyExit& on_hang) {
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&] {
    result.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  result.stage = "load";
  CapturedLaunches capture(plan.capture_dir);
  capture.add_sequences(plan.sequences);
  Context ctx;
  const DeviceSummary device = ctx.summary();
  Module original_module(plan.original.cubin);
  std::string original_symbol;
  const std::vector<CUfunction> originals = find_original_kernels(original_module, plan, &original_symbol);
  CUfunction original = originals.front();
  result.original_function = function_info(original, original_symbol);

  // Problems loading the candidate are the candidate's: it is incorrect.
  std::unique_ptr<Module> candidate_module;
  CUfunction candidate = nullptr;
  try {
    candidate_module = std::make_unique<Module>(plan.candidate.cubin);
    std::string symbol;
    candidate = candidate_module->find(plan.candidate.symbol, plan.candidate.name, &symbol);
    result.candidate_function = function_info(candidate, symbol);
  } catch (const std::exception& e) {
    result.ok = true;
    result.failure = std::string("the candidate cannot be loaded: ") + e.what();
    finish();
    return;
  }
  const auto candidate_layout = param_layout(candidate);

  result.stage = "correctness";
  result.ok = true;
  Stream stream;
  Blobs timing_set_outputs;  // run 1 on the timing set: what every timed run must reproduce
  for (const auto& spec : plan.input_sets) {
    const LaunchLayout* L = plan.layout_for(spec.launch);
    if (!L || static_cast<std::size_t>(spec.index) >= reference.sets.size())
      throw std::runtime_error("internal: reference and plan disagree on input set " + std::to_string(spec.index));
    const ReferenceSet& ref = reference.sets[static_cast<std::size_t>(spec.index)];
    const auto& rec = capture.launch(spec.launch);
    // A fused candidate's parameters are checked against what its
    // declaration picks from the captured launches (candidate_step).
    std::string mismatch = plan.candidate_params.empty() ? param_layout_mismatch(candidate_layout, rec) : "";
    if (!mismatch.empty()) {
      result.failure = "the candidate's parameter list differs from the captured launch: " + mismatch;
      finish();
      return;
    }
    std::string geometry_error;
    auto step = candidate_step(plan, capture, candidate, spec.launch, device.sm_count, &geometry_error);
    if (!step) {
      result.failure = (plan.candidate_params.empty() ? "invalid candidate launch geometry: " : "") + geometry_error;
      finish();
      return;
    }
    const std::vector<LaunchGeometry> original_launches = original_geometries(capture, spec.launch);
    if (spec.index == plan.input_sets.front().index) {
      result.candidate_geometry = step->geometry;
      result.original_geometry = original_launches.front();
    }
    const std::vector<bool> elided = elided_allocations(plan, capture, spec.launch);
    const InputSet in = make_input_set(rec, capture.before(spec.launch), *L, spec.fresh, spec.seed);
    const Expected expected = load_expected(plan, ref);
    std::unique_ptr<ReplaySide> side_ptr;
    try {
      side_ptr = make_candidate_side(capture, *step, spec.launch);
    } catch (const std::exception& e) {
      result.failure = std::string("the candidate cannot be launched: ") + e.what();
      finish();
      return;
    }
    ReplaySide& side = *side_ptr;

    CandidateSet cs;
    cs.index = spec.index;
    cs.original_launches = original_launches;
    cs.candidate_launches = side.geometries();
    Blobs results[2];
    for (int run = 1; run <= 2; ++run) {
      Blobs contents = in.allocations, poison(ref.buffers.size());
      for (std::size_t a = 0; a < ref.buffers.size(); ++a) {
        if (ref.buffers[a].role != BufferRole::Output) continue;
        poison[a] = make_poison(contents[a].size(), L->allocations[a], run == 1 ? Poison::A : Poison::B);
        contents[a] = poison[a];
      }
      side.upload(contents, in.param_buffer);
      try {
        side.launch(stream.get());
        side.wait(stream.get(), plan.run_deadline_s);
      } catch (const KernelHang& h) {
        result.timed_out = true;
        char slowest[64];
        std::snprintf(slowest, sizeof slowest, "%.3f ms", reference.max_run_ms);
        result.failure = "the candidate " + std::string(h.what()) + " on input set " + std::to_string(spec.index) +
                         ", run " + std::to_string(run) + " (the original's slowest run took " + slowest +
                         "): treated as hung";
        finish();
        on_hang();
        throw;  // not reached: on_hang ends the process
      } catch (const CudaError& e) {
        result.fault = error_name(e.code);
        result.failure = "the candidate failed on input set " + std::to_string(spec.index) + ", run " +
                         std::to_string(run) + ": " + e.what();
        finish();
        return;
      }
      side.download(results[run - 1]);
      if (run == 1 && spec.index == plan.timing_set) timing_set_outputs = results[0];
      RunCheck rc = check_run(run, *L, ref, expected, in, poison, results[run - 1], plan.tolerance, elided);
      if (!rc.passed && cs.passed) {
        cs.passed = false;
        cs.failure = first_failure(rc, spec);
      }
      cs.runs.push_back(std::move(rc));
    }
    // The same input twice must give the same bits (races, nondeterminism),
    // unless the original itself is not deterministic on this set.
    for (std::size_t a = 0; a < ref.buffers.size() && cs.passed; ++a) {
      if (ref.buffers[a].role == BufferRole::Input || elided[a]) continue;
      // Unwritten bytes hold different poisons in the two runs (each run's
      // own check covered them): skip them. For the tolerance comparison,
      // passing run 2's bytes as the "poison" makes those bytes agree.
      const ByteRanges& unwritten = ref.buffers[a].unwritten;
      BufferComparison cmp =
          ref.deterministic
              ? compare_exact(results[0][a].data(), results[1][a].data(), results[0][a].size(), L->allocations[a],
                              unwritten)
              : compare_with_tolerance(results[0][a].data(), results[1][a].data(), results[0][a].size(),
                                       L->allocations[a], plan.tolerance, unwritten, results[1][a].data());
      if (!cmp.ok) {
        cs.deterministic = false;
        cs.passed = false;
        BufferCheck c{static_cast<int>(a), name_of(*L, a), ref.buffers[a].role, "determinism", cmp};
        cs.failure = "input set " + std::to_string(spec.index) + ": two runs on the same input differ (race or "
                     "nondeterminism) in " + c.name + (cmp.worst ? "; first difference: " + describe(*cmp.worst) : "");
        cs.determinism = std::move(c);
      }
    }
    const bool passed = cs.passed;
    std::string failure = cs.failure;
    result.sets.push_back(std::move(cs));
    if (!passed) {
      result.failure = failure;
      finish();
      return;
    }
  }

  // Timing: original and candidate interleaved in this process, each with
  // its own allocations, on the timing input set.
  result.stage = "timing";
  const InputSetSpec& tspec = plan.input_sets.at(static_cast<std::size_t>(plan.timing_set));
  const LaunchLayout& TL = *plan.layout_for(tspec.launch);
  const ReferenceSet& tref = reference.sets.at(static_cast<std::size_t>(tspec.index));
  const auto& trec = capture.launch(tspec.launch);
  const InputSet tin = make_input_set(trec, capture.before(tspec.launch), TL, tspec.fresh, tspec.seed);
  auto tstep = candidate_step(plan, capture, candidate, tspec.launch, device.sm_count, nullptr);
  const std::vector<bool> telided = elided_allocations(plan, capture, tspec.launch);
  std::unique_ptr<ReplaySide> original_ptr = make_original_side(capture, originals, tspec.launch);
  std::unique_ptr<ReplaySide> candidate_ptr = make_candidate_side(capture, *tstep, tspec.launch);
  ReplaySide& original_side = *original_ptr;
  ReplaySide& candidate_side = *candidate_ptr;
  Blobs start = tin.allocations;
  for (std::size_t a = 0; a < tref.buffers.size(); ++a)
    if (tref.buffers[a].role == BufferRole::Output)
      start[a] = make_poison(start[a].size(), TL.allocations[a], Poison::A);
  original_side.upload(start, tin.param_buffer);
  candidate_side.upload(start, tin.param_buffer);

  // Every timed candidate run must produce the bits of its verified run 1
  // on this set (same inputs, same poison A).
  const Blobs& verified_outputs = timing_set_outputs;
  const Expected texpected = load_expected(plan, tref);

  auto restore = [&](ReplaySide& side) {
    for (std::size_t a = 0; a < tref.buffers.size(); ++a)
      if (tref.buffers[a].role != BufferRole::Input) side.upload_one(a, start[a]);
  };
  Timer timer(device.l2_bytes, plan.l2_flush_bytes);
  TimingSamples samples;
  samples.warmup = plan.warmup_runs;
  samples.l2_flush_bytes = timer.flush_bytes();
  bool candidate_timing = false;  // whose timed run is in flight (for a hang)
  int timing_run = -1;             // -1: warm-up
  auto timed = [&](ReplaySide& side) {
    restore(side);
    candidate_timing = &side == &candidate_side;
    return timer.time([&](CUstream s) { side.launch(s); }, plan.run_deadline_s);
  };
  std::vector<std::uint8_t> out;
  // Every timed candidate run is checked: a kernel that behaves only while
  // it is being verified is caught here.
  auto check_timed_output = [&](int run) {
    for (std::size_t a = 0; a < tref.buffers.size(); ++a) {
      if (tref.buffers[a].role == BufferRole::Input || telided[a]) continue;
      candidate_side.download_one(a, out);
      bool same = out == verified_outputs[a];
      if (!same && !tref.deterministic)
        same = compare_with_tolerance(texpected.contents[a].data(), out.data(), out.size(), TL.allocations[a],
                                      plan.tolerance, tref.buffers[a].unwritten, start[a].data())
                   .ok;
      if (!same) {
        samples.output_failure = "timed run " + std::to_string(run) + " produced different contents in " +
                                 name_of(TL, a) + " than the verified run";
        return false;
      }
    }
    ++samples.outputs_checked;
    return true;
  };
  try {
    for (int i = 0; i < plan.warmup_runs; ++i) {
      timed(original_side);
      timed(candidate_side);
    }
    bool good = true;
    for (int i = 0; i < plan.timed_runs && good; ++i) {
      timing_run = i;
      // Alternate the order so neither side always runs first.
      for (int k = 0; k < 2 && good; ++k) {
        const bool candidate_turn = (i % 2 == 0) ? (k == 1) : (k == 0);
        TimedRun t = timed(candidate_turn ? candidate_side : original_side);
        (candidate_turn ? samples.candidate_us : samples.original_us).push_back(t.event_us);
        (candidate_turn ? samples.candidate_device_us : samples.original_device_us).push_back(t.device_us);
        if (candidate_turn) good = check_timed_output(i);
      }
    }
  } catch (const KernelHang& h) {
    // A kernel that behaved while checked and never ends once timed. The
    // original's runs finished within the same deadline while computing the
    // reference; one that stalls now is stuck behind the candidate's work.
    result.timed_out = true;
    result.timing = samples;
    std::string which = timing_run < 0 ? "warm-up run" : "timed run " + std::to_string(timing_run);
    result.failure = candidate_timing
                         ? "the candidate " + std::string(h.what()) + " in " + which + " (after passing every "
                           "correctness run): treated as hung"
                         : "the original's " + which + " " + h.what() + " after the candidate's run (the candidate "
                           "left work running on the GPU): treated as hung";
    finish();
    on_hang();
    throw;  // not reached: on_hang ends the process
  } catch (const CudaError& e) {
    result.fault = error_name(e.code);
    result.failure = std::string("the candidate failed while being timed: ") + e.what();
    result.timing = samples;
    finish();
    return;
  }
  result.timing = samples;
  if (!samples.output_failure.empty()) {
    result.failure = samples.output_failure;
    finish();
    return;
  }
  result.correct = true;
  result.stage = "done";
  finish();
}

}  // namespace warplens::replay
