#include "agent/verifier/verdict_builder.h"

#include <algorithm>
#include <cstdio>

#include "agent/verifier/reward.h"

namespace warplens::verifier {

namespace {

// The worse of two checks of the same buffer (failing beats passing; then
// more mismatches; then the larger error).
const BufferCheck& worse(const BufferCheck& a, const BufferCheck& b) {
  if (a.comparison.ok != b.comparison.ok) return a.comparison.ok ? b : a;
  if (a.comparison.mismatches != b.comparison.mismatches) return a.comparison.mismatches > b.comparison.mismatches ? a : b;
  return a.comparison.max_abs_error >= b.comparison.max_abs_error ? a : b;
}

std::vector<double> gaps(const std::vector<double>& stream, const std::vector<double>& device) {
  std::vector<double> g;
  for (std::size_t i = 0; i < std::min(stream.size(), device.size()); ++i) g.push_back(device[i] - stream[i]);
  return g;
}

template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

void add_flag(Verdict& v, const std::string& f) {
  if (std::find(v.flags.begin(), v.flags.end(), f) == v.flags.end()) v.flags.push_back(f);
}

}  // namespace

void record_candidate_checks(Verdict& v, const ReplayPlan& plan, const CandidateResult& c) {
  v.input_sets.clear();
  for (const auto& spec : plan.input_sets) {
    InputSetEvidence e;
    e.index = spec.index;
    e.origin = describe(spec);
    if (spec.skipped) {
      e.skipped = true;
      e.skip_reason = spec.skip_reason;
    }
    for (const auto& s : c.sets) {
      if (s.index != spec.index) continue;
      e.shape = s.shape;
      if (s.skipped) {
        e.skipped = true;
        e.skip_reason = s.skip_reason;
        continue;
      }
      e.checked = true;
      e.passed = s.passed;
      e.deterministic = s.deterministic;
      e.failure = s.failure;
      e.original_launches = s.original_launches;
      e.candidate_launches = s.candidate_launches;
      for (const auto& run : s.runs) {
        for (const auto& b : run.buffers) {
          auto it = std::find_if(e.buffers.begin(), e.buffers.end(),
                                 [&](const BufferCheck& x) { return x.allocation == b.allocation; });
          if (it == e.buffers.end()) e.buffers.push_back(b);
          else *it = worse(*it, b);
        }
      }
      if (s.determinism) e.buffers.push_back(*s.determinism);
    }
    v.input_sets.push_back(std::move(e));
  }
  if (plan.reassociation) {
    // Said whether or not it was needed: a reader of the verdict sees that
    // this candidate's float outputs were held to the widened tolerance.
    int widened = 0;
    double most = 0;
    std::uint64_t terms = 0;
    for (const auto& e : v.input_sets)
      for (const auto& b : e.buffers)
        if (b.widened_atol > 0) {
          ++widened;
          if (b.widened_atol > most) most = b.widened_atol, terms = b.reassociated_terms;
        }
    add_flag(v, "reassociated-tolerance");
    v.notes.push_back(
        "the candidate declares reordered float sums (terms=" + describe(*plan.reassociation) +
        "): a float output that fails the tolerance is compared again with an extra atol of " +
        fmt("%.0f", kReassociationLambda) + "·√n·u·max|expected| (n the terms, at most the elements read)" +
        (widened ? fmt("; needed on %d buffer check(s), at most %.3g", widened, most) + " for n = " +
                       std::to_string(terms)
                 : "; not needed on the correctness sets"));
  }
  v.original_launch = c.original_geometry;
  v.candidate_launch = c.candidate_geometry;
  v.original_function = c.original_function;
  v.candidate_function = c.candidate_function;
  v.correct = c.ok && c.correct;
  if (!v.correct && !c.failure.empty()) v.reasons.push_back("incorrect: " + c.failure);
}

TimingEvidence summarize_timing(const TimingSamples& s, bool* outside_stream) {
  TimingEvidence t;
  t.warmup = s.warmup;
  t.l2_flush_bytes = s.l2_flush_bytes;
  t.outputs_checked = s.outputs_checked;
  t.original_stream = summarize_samples(s.original_us);
  t.candidate_stream = summarize_samples(s.candidate_us);
  t.original_device = summarize_samples(s.original_device_us);
  t.candidate_device = summarize_samples(s.candidate_device_us);
  const double gap_original = summarize_samples(gaps(s.original_us, s.original_device_us)).median_us;
  const double gap_candidate = summarize_samples(gaps(s.candidate_us, s.candidate_device_us)).median_us;
  const double allowance = std::max(20.0, 0.25 * t.candidate_stream.median_us);
  const bool outside = gap_candidate > gap_original + allowance;
  if (outside_stream) *outside_stream = outside;
  t.basis = outside ? "device-idle" : "launch-stream";
  t.original = outside ? t.original_device : t.original_stream;
  t.candidate = outside ? t.candidate_device : t.candidate_stream;
  t.fresh_sets = s.fresh_sets;
  t.seed = s.seed;
  t.module_reloaded = s.module_reloaded;
  t.method = fmt("CUDA events; L2 flush of %.0f MiB and a device-wide synchronise before each run; "
                 "%d warm-up and %d timed runs per side, original and candidate interleaved in one process; "
                 "every timed candidate run's outputs checked (%d)",
                 static_cast<double>(s.l2_flush_bytes) / (1 << 20), s.warmup, t.candidate_stream.runs,
                 s.outputs_checked);
  if (s.fresh_sets > 0)
    t.method += fmt(" against the original's on the same input set; every warm-up and timed run on a fresh input "
                    "set no run had seen (%d sets, seed %llu)",
                    s.fresh_sets, static_cast<unsigned long long>(s.seed));
  if (s.module_reloaded) t.method += "; the candidate's module loaded anew before timing";
  if (outside)
    t.method += fmt("; the candidate left work outside its launch stream (%.1f us past its end event, the "
                    "original %.1f us): both sides timed to device idle",
                    gap_candidate, gap_original);
  return t;
}

void add_pytorch_timing(TimingEvidence& t, const PytorchTiming& p) {
  if (!p.ok) {
    t.pytorch_note = "PyTorch reference not timed: " + p.error;
    return;
  }
  const bool device = t.basis == "device-idle";
  t.eager = summarize_samples(device ? p.eager_device_us : p.eager_us);
  if (p.compiled_ok) t.compiled = summarize_samples(device ? p.compiled_device_us : p.compiled_us);
  else t.pytorch_note = "torch.compile failed: " + p.compile_error;
  if (!p.torch_version.empty())
    t.pytorch_note += std::string(t.pytorch_note.empty() ? "" : "; ") + "torch " + p.torch_version;
}

void decide_level(Verdict& v) {
  RewardInput in;
  in.correct = v.correct;
  if (v.timing) {
    in.original_us = v.timing->original.median_us;
    in.candidate_us = v.timing->candidate.median_us;
    in.original_se_us = median_standard_error(v.timing->original.p75_us - v.timing->original.p25_us,
                                              v.timing->original.runs);
    in.candidate_se_us = median_standard_error(v.timing->candidate.p75_us - v.timing->candidate.p25_us,
                                               v.timing->candidate.runs);
    if (v.timing->eager) in.eager_us = v.timing->eager->median_us;
    if (v.timing->compiled) in.compiled_us = v.timing->compiled->median_us;
    in.pytorch_problem = v.timing->pytorch_note;
  } else if (v.correct) {
    in.correct = false;  // never reward what was not timed
    v.reasons.push_back("incorrect: no timing was recorded");
  }
  RewardDecision d = decide_reward(in);
  v.measured_level = d.level;
  v.speedup = d.speedup;
  if (v.correct) v.reasons.insert(v.reasons.end(), d.reasons.begin(), d.reasons.end());
  v.level = d.level;

  if (v.timing) {
    if (v.timing->original.spread() > 0.15 || v.timing->candidate.spread() > 0.15) {
      add_flag(v, "noisy-timing");
      v.notes.push_back(fmt("timing spread (IQR / median) is %.0f%% for the original and %.0f%% for the candidate",
                            100 * v.timing->original.spread(), 100 * v.timing->candidate.spread()));
    }
    if (v.timing->basis == "device-idle") add_flag(v, "work-outside-launch-stream");
  }
  if (d.implausible) {
    add_flag(v, "implausible-speedup");
    v.needs_review = true;
    v.notes.push_back(fmt("a %.1fx speedup is implausible (> %.0fx): flagged for review, not offered automatically",
                          d.speedup, kImplausibleSpeedup));
  } else if (d.large && v.level >= 2) {
    add_flag(v, "large-speedup");
    v.notes.push_back(fmt("a %.1fx speedup (> %.0fx): offered only with complete evidence (memcheck clean, fresh "
                          "timed inputs, a reloaded module, steady timing, sizes varied)",
                          d.speedup, kLargeSpeedup));
  }
  for (const auto& f : v.source_findings) {
    if (f.needs_review && !f.demotes) {
      v.needs_review = true;
      add_flag(v, "needs-review");
      add_flag(v, f.rule);
      v.notes.push_back("needs review (" + f.rule + "): " + f.message);
      continue;
    }
    if (!f.demotes) continue;
    if (v.level != -1) {
      v.level = -1;
      add_flag(v, "demoted");
    }
    v.reasons.push_back("demoted by source comparison: " + f.message);
  }
}

bool wants_sanitizer(const Verdict& v) { return v.level >= 2 && !v.needs_review; }

void apply_sanitizer(Verdict& v, const SanitizerEvidence& s) {
  v.sanitizer = s;
  if (!s.ran) {
    // A winner is offered only after its memcheck run.
    v.needs_review = true;
    add_flag(v, "sanitizer-not-run");
    v.notes.push_back("compute-sanitizer memcheck did not run (" + s.note +
                      "): not offered automatically until it does");
    return;
  }
  if (s.clean) {
    v.notes.push_back(fmt("compute-sanitizer memcheck: no errors in %d run(s) on exact-size allocations (%.1f s)",
                          s.runs, s.ms / 1000));
    return;
  }
  v.level = -1;
  add_flag(v, "sanitizer");
  add_flag(v, "demoted");
  v.reasons.push_back("demoted by compute-sanitizer memcheck (" + std::to_string(s.errors) +
                      " error(s)): " + s.report);
}

std::vector<std::string> missing_large_speedup_evidence(const Verdict& v) {
  std::vector<std::string> missing;
  if (!v.sanitizer) missing.push_back("compute-sanitizer memcheck did not run");
  else if (!v.sanitizer->ran || !v.sanitizer->clean) missing.push_back("compute-sanitizer memcheck was not clean");
  if (!v.timing || v.timing->fresh_sets < 1) missing.push_back("the timed runs did not use fresh input sets");
  if (v.timing && !v.timing->module_reloaded) missing.push_back("the module was not reloaded before timing");
  if (std::find(v.flags.begin(), v.flags.end(), "noisy-timing") != v.flags.end())
    missing.push_back("the timing is noisy");
  int passed = 0, varied = 0;
  for (const auto& s : v.input_sets) {
    if (!s.checked || !s.passed) continue;
    ++passed;
    if (s.origin.rfind("shape variation", 0) == 0) ++varied;
  }
  if (passed < 3) missing.push_back(fmt("only %d input set(s) were checked (3 needed)", passed));
  // A kernel without size arguments runs at one size in the program too;
  // any other must have been checked at a size it was not captured at.
  const bool sizeless = v.shapes_note.rfind("no integer scalar argument", 0) == 0;
  if (varied == 0 && !sizeless)
    missing.push_back("no other size was checked" + (v.shapes_note.empty() ? std::string() : " (" + v.shapes_note + ")"));
  return missing;
}

void require_complete_evidence(Verdict& v) {
  if (v.level < 2 || v.needs_review) return;
  if (std::find(v.flags.begin(), v.flags.end(), "large-speedup") == v.flags.end()) return;
  const auto missing = missing_large_speedup_evidence(v);
  if (missing.empty()) {
    v.notes.push_back(fmt("the %.1fx speedup has complete evidence: offered", v.speedup));
    return;
  }
  v.needs_review = true;
  add_flag(v, "incomplete-evidence");
  std::string why;
  for (const auto& m : missing) why += (why.empty() ? "" : "; ") + m;
  v.notes.push_back(fmt("a %.1fx speedup is held for review: ", v.speedup) + why);
}

}  // namespace warplens::verifier
