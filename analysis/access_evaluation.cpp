#include "analysis/access_evaluation.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>

namespace warplens {

namespace {

struct IterationSample {
  std::map<std::string, std::int64_t> values;  // empty: no loop to sample
};

// The iterations of the non-affine loops around an access (Recur counts,
// warp_model.h) to average over: every combination of the first
// kIterationSamples of each, less those in which one of the access's loop
// conditions is false for the whole warp (the iteration does not run: a
// `stride > 0` loop that has already ended).
std::vector<IterationSample> iteration_samples(const BoundAccess& access, const EvalContext& ec,
                                              bool* never_runs = nullptr) {
  std::vector<std::string> names = iteration_symbols(access.byte_offset);
  if (names.empty()) return {IterationSample{}};
  std::vector<ExprRef> exits;
  for (const auto& l : access.loops)
    if (l.exit_condition && !iteration_symbols(l.exit_condition).empty()) exits.push_back(l.exit_condition);
  std::vector<IterationSample> out;
  std::vector<std::int64_t> index(names.size(), 0);
  WarpLanes w0 = warp_lanes(ec.shape, 0);
  while (true) {
    IterationSample s;
    for (std::size_t k = 0; k < names.size(); ++k) s.values[names[k]] = index[k];
    EvalContext c = ec;
    c.iterations = &s.values;
    bool runs = true;
    for (const auto& e : exits) {
      LaneValues v = evaluate_lanes(e, w0, c);
      if (v.known == w0.exists && w0.exists != 0) {
        bool any = false;
        for (int lane = 0; lane < kWarpSize; ++lane) any = any || (lane_in(w0.exists, lane) && v.value[lane] != 0);
        if (!any) runs = false;
      }
    }
    if (runs) out.push_back(std::move(s));
    const std::int64_t per_loop = names.size() == 1 ? kIterationSamples : kNestedIterationSamples;
    std::size_t k = 0;
    while (k < names.size() && ++index[k] == per_loop) index[k++] = 0;
    if (k == names.size()) break;
  }
  if (out.empty()) {
    // No sampled iteration runs; judged at the first anyway (the exit test
    // is modelled, not certain), and said so for the shift-count sampling.
    if (never_runs) *never_runs = true;
    return {IterationSample{}};
  }
  return out;
}

// The Recur (a loop variable walked by factors) whose count is Iteration
// symbol `name`: what the sampled iterations are iterations of.
ExprRef walked_variable(const ExprRef& e, const std::string& name) {
  if (!e) return nullptr;
  if (e->op == ExprOp::Recur && e->operands.size() == 3 &&
      mentions(e->operands[2], [&](const Symbol& s) { return s.kind == SymbolKind::Iteration && s.name == name; }))
    return e;
  for (const auto& o : e->operands)
    if (auto r = walked_variable(o, name)) return r;
  return nullptr;
}

// One access in one launch context with `params` for the kernel parameters:
// counts averaged over the warps, variations and loop iterations; the worst
// warp's lanes kept for the hover.
AccessEvaluation evaluate_one(const BoundAccess& access, const std::vector<WarpLanes>& warps, const EvalContext& ec,
                              int variations, const AccessMeasure& measure) {
  AccessEvaluation result;
  std::vector<LaneGuard> guards = lane_guards(access.guards);
  double total_actual = 0, total_ideal = 0, best_ratio = -1;
  int samples = 0, first_count = -1;
  bool unknown = false;
  bool never_runs = false;
  const std::vector<IterationSample> iterations = iteration_samples(access, ec, &never_runs);
  // With one sampled loop: the loop variable's value per iteration (it is
  // warp-uniform), and whether some warp's request conflicted at it.
  std::vector<std::string> loop_names = iteration_symbols(access.byte_offset);
  ExprRef walked = loop_names.size() == 1 ? walked_variable(access.byte_offset, loop_names[0]) : nullptr;
  std::map<std::int64_t, bool> value_conflicts;
  std::vector<std::int64_t> value_order;
  // A shared address from per-lane loaded data: random data, several draws.
  const int draws = access.indirect && access.space == MemorySpace::Shared ? kRandomDraws : 0;
  for (const WarpLanes& w : warps) {
    AccessEvaluation warp_eval;
    warp_eval.warp = w;
    long actual = 0, ideal = 0;
    for (int v = 0; v < variations * std::max(draws, 1) && !unknown; ++v) {
      for (const IterationSample& it : iterations) {
        EvalContext vc = ec;
        vc.variation = v % variations;
        vc.random_draw = draws ? 1 + v / variations : 0;
        vc.iterations = it.values.empty() ? nullptr : &it.values;
        AccessLanes lanes = evaluate_access(access.byte_offset, guards, w, vc);
        if (lanes.active == 0) continue;  // this warp does not execute the access
        if (!lanes.modelled) {
          unknown = true;
          break;
        }
        auto [n, i] = measure(access, lanes, warp_eval, !warp_eval.modelled);
        if (!warp_eval.modelled) {
          warp_eval.lanes = lanes;
          warp_eval.modelled = true;
        }
        if (i > 0) {
          const double r = double(n) / double(i);
          if (r > result.peak_ratio) result.peak_ratio = r;
          if (r > 1.0 + 1e-9) ++result.samples_in_excess;
          if (walked && !it.values.empty()) {
            LaneValues lv = evaluate_lanes(walked, w, vc);
            if (lv.known) {
              const std::int64_t value = lv.value[std::countr_zero(lv.known)];
              if (!value_conflicts.count(value)) value_order.push_back(value);
              value_conflicts[value] = value_conflicts[value] || r > 1.0 + 1e-9;
            }
          }
        }
        if (it.values.empty()) {
          if (first_count < 0) first_count = n;
          else if (n != first_count) result.alignment_varies = true;
        }
        actual += n;
        ideal += i;
        ++samples;
        ++result.samples;
      }
    }
    if (unknown) break;
    if (!warp_eval.modelled || ideal == 0) continue;
    total_actual += double(actual);
    total_ideal += double(ideal);
    double ratio = double(actual) / double(ideal);
    if (ratio > best_ratio) {
      best_ratio = ratio;
      AccessEvaluation kept = std::move(warp_eval);
      kept.alignment_varies = result.alignment_varies;
      kept.peak_ratio = result.peak_ratio;
      kept.samples = result.samples;
      kept.samples_in_excess = result.samples_in_excess;
      result = std::move(kept);
    }
  }
  if (unknown || samples == 0) return AccessEvaluation{};
  result.iterated = !iterations.front().values.empty();
  result.loop_never_runs = never_runs;
  if (walked) {
    result.loop_variable = walked->text;
    for (std::int64_t v : value_order) result.loop_values.push_back({v, value_conflicts[v]});
  }
  result.random_data = draws > 0;
  result.actual = total_actual / samples;
  result.ideal = total_ideal / samples;
  result.edge_warps_cut = guards_cut_edge_warps(guards, warps.front(), ec);
  return result;
}

// Kernel parameters used as a power-of-two mask (`x & (n - 1)`, also
// `x & (n / 4 - 1)`): the lane pattern depends on how n compares with the
// warp, which the large stand-in sizes never show. The first such
// parameter the launch does not fix.
std::string mask_parameter(const ExprRef& e, const std::map<std::string, std::int64_t>* known) {
  if (!e) return {};
  if (e->op == ExprOp::BitAnd)
    for (const auto& o : e->operands) {
      if (!o || o->op != ExprOp::Sub || o->operands.size() != 2 || !o->operands[1] ||
          o->operands[1]->op != ExprOp::Const || o->operands[1]->value != 1 || is_lane_varying(o))
        continue;
      std::string name;
      mentions(o->operands[0], [&](const Symbol& s) {
        if (s.kind == SymbolKind::Param && name.empty() && !(known && known->count(s.name))) name = s.name;
        return false;
      });
      if (!name.empty()) return name;
    }
  for (const auto& o : e->operands)
    if (auto n = mask_parameter(o, known); !n.empty()) return n;
  return {};
}

// A kernel parameter used as a shift count (`1 << log2N`, `n >> p`), also
// through a loop's start (`for (stride = N >> 2; ...)` with N = 1 << log2N):
// the large stand-in sizes overflow the shift, so the access goes
// unmodelled, and the lane pattern (which loop strides run) depends on the
// count. The first such parameter the launch does not fix.
std::string shift_parameter(const ExprRef& e, const std::map<std::string, std::int64_t>* known) {
  if (!e) return {};
  if ((e->op == ExprOp::Shl || e->op == ExprOp::Shr) && e->operands.size() == 2 && e->operands[1] &&
      !is_lane_varying(e->operands[1])) {
    std::string name;
    mentions(e->operands[1], [&](const Symbol& s) {
      if (s.kind == SymbolKind::Param && name.empty() && !(known && known->count(s.name))) name = s.name;
      return false;
    });
    if (!name.empty()) return name;
  }
  for (const auto& o : e->operands)
    if (auto n = shift_parameter(o, known); !n.empty()) return n;
  return {};
}

}  // namespace

EvaluationTable evaluate_accesses(const std::vector<const BoundAccess*>& accesses, const KernelContexts& contexts,
                                  int variations, const AccessMeasure& measure) {
  EvaluationTable table(accesses.size(), std::vector<AccessEvaluation>(contexts.contexts.size()));
  variations = std::max(variations, 1);
  for (std::size_t c = 0; c < contexts.contexts.size(); ++c) {
    const LaunchContext& ctx = contexts.contexts[c];
    EvalContext ec{ctx.shape, Assumption::LargeA, &ctx.known_params};
    std::vector<WarpLanes> warps;
    for (int w = 0; w < std::min(kAveragedWarps, warps_per_block(ctx.shape)); ++w)
      warps.push_back(warp_lanes(ctx.shape, w));
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      const BoundAccess& access = *accesses[a];
      AccessEvaluation& result = table[a][c];
      result = evaluate_one(access, warps, ec, variations, measure);
      // (Shared memory only: a scan's `2*tid - (tid & (n-1))`; a global index
      // masked by a size is rare, and its value is usually bounded by the
      // host code in ways the stand-ins already cover.)
      // (Shift counts: shared memory only too, where the sizes they make are
      // bounded by the block's shared memory.)
      const std::string shift = access.space == MemorySpace::Shared
                                    ? shift_parameter(access.byte_offset, &ctx.known_params)
                                    : "";
      if (!shift.empty()) {
        // Each count 0 .. kMaxShiftSample. A count for which the access
        // never runs (a loop from `N >> 2` with N = 2) gives no ratio. The
        // numbers shown (and flagged) are the largest count's that conflicts
        // at all, else the largest count's: large counts are the real data
        // sizes, run the most iterations, and average over them as the
        // hardware does; a tiny count's single 4-way iteration is not what
        // a run of the kernel looks like.
        std::vector<std::pair<std::int64_t, double>> ratios;
        AccessEvaluation shown;
        for (std::int64_t v = 0; v <= kMaxShiftSample; ++v) {
          std::map<std::string, std::int64_t> known = ctx.known_params;
          known[shift] = v;
          EvalContext vc = ec;
          vc.known_params = &known;
          AccessEvaluation e = evaluate_one(access, warps, vc, variations, measure);
          if (!e.modelled || e.loop_never_runs) continue;
          ratios.push_back({v, e.ratio()});
          if (!shown.modelled || e.ratio() > 1.0 + 1e-9 || shown.ratio() <= 1.0 + 1e-9) shown = std::move(e);
        }
        if (shown.modelled) {
          result = std::move(shown);
          result.sampled_parameter = shift;
          result.shift_parameter = true;
          result.parameter_ratios = std::move(ratios);
        }
        continue;
      }
      const std::string mask = result.modelled && access.space == MemorySpace::Shared
                                   ? mask_parameter(access.byte_offset, &ctx.known_params)
                                   : "";
      if (mask.empty()) continue;
      // Each plausible power of two (and the large stand-in already
      // evaluated): the numbers shown are the worst value's; which values
      // conflict is kept for the verdict.
      result.sampled_parameter = mask;
      result.parameter_ratios.push_back({-1, result.ratio()});
      for (std::int64_t v = 1; v <= kMaxMaskSample; v *= 2) {
        std::map<std::string, std::int64_t> known = ctx.known_params;
        known[mask] = v;
        EvalContext vc = ec;
        vc.known_params = &known;
        AccessEvaluation e = evaluate_one(access, warps, vc, variations, measure);
        if (!e.modelled) continue;
        result.parameter_ratios.push_back({v, e.ratio()});
        if (e.ratio() > result.ratio() + 1e-9) {
          auto ratios = std::move(result.parameter_ratios);
          result = std::move(e);
          result.parameter_ratios = std::move(ratios);
          result.sampled_parameter = mask;
        }
      }
    }
  }
  return table;
}

