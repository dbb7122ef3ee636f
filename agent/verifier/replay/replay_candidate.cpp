// `warplens-replay candidate`: the candidate on every input set, each run
// checked against the original's run right after it, then timing
// (replay_timing.cpp).
#include "agent/verifier/replay/replay_candidate.h"
#include "agent/verifier/replay/replay_units.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace warplens::replay {

using namespace verifier;

namespace {

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
    if (c.widened_atol > 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, " (even with the atol widened by %.3g for a reordered sum of %llu terms)",
                    c.widened_atol, static_cast<unsigned long long>(c.reassociated_terms));
      what += buf;
    }
    return "input set " + std::to_string(spec.index) + " (" + describe(spec) + "), run " + std::to_string(rc.run) +
           ": " + what;
  }
  return "";
}

std::string where(const InputSetSpec& spec, int run) {
  return "input set " + std::to_string(spec.index) + ", run " + std::to_string(run);
}

// The most float elements any allocation the kernel reads holds: a bound on
// the terms of any sum it computes (reassociation.h).
std::uint64_t float_input_elements(const capture::LaunchRecord& launch, const LaunchLayout& layout,
                                   const std::vector<BufferRole>& roles) {
  std::uint64_t most = 0;
  for (std::size_t a = 0; a < launch.allocations.size() && a < layout.allocations.size(); ++a) {
    const BufferLayout& l = layout.allocations[a];
    if (!is_floating(l.type) || (a < roles.size() && roles[a] == BufferRole::Output)) continue;
    const std::uint64_t bytes = launch.allocations[a].bytes;
    if (bytes > l.phase) most = std::max(most, (bytes - l.phase) / static_cast<std::uint64_t>(element_size(l.type)));
  }
  return most;
}

}  // namespace

std::uint64_t pristine_hash(BufferOps& ops, const std::vector<LaunchState>& launches, CUstream s) {
  std::uint64_t h = 0;
  for (const auto& ls : launches) h = h * 31 + ls.pristine->hash(ops, s);
  return h;
}

CandidateReplay::CandidateReplay(const ReplayPlan& plan, const ReferenceResult& reference, CandidateResult& result,
                                 const EmergencyExit& on_hang)
    : plan_(plan), reference_(reference), result_(result), on_hang_(on_hang), t0_(std::chrono::steady_clock::now()) {}

void CandidateReplay::finish() {
  result_.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
}

void CandidateReplay::run() {
  result_.stage = "load";
  if (!load()) return finish();
  result_.stage = "correctness";
  result_.ok = true;
  if (!correctness()) return finish();
  timing();
  finish();
}

bool CandidateReplay::load() {
  capture_ = std::make_unique<CapturedLaunches>(plan_.capture_dir);
  capture_->add_sequences(plan_.sequences);
  ctx_ = std::make_unique<Context>();
  device_ = ctx_->summary();
  lock_ = std::make_unique<GpuLock>(ctx_->device(), GpuLock::Mode::Shared);
  stream_ = std::make_unique<Stream>();
  s_ = stream_->get();
  std::string note;
  ops_ = make_buffer_ops(plan_.pipeline, device_, &note);
  result_.pipeline = ops_->name();
  original_module_ = std::make_unique<Module>(plan_.original.cubin);
  std::string original_symbol;
  originals_ = find_original_kernels(*original_module_, plan_, &original_symbol);
  original_ = originals_.front();
  result_.original_function = function_info(original_, original_symbol);
  // Problems loading the candidate are the candidate's: it is incorrect.
  try {
    candidate_module_ = std::make_unique<Module>(plan_.candidate.cubin);
    std::string symbol;
    candidate_ = candidate_module_->find(plan_.candidate.symbol, plan_.candidate.name, &symbol);
    result_.candidate_function = function_info(candidate_, symbol);
  } catch (const std::exception& e) {
    result_.ok = true;
    result_.failure = std::string("the candidate cannot be loaded: ") + e.what();
    return false;
  }
  const auto candidate_layout = param_layout(candidate_);
  for (const auto& L : plan_.layouts) {
    const auto& rec = capture_->launch(L.launch);
    // A fused candidate's parameters are checked against what its
    // declaration picks from the captured launches (candidate_step).
    std::string mismatch = plan_.candidate_params.empty() ? param_layout_mismatch(candidate_layout, rec) : "";
    if (!mismatch.empty()) {
      result_.ok = true;
      result_.failure = "the candidate's parameter list differs from the captured launch: " + mismatch;
      return false;
    }
    LaunchState ls;
    ls.layout = &L;
    ls.launch = &rec;
    ls.pristine = std::make_unique<Pristine>(rec, capture_->before(L.launch), capture_->globals_before(L.launch), s_);
    const std::size_t li = static_cast<std::size_t>(&L - plan_.layouts.data());
    if (li < reference_.guards_unchecked.size()) ls.guards_unchecked = reference_.guards_unchecked[li];
    ls.original = make_original_side(*capture_, originals_, L.launch, plan_.guard_bytes);
    ls.elided = elided_allocations(plan_, *capture_, L.launch);
    std::string step_error;
    auto step = candidate_step(plan_, *capture_, candidate_, L.launch, device_.sm_count, &step_error);
    if (!step) {
      result_.ok = true;
      result_.failure = (plan_.candidate_params.empty() ? "invalid candidate launch geometry: " : "") + step_error;
      return false;
    }
    try {
      ls.candidate = make_candidate_side(*capture_, *step, L.launch, plan_.guard_bytes);
    } catch (const std::exception& e) {
      result_.ok = true;
      result_.failure = std::string("the candidate cannot be launched: ") + e.what();
      return false;
    }
    ls.kept.resize(rec.allocations.size());  // allocated when first needed (inputs never are)
    launches_.push_back(std::move(ls));
  }
  pristine_hash_ = pristine_hash(*ops_, launches_, s_);
  return true;
}

