#include "analysis/access_evaluation.h"

#include <map>
#include <tuple>

namespace warplens {

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
      std::vector<LaneGuard> guards = lane_guards(access.guards);
      AccessEvaluation& result = table[a][c];
      double total_actual = 0, total_ideal = 0, best_ratio = -1;
      int samples = 0, first_count = -1;
      bool unknown = false;
      for (const WarpLanes& w : warps) {
        AccessEvaluation warp_eval;
        warp_eval.warp = w;
        long actual = 0, ideal = 0;
        for (int v = 0; v < variations && !unknown; ++v) {
          EvalContext vc = ec;
          vc.variation = v;
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
          if (first_count < 0) first_count = n;
          else if (n != first_count) result.alignment_varies = true;
          actual += n;
          ideal += i;
          ++samples;
        }
        if (unknown) break;
        if (!warp_eval.modelled || ideal == 0) continue;
        total_actual += double(actual);
        total_ideal += double(ideal);
        double ratio = double(actual) / double(ideal);
        if (ratio > best_ratio) {
          best_ratio = ratio;
          bool varies = result.alignment_varies;
          result = std::move(warp_eval);
          result.alignment_varies = varies;
        }
      }
      if (unknown || samples == 0) {
        result = AccessEvaluation{};
        continue;
      }
      result.actual = total_actual / samples;
      result.ideal = total_ideal / samples;
      result.edge_warps_cut = guards_cut_edge_warps(guards, warps.front(), ec);
    }
  }
  return table;
}

std::vector<std::vector<bool>> flag_accesses(const std::vector<const BoundAccess*>& accesses,
                                             const EvaluationTable& table, double threshold) {
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
      if (e.edge_warps_cut && e.ratio() < threshold + 1e-9) continue;
      LineKey k{accesses[a]->owner, accesses[a]->access->range.start.line, accesses[a]->access->kind, accesses[a]->via};
      const auto& [actual, ideal] = line_totals[k];
      flagged[a][c] = ideal > 0 && actual / ideal >= threshold - 1e-9;
    }
  }
  return flagged;
}

std::optional<Verdict> combine_contexts(const std::vector<bool>& flagged, const std::vector<AccessEvaluation>& evals,
                                        const KernelContexts& contexts) {
  Verdict v;
  int flagged_count = 0, modelled = 0;
  for (std::size_t c = 0; c < flagged.size(); ++c) {
    if (evals[c].modelled) ++modelled;
    if (!flagged[c]) continue;
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
  return v;
}

Judgement judge_accesses(const KernelView& view, const KernelContexts& contexts,
                         const std::function<bool(const BoundAccess&)>& judged, int variations,
                         const AccessMeasure& measure, double threshold) {
  Judgement j;
  for (const auto& a : view.accesses)
    if (judged(a)) j.accesses.push_back(&a);
  j.table = evaluate_accesses(j.accesses, contexts, variations, measure);
  auto flags = flag_accesses(j.accesses, j.table, threshold);
  for (std::size_t i = 0; i < j.accesses.size(); ++i) {
    auto verdict = combine_contexts(flags[i], j.table[i], contexts);
    if (!verdict) continue;
    const std::size_t c = std::size_t(verdict->context);
    j.reported.push_back({j.accesses[i], *verdict, &j.table[i][c], &contexts.contexts[c], i});
  }
  return j;
}

std::string context_note(const Verdict& v, const KernelContexts& contexts, const BoundAccess& a,
                         const KernelView& view) {
  const LaunchContext& ctx = contexts.contexts[std::size_t(v.context)];
  std::string note;
  if (v.shape_dependent)
    note = "; with the guessed block " + format_block_shape(ctx.shape) + ", other block shapes differ";
  else if (ctx.origin == ShapeOrigin::LaunchSite && contexts.contexts.size() > 1)
    note = "; worst with block " + format_block_shape(ctx.shape);
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

}  // namespace warplens