std::vector<std::vector<bool>> flag_accesses(const std::vector<const BoundAccess*>& accesses,
                                             const EvaluationTable& table, double threshold,
                                             double peak_threshold) {
  std::vector<std::vector<bool>> flagged(table.size());
  if (table.empty()) return flagged;
  const std::size_t contexts = table.front().size();
  // Accesses of one kind on one source line, reached through one call chain.
  using LineKey = std::tuple<const Function*, int, AccessKind, CallChain>;
  for (std::size_t c = 0; c < contexts; ++c) {
    std::map<LineKey, std::pair<double, double>> line_totals;
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      const AccessEvaluation& e = table[a][c];
      if (!e.modelled) continue;
      LineKey k{accesses[a]->owner, accesses[a]->access->range.start.line, accesses[a]->access->kind, accesses[a]->via};
      line_totals[k].first += e.actual;
      line_totals[k].second += e.ideal;
    }
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      flagged[a].resize(contexts, false);
      const AccessEvaluation& e = table[a][c];
      if (!e.modelled || e.ideal <= 0 || e.ratio() < threshold - 1e-9) continue;
      if (peak_threshold > 0 && e.peak_ratio < peak_threshold - 1e-9) continue;
      if (e.edge_warps_cut && e.ratio() < threshold + 1e-9) continue;
      LineKey k{accesses[a]->owner, accesses[a]->access->range.start.line, accesses[a]->access->kind, accesses[a]->via};
      const auto& [actual, ideal] = line_totals[k];
      flagged[a][c] = ideal > 0 && actual / ideal >= threshold - 1e-9;
    }
  }
  return flagged;
}