LaunchState& CandidateReplay::state_for(int launch) {
  for (auto& ls : launches_)
    if (ls.layout->launch == launch) return ls;
  throw std::runtime_error("internal: no layout for launch " + std::to_string(launch));
}

bool CandidateReplay::run_candidate(LaunchState& ls, const std::string& at) {
  try {
    ls.candidate->launch(s_);
    ls.candidate->wait(s_, plan_.run_deadline_s);
    return true;
  } catch (const KernelHang& h) {
    result_.timed_out = true;
    char slowest[64];
    std::snprintf(slowest, sizeof slowest, "%.3f ms", reference_.max_run_ms);
    result_.failure = "the candidate " + std::string(h.what()) + " on " + at + " (the original's slowest run took " +
                      slowest + "): treated as hung";
    finish();
    on_hang_();
    throw;  // not reached: on_hang ends the process
  } catch (const CudaError& e) {
    result_.fault = error_name(e.code);
    result_.failure = "the candidate failed on " + at + ": " + e.what();
    return false;
  }
}

void CandidateReplay::run_original(LaunchState& ls, const std::string& at) {
  ls.original->launch(s_);
  try {
    ls.original->wait(s_, plan_.run_deadline_s);
  } catch (const KernelHang& h) {
    // The original finished within this deadline in the reference process;
    // stalling now it is stuck behind what the candidate left running.
    result_.timed_out = true;
    result_.failure = "the original's run on " + at + " " + h.what() +
                      " after the candidate's run (the candidate left work running on the GPU): treated as hung";
    finish();
    on_hang_();
    throw;
  }
}

std::string CandidateReplay::guard_failure(LaunchState& ls, int poison) {
  auto d = check_guards(*ops_, *ls.candidate, poison, s_, &ls.guards_unchecked);
  return d ? describe(*d, *ls.layout) : "";
}

void CandidateReplay::widen_for_reassociation(LaunchState& ls, const std::vector<BufferRole>& roles,
                                              const SetContext& set, std::size_t a, const Tolerance& tolerance,
                                              const CompareOptions& o, BufferCheck& c, CUdeviceptr expected) {
  // Compared again with the tolerance that rounding in two orders of the
  // sum explains, only where the strict comparison failed by tolerance alone
  // (the worst failure ranks NaN and stray writes above any finite error).
  const BufferLayout layout = ls.layout->allocations[a];
  if (c.comparison.ok || !plan_.reassociation || !is_floating(layout.type) || !c.comparison.worst ||
      c.comparison.worst->problem != Problem::OutOfTolerance || c.comparison.stray_bytes != 0)
    return;
  const std::uint64_t terms = reassociated_terms(*plan_.reassociation, integer_params(*ls.layout, set.params),
                                                 float_input_elements(*ls.launch, *ls.layout, roles));
  const double extra = reassociation_atol(layout.type, terms, c.comparison.max_abs_expected);
  if (extra <= 0) return;
  Tolerance widened = tolerance;
  if (layout.type == ElementType::F64) widened.atol_f64 += extra;
  else if (layout.type == ElementType::F32) widened.atol_f32 += extra;
  else widened.atol_half += extra;
  const bool output = c.role == BufferRole::Output;
  c.comparison = ops_->compare(expected ? expected : ls.original->ptr(a), ls.candidate->ptr(a),
                               output ? ls.original->ptr(a) : 0, ls.launch->allocations[a].bytes, layout, widened, o,
                               s_);
  c.widened_atol = extra;
  c.reassociated_terms = terms;
}

