#include "analysis/access_evaluation.h"

#include <map>
#include <tuple>

namespace warplens {

EvaluationTable evaluate_accesses(const std::vector<const BoundAccess*>& accesses, const KernelContexts& contexts,
                                  const AccessMeasure& measure) {
  EvaluationTable table(accesses.size(), std::vector<AccessEvaluation>(contexts.contexts.size()));
  for (std::size_t c = 0; c < contexts.contexts.size(); ++c) {
    const LaunchContext& ctx = contexts.contexts[c];
    EvalContext ec{ctx.shape, Assumption::LargeA, &ctx.known_params};
    std::vector<WarpLanes> warps;
    for (int w : representative_warps(ctx.shape)) warps.push_back(warp_lanes(ctx.shape, w));
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      const BoundAccess& access = *accesses[a];
      std::vector<LaneGuard> guards = lane_guards(access.guards);
      AccessEvaluation& best = table[a][c];
      for (const WarpLanes& w : warps) {
        AccessEvaluation e;
        e.warp = w;
        e.lanes = evaluate_access(access.byte_offset, guards, w, ec);
        if (!e.lanes.modelled) continue;
        e.modelled = true;
        measure(access, e);
        if (!best.modelled || e.ratio() > best.ratio()) best = std::move(e);
      }
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
    std::map<LineKey, std::pair<long, long>> line_totals;
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
      if (!e.modelled || e.ideal <= 0 || e.ratio() < threshold) continue;
      LineKey k{accesses[a]->owner, accesses[a]->access->range.start.line, accesses[a]->access->kind, accesses[a]->via};
      const auto& [actual, ideal] = line_totals[k];
      flagged[a][c] = ideal > 0 && double(actual) / double(ideal) >= threshold;
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