std::optional<Verdict> combine_contexts(const std::vector<bool>& flagged, const std::vector<AccessEvaluation>& evals,
                                        const KernelContexts& contexts, double threshold) {
  Verdict v;
  int flagged_count = 0, modelled = 0;
  for (std::size_t c = 0; c < flagged.size(); ++c) {
    if (evals[c].modelled) ++modelled;
    if (!flagged[c]) {
      if (evals[c].modelled) v.clear.push_back(int(c));
      continue;
    }
    v.flagged.push_back(int(c));
    ++flagged_count;
    if (v.context < 0 || evals[c].ratio() > evals[std::size_t(v.context)].ratio()) v.context = int(c);
  }
  if (flagged_count == 0) return std::nullopt;
  if (!contexts.shape_known && flagged_count < modelled) {
    v.shape_dependent = true;
    v.severity = Severity::Information;
  }
  // With guessed shapes that all agree, show the documented default's numbers.
  if (!contexts.shape_known && !v.shape_dependent)
    for (std::size_t c = 0; c < contexts.contexts.size(); ++c)
      if (contexts.contexts[c].primary && flagged[c]) v.context = int(c);
  // A mask parameter the launch does not give: a warning only if every
  // plausible value conflicts. Random data: the real data decides.
  const AccessEvaluation& e = evals[std::size_t(v.context)];
  if (e.random_data) {
    v.random_data = true;
    v.severity = Severity::Information;
  }
  if (!e.sampled_parameter.empty() && threshold > 0) {
    std::vector<std::int64_t> hit;
    for (const auto& [value, ratio] : e.parameter_ratios)
      if (ratio >= threshold - 1e-9) hit.push_back(value);
    if (hit.size() < e.parameter_ratios.size()) {
      v.parameter = e.sampled_parameter;
      v.parameter_values = hit;
      v.parameter_shift = e.shift_parameter;
      v.severity = Severity::Information;
    }
  }
  // A loop whose range a run-time shift count sets, conflicting at some of
  // its values only: how much of the line's traffic conflicts is the
  // count's (and the data size's), so information naming the values.
  if (e.shift_parameter && !e.loop_variable.empty()) {
    for (const auto& [value, conflicts] : e.loop_values)
      (conflicts ? v.loop_conflicting : v.loop_clean).push_back(value);
    if (!v.loop_conflicting.empty() && !v.loop_clean.empty()) {
      v.loop_variable = e.loop_variable;
      v.loop_parameter = e.sampled_parameter;
      v.severity = Severity::Information;
    } else {
      v.loop_conflicting.clear();
      v.loop_clean.clear();
    }
  }
  return v;
}