RunCheck CandidateReplay::check_run(int run, int poison, LaunchState& ls, const std::vector<BufferRole>& roles,
                                    const SetContext& set, bool nan_equal) {
  Tolerance tolerance = plan_.tolerance;
  tolerance.nan_equal = tolerance.nan_equal || nan_equal;
  RunCheck rc;
  rc.run = run;
  for (std::size_t a = 0; a < ls.launch->allocations.size(); ++a) {
    BufferCheck c;
    c.allocation = static_cast<int>(a);
    c.name = allocation_name(*ls.layout, a);
    c.role = a < roles.size() ? roles[a] : BufferRole::Input;
    const auto bytes = ls.launch->allocations[a].bytes;
    const BufferLayout layout = ls.layout->allocations[a];
    CompareOptions o;
    if (a < ls.elided.size() && ls.elided[a]) {
      c.check = "elided";  // a fused candidate's temporary: no longer written
    } else if (c.role == BufferRole::Input) {
      // The original leaves its inputs as prepared: both started alike.
      c.check = "unchanged";
      o.exact = true;
      c.comparison = ops_->compare(ls.original->ptr(a), ls.candidate->ptr(a), 0, bytes, layout, tolerance, o, s_);
    } else {
      c.check = "value";
      const bool output = c.role == BufferRole::Output;
      o.pref_poison = output ? poison : -1;
      c.comparison = ops_->compare(ls.original->ptr(a), ls.candidate->ptr(a), output ? ls.original->ptr(a) : 0, bytes,
                                   layout, tolerance, o, s_);
      widen_for_reassociation(ls, roles, set, a, tolerance, o, c);
    }
    rc.passed = rc.passed && c.comparison.ok;
    rc.buffers.push_back(std::move(c));
  }
  return rc;
}

