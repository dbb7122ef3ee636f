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

}  // namespace warplens