Judgement judge_accesses(const KernelView& view, const KernelContexts& contexts,
                         const std::function<bool(const BoundAccess&)>& judged, int variations,
                         const AccessMeasure& measure, double threshold, double peak_threshold) {
  Judgement j;
  for (const auto& a : view.accesses)
    if (judged(a)) j.accesses.push_back(&a);
  j.table = evaluate_accesses(j.accesses, contexts, variations, measure);
  auto flags = flag_accesses(j.accesses, j.table, threshold, peak_threshold);
  for (std::size_t i = 0; i < j.accesses.size(); ++i) {
    auto verdict = combine_contexts(flags[i], j.table[i], contexts, threshold);
    if (!verdict) continue;
    const std::size_t c = std::size_t(verdict->context);
    j.reported.push_back({j.accesses[i], *verdict, &j.table[i][c], &contexts.contexts[c], i});
  }
  return j;
}

namespace {

// "16×16", "16×16 and 32×32", "16×16, 32×8 and 32×32"; `count` the distinct shapes.
std::string shape_list(const std::vector<int>& indices, const KernelContexts& contexts, std::size_t* count = nullptr) {
  std::vector<std::string> names;
  for (int i : indices) {
    std::string n = format_block_shape(contexts.contexts[std::size_t(i)].shape);
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  if (count) *count = names.size();
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

// "8", "8 and 2", "512, 128 and 32".
std::string value_list(const std::vector<std::int64_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += i + 1 == values.size() ? " and " : ", ";
    out += std::to_string(values[i]);
  }
  return out;
}

}  // namespace

std::string context_note(const Verdict& v, const KernelContexts& contexts, const BoundAccess& a,
                         const KernelView& view) {
  const LaunchContext& ctx = contexts.contexts[std::size_t(v.context)];
  std::string note;
  if (v.shape_dependent) {
    std::size_t n = 0;
    std::string flagged = shape_list(v.flagged, contexts, &n);
    note = "; only with the guessed block" + std::string(n > 1 ? "s " : " ") + flagged + " (not " +
           shape_list(v.clear, contexts) + ")";
  } else if (ctx.origin == ShapeOrigin::LaunchSite && contexts.contexts.size() > 1)
    note = "; worst with block " + format_block_shape(ctx.shape);
  if (!v.parameter.empty()) {
    // Mask values are powers of two in increasing order, -1 (large) first;
    // shift counts are 0, 1, 2, ... (no large stand-in).
    std::vector<std::int64_t> small;
    bool large = false;
    for (auto x : v.parameter_values) {
      if (x < 0) large = true;
      else small.push_back(x);
    }
    note += "; only for some values of `" + v.parameter + "`, which the launch does not give: ";
    if (v.parameter_shift) {
      note += "when it is " + value_list(small) + " (a shift count: the index is built from `1 << …`)";
    } else if (!small.empty() && !large && small.front() == 1)
      note += "when it is at most " + std::to_string(small.back());
    else {
      std::string list;
      for (std::size_t i = 0; i < small.size(); ++i) list += (i ? ", " : "") + std::to_string(small[i]);
      if (large) list += std::string(list.empty() ? "" : ", ") + "large values";
      note += "when it is " + list;
    }
    if (!v.parameter_shift) note += " (a power of two: the index masks with it, `& (… - 1)`)";
  }
  if (!v.loop_variable.empty())
    note += "; in the iterations where `" + v.loop_variable + "` is " + value_list(v.loop_conflicting) +
            ", not where it is " + value_list(v.loop_clean) + " (which iterations run depends on `" +
            v.loop_parameter + "`)";
  if (v.random_data)
    note += "; the address comes from loaded data, modelled as uniformly random values (the real data decides)";
  if (!a.via.empty()) note += " (in kernel `" + view.kernel->name + "`, " + describe_chain(a.via) + ")";
  return note;
}

std::string shape_paragraph(const Verdict& v, const KernelContexts& contexts, const AccessEvaluation& e) {
  const LaunchContext& ctx = contexts.contexts[std::size_t(v.context)];
  std::string s = "Block shape **" + format_block_shape(ctx.shape) + "** from " + ctx.source + "; warp " +
                  std::to_string(e.warp.warp) + " (linear thread ids " + std::to_string(e.warp.warp * kWarpSize) +
                  "–" + std::to_string(e.warp.warp * kWarpSize + kWarpSize - 1) + ").";
  if (v.shape_dependent)
    s += " Other plausible block shapes give a different verdict, so this is reported as information; a launch "
         "site (or the per-kernel block setting) makes it definite.";
  return s;
}

void set_context_evidence(Finding& f, const Verdict& v, const KernelContexts& contexts, const BoundAccess& a) {
  const LaunchContext& ctx = contexts.contexts[std::size_t(v.context)];
  f.data.set("access", std::string(to_string(a.access->kind)));
  f.data.set("block_shape", format_block_shape(ctx.shape));
  f.data.set("block_source", ctx.source);
  f.data.set("shape_dependent", v.shape_dependent);
}

namespace {

// "`idx[…]`", "`search(…)`", "`pos`".
std::string short_spelling(const ExprRef& e) {
  if (!e) return "?";
  const std::string name = e->text.empty() ? "?" : e->text;
  switch (e->op) {
    case ExprOp::Load: return "`" + name + "[…]`";
    case ExprOp::Call: return "`" + name + "(…)`";
    default: return "`" + name + "`";
  }
}

ExprRef first_load(const ExprRef& e) {
  if (!e) return nullptr;
  if (e->op == ExprOp::Load) return e;
  for (const auto& o : e->operands)
    if (auto r = first_load(o)) return r;
  return nullptr;
}

// What the address depends on, in words: "`idx[…]` (a value each lane loads)".
std::string dependence_phrase(const ExprRef& source, std::string* spelled) {
  if (!source) {
    if (spelled) *spelled = "loaded data";
    return "values loaded from memory";
  }
  if (spelled) *spelled = short_spelling(source);
  switch (source->op) {
    case ExprOp::Load: return short_spelling(source) + ", a value each lane loads from memory";
    case ExprOp::Call: return "the result of " + short_spelling(source) + ", computed from loaded values";
    default: {
      ExprRef load = first_load(source);
      const std::string from = load ? short_spelling(load) : std::string("loaded values");
      if (spelled) *spelled = short_spelling(source) + ", which depends on loaded " + from;
      return short_spelling(source) + ", which the code updates under conditions on (or from) " + from +
             ", loaded from memory: a search over loaded data";
    }
  }
}

}  // namespace

bool per_lane_data_dependent(const BoundAccess& a, const KernelContexts& contexts) {
  if (!a.indirect || contexts.contexts.empty()) return false;
  if (!a.byte_offset) return true;
  const LaunchContext& ctx = contexts.contexts.front();
  EvalContext ec{ctx.shape, Assumption::LargeA, &ctx.known_params};
  const std::vector<LaneGuard> guards = lane_guards(a.guards);
  bool any = false;
  for (int w = 0; w < std::min(kAveragedWarps, warps_per_block(ctx.shape)); ++w) {
    const WarpLanes warp = warp_lanes(ctx.shape, w);
    // A guard false for the whole warp (`threadIdx.x == 0` in warps 1, 2,
    // ...): the warp does not run the access (active_lanes keeps such a
    // warp whole, as it cannot tell a boundary warp from it).
    bool skipped = false;
    for (const LaneGuard& g : guards) {
      // Only a guard on the thread index and block shape: one on loaded
      // values or parameters (`jj < row_ptr[w + 1]`, `i < segmentSamples`)
      // compares stand-ins, whose order says nothing.
      std::function<bool(const ExprRef&)> structural = [&](const ExprRef& e) -> bool {
        if (!e) return false;
        if (e->op == ExprOp::Sym)
          return e->symbol.kind == SymbolKind::ThreadIdx || e->symbol.kind == SymbolKind::BlockDim ||
                 e->symbol.kind == SymbolKind::WarpSize;
        if (e->op == ExprOp::Load || e->op == ExprOp::Call || e->op == ExprOp::Opaque || e->op == ExprOp::Recur)
          return false;
        for (const auto& o : e->operands)
          if (!structural(o)) return false;
        return true;
      };
      if (!structural(g.condition)) continue;
      ConditionLanes c = classify_condition(g.condition, warp, warp.exists, ec);
      if (c.split == LaneSplit::Uniform && (c.true_lanes != 0) != g.taken) skipped = true;
    }
    if (skipped) continue;
    AccessLanes lanes = evaluate_access(a.byte_offset, guards, warp, ec);
    if (lanes.active == 0) continue;
    if (lanes.modelled) return false;  // the loaded part is warp-uniform: judged by the model
    // One lane of the warp: nothing to coalesce or conflict with.
    if (lane_count(lanes.active) > 1) any = true;
  }
  return any;
}

Finding data_dependent_finding(const BoundAccess& a, const KernelView& view, const KernelContexts& contexts,
                               const std::string& file, const std::string& code) {
  const MemoryAccess& m = *a.access;
  const bool shared = a.space == MemorySpace::Shared;
  const LaunchContext& ctx = contexts.contexts.front();
  std::string spelled;
  const std::string depends = dependence_phrase(data_dependence_source(a.byte_offset), &spelled);
  const int bytes = m.element_bytes > 0 ? m.element_bytes : 4;
  const int ideal = std::max(1, (kWarpSize * bytes + kSectorBytes - 1) / kSectorBytes);
  Finding f;
  f.code = code;
  f.severity = Severity::Information;
  f.location = {file_of(*a.owner, file), m.range};
  f.related = call_chain_related(a.via, a.via_in, file);
  f.kernel = view.kernel->key;
  std::ostringstream msg;
  msg << "data-dependent " << (shared ? "shared " : "") << to_string(m.kind) << " of `" << m.spelling
      << "` (address from " << spelled << "): the lanes' addresses are not known statically; the data decides — ";
  if (shared)
    msg << "distinct words in one bank serialise, scattered addresses cost up to a 32-way conflict";
  else
    msg << "clustered addresses share sectors, scattered ones cost up to 32 sectors per request (ideal " << ideal
        << ")";
  if (!a.via.empty()) msg << " (in kernel `" << view.kernel->name << "`, " << describe_chain(a.via) << ")";
  f.message = msg.str();
  std::ostringstream md;
  md << "**Data-dependent " << (shared ? "shared-memory " : "global ") << to_string(m.kind) << "** `" << m.spelling
     << "`\n\nEach lane's address depends on " << depends
     << ", so the warp model cannot place the lanes of a warp. How many "
     << (shared ? "wavefronts (bank conflicts)" : "32-byte sectors")
     << " a warp request needs is decided by the data at run time: ";
  if (shared)
    md << "lanes whose words fall into distinct banks (or share one word) cost one wavefront; distinct words in one "
          "bank serialise, up to 32 wavefronts when every lane hits the same bank.";
  else
    md << "addresses that cluster (sorted or nearby indices) share sectors; scattered ones cost one sector per lane, "
          "up to 32 per request against an ideal of "
       << ideal << " for " << bytes << "-byte elements.";
  md << "\n\nReported as information: the analysis cannot say whether this access is costly, only that its cost "
        "is the data's. Profile the kernel (`warplens profile`) to measure it; a search or scatter that the "
        "profile shows to be costly can often be staged through shared memory or restructured so that the "
        "lanes' positions are computed from the thread index.";
  f.explanation_markdown = md.str();
  f.data.set("access", std::string(to_string(m.kind)));
  f.data.set("space", std::string(to_string(a.space)));
  f.data.set("data_dependent", true);
  f.data.set("depends_on", spelled.substr(0, spelled.find(',')));
  f.data.set("block_shape", format_block_shape(ctx.shape));
  f.data.set("block_source", ctx.source);
  return f;
}

}  // namespace warplens