bool CandidateReplay::correctness() {
  bool geometry_recorded = false;
  for (const auto& spec : plan_.input_sets) {
    if (static_cast<std::size_t>(spec.index) >= reference_.sets.size())
      throw std::runtime_error("internal: reference and plan disagree on input set " + std::to_string(spec.index));
    const ReferenceSet& ref = reference_.sets[static_cast<std::size_t>(spec.index)];
    LaunchState& ls = state_for(spec.launch);
    CandidateSet cs;
    cs.index = spec.index;
    if (spec.skipped || ref.skipped) {
      cs.skipped = true;
      cs.skip_reason = ref.skipped ? ref.skip_reason : spec.skip_reason;
      cs.shape = spec_shape(spec, *ls.launch, *ls.layout);
      result_.sets.push_back(std::move(cs));
      continue;
    }
    const SetContext set = make_set(spec, *ls.launch, *ls.layout, *ls.pristine);
    std::string geometry_error;
    auto geometry = candidate_geometry(set.original_geometry, plan_.candidate_launch, device_.sm_count,
                                       verifier::integer_params(*ls.layout, set.params), &geometry_error);
    if (!geometry) {
      result_.failure = "invalid candidate launch geometry: " + geometry_error;
      return false;
    }
    if (!geometry_recorded) {
      result_.candidate_geometry = *geometry;
      result_.original_geometry = set.original_geometry;
      geometry_recorded = true;
    }
    try {
      ls.candidate->set_geometry(*geometry);
    } catch (const CudaError& e) {
      result_.failure = std::string("the candidate cannot be launched: ") + e.what();
      return false;
    }
    ls.original->set_geometry(set.original_geometry);
    cs.shape = set_shape(set, *geometry);
    cs.original_launches = capture_->merged(spec.launch) ? original_geometries(*capture_, spec.launch)
                                                         : std::vector<LaunchGeometry>{set.original_geometry};
    cs.candidate_launches = ls.candidate->geometries();
    std::vector<BufferRole> roles;
    for (const auto& b : ref.buffers) roles.push_back(b.role);
    const std::size_t n = ls.launch->allocations.size();

    for (int run = 1; run <= 2; ++run) {
      const int poison = run - 1;
      // The original's last result is wiped before the candidate runs; its
      // inputs are written after the candidate ran (nothing the candidate
      // wrote into memory it could reach can stand in them).
      scrub(*ops_, *ls.original, set, roles, poison, s_);
      prepare(*ops_, *ls.candidate, set, roles, poison, s_);
      if (!run_candidate(ls, where(spec, run))) return false;
      if (std::string g = guard_failure(ls, poison); !g.empty()) {
        cs.passed = false;
        cs.failure = where(spec, run) + " (" + describe(spec) + "): " + g;
        result_.failure = cs.failure;
        result_.sets.push_back(std::move(cs));
        return false;
      }
      prepare(*ops_, *ls.original, set, roles, poison, s_);
      run_original(ls, where(spec, run));
      RunCheck rc = check_run(run, poison, ls, roles, set);
      if (!rc.passed && cs.passed) {
        cs.passed = false;
        cs.failure = first_failure(rc, spec);
      }
      cs.runs.push_back(std::move(rc));
      if (run == 1)
        for (std::size_t a = 0; a < n; ++a) {
          if (roles[a] == BufferRole::Input || ls.elided[a]) continue;
          if (!ls.kept[a].ptr()) ls.kept[a] = DeviceBuffer(ls.launch->allocations[a].bytes);
          copy_dtod(ls.kept[a].ptr(), ls.candidate->ptr(a), ls.launch->allocations[a].bytes, s_);
        }
    }
    // The same input twice must give the same bits (races, nondeterminism),
    // unless the original itself is not deterministic on this set. Bytes the
    // original leaves as poison hold different poisons in the two runs
    // (each run's own check covered them): skipped.
    for (std::size_t a = 0; a < n && cs.passed; ++a) {
      if (roles[a] == BufferRole::Input || ls.elided[a]) continue;
      const bool output = roles[a] == BufferRole::Output;
      CompareOptions o;
      o.exact = ref.deterministic;
      o.pref_poison = output ? 1 : -1;
      BufferComparison cmp = ops_->compare(ls.kept[a].ptr(), ls.candidate->ptr(a), output ? ls.original->ptr(a) : 0,
                                           ls.launch->allocations[a].bytes, ls.layout->allocations[a],
                                           plan_.tolerance, o, s_);
      BufferCheck c{static_cast<int>(a), allocation_name(*ls.layout, a), roles[a], "determinism", cmp};
      // Two runs of a candidate whose reordered sums end in atomics (partial
      // sums per block) differ by the same rounding, where the original is
      // itself not bit-for-bit deterministic.
      if (!ref.deterministic) widen_for_reassociation(ls, roles, set, a, plan_.tolerance, o, c, ls.kept[a].ptr());
      cmp = c.comparison;
      if (!cmp.ok) {
        cs.deterministic = false;
        cs.passed = false;
        cs.failure = "input set " + std::to_string(spec.index) + ": two runs on the same input differ (race or "
                     "nondeterminism) in " + c.name + (cmp.worst ? "; first difference: " + describe(*cmp.worst) : "");
        cs.determinism = std::move(c);
      }
    }
    // The original's last result stays until the next set prepares its side,
    // which happens before the candidate runs again.
    const bool passed = cs.passed;
    std::string failure = cs.failure;
    result_.sets.push_back(std::move(cs));
    if (!passed) {
      result_.failure = failure;
      return false;
    }
  }
  if (pristine_hash(*ops_, launches_, s_) != pristine_hash_) {
    result_.failure = "the candidate changed device memory outside its own allocations (the captured inputs the "
                      "replay keeps on the GPU)";
    return false;
  }
  return true;
}

void check_candidate(const ReplayPlan& plan, const ReferenceResult& reference, CandidateResult& result,
                     const EmergencyExit& on_hang) {
  CandidateReplay(plan, reference, result, on_hang).run();
}

}  // namespace warplens::replay
