#include "agent/search.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "agent/text_diff.h"

namespace warplens::agent {

namespace {

int catalogue_index(const std::string& name) {
  const auto& cat = rewrite_catalogue();
  for (std::size_t i = 0; i < cat.size(); ++i)
    if (cat[i].name == name) return static_cast<int>(i);
  return static_cast<int>(cat.size());
}

bool finding_concerns(const Finding& f, const std::string& kernel) {
  if (f.kernel.empty()) return true;  // file-level: may concern any kernel
  // Function::key is "name(signature)" or a qualified name: match the name part.
  const std::string& k = f.kernel;
  const auto pos = k.find(kernel);
  if (pos == std::string::npos) return false;
  const bool start_ok = pos == 0 || k[pos - 1] == ':' || k[pos - 1] == ' ';
  const std::size_t end = pos + kernel.size();
  const bool end_ok = end == k.size() || k[end] == '(' || k[end] == '<';
  return start_ok && end_ok;
}

// What makes two plans the same idea: their restructuring steps (with
// parameters), or their first step when they restructure nothing. The
// offline candidates are verified in a fixed number of slots, so plans that
// only decorate an idea already proposed make room for other ideas.
std::string idea_of(const RewritePlan& plan) {
  std::string key;
  for (const RewriteStep& s : plan)
    if (const RewriteInfo* info = find_rewrite(s.rewrite); info && info->stage == RewriteStage::Structure)
      key += s.to_string() + ";";
  if (key.empty() && !plan.empty()) key = plan.front().to_string();
  return key;
}

}  // namespace

double guidance_boost(const RewriteOption& option, const std::string& kernel, const std::vector<Finding>& findings,
                      const std::optional<ProfileHints>& profile) {
  double boost = 1.0;
  for (const Finding& f : findings) {
    if (!finding_concerns(f, kernel)) continue;
    if (std::find(option.addresses.begin(), option.addresses.end(), f.code) != option.addresses.end()) {
      boost = std::max(boost, f.severity == Severity::Warning || f.severity == Severity::Error ? 1.5 : 1.2);
    }
  }
  if (profile) {
    auto addresses = [&](const char* code) {
      return std::find(option.addresses.begin(), option.addresses.end(), code) != option.addresses.end();
    };
    if (profile->sectors_per_request && *profile->sectors_per_request > 8 && addresses(codes::kUncoalescedGlobal))
      boost *= 1.3;
    if (profile->bank_conflict_ratio && *profile->bank_conflict_ratio > 1.5 && addresses(codes::kSharedBankConflict))
      boost *= 1.3;
    if (profile->achieved_occupancy_pct && *profile->achieved_occupancy_pct < 40 && addresses(codes::kLowOccupancy))
      boost *= 1.3;
    // A memory-bound kernel gains from fewer bytes and wider accesses first.
    if (profile->dram_throughput_pct && *profile->dram_throughput_pct > 60 &&
        (option.step.rewrite == "vectorize" || option.step.rewrite == "fuse-elementwise"))
      boost *= 1.1;
  }
  return boost;
}

RewriteSearch::RewriteSearch(SearchOptions options) : options_(std::move(options)) {}

void RewriteSearch::expand(std::size_t index, const PolicyContext& context, std::stop_token stop) {
  if (nodes_[index].expanded) return;
  nodes_[index].expanded = true;
  if (static_cast<int>(nodes_[index].plan.size()) >= options_.max_depth) return;
  ++expansions_;
  const Node parent = nodes_[index];  // copy: nodes_ grows below
  KernelSurvey survey =
      survey_kernel({context.file.path, parent.source}, parent.kernel, options_.engine, /*apply=*/true, stop);
  if (!survey.parsed || !survey.error.empty()) {
    log_.lines.push_back("expand [" + to_string(parent.plan) + "]: " + survey.error);
    return;
  }
  if (index == 0) refused_ = survey.refused;
  std::set<std::string> used;
  for (const auto& s : parent.plan) used.insert(s.rewrite);
  // Best variant of each rewrite keeps growing; the other variants are leaves.
  std::map<std::string, double> best_variant;
  for (const RewriteOption& o : survey.options)
    best_variant[o.step.rewrite] = std::max(best_variant[o.step.rewrite], o.predicted_gain);
  int added = 0;
  for (const RewriteOption& o : survey.options) {
    const int ci = catalogue_index(o.step.rewrite);
    if (used.count(o.step.rewrite) && o.step.rewrite != "pad-shared") continue;
    if (static_cast<int>(o.stage) < static_cast<int>(parent.last_stage) ||
        (o.stage == parent.last_stage && ci < parent.last_index && !parent.plan.empty()))
      continue;
    if (!o.result || !o.result->ok) {
      log_.lines.push_back("apply " + o.step.to_string() + " after [" + to_string(parent.plan) +
                           "] failed: " + (o.result ? o.result->error : "not applied"));
      continue;
    }
    Node child;
    child.plan = parent.plan;
    child.plan.push_back(o.step);
    const std::string key = to_string(child.plan);
    if (!seen_plans_.insert(key).second) continue;
    child.source = o.result->source;
    child.kernel = o.result->result_kernel.empty() ? parent.kernel : o.result->result_kernel;
    child.launch_changes = parent.launch_changes;
    for (const auto& l : o.result->launch_changes) child.launch_changes.push_back(l);
    child.fusion = o.result->fusion ? o.result->fusion : parent.fusion;
    child.reassociation = combine_reassociations(parent.reassociation, o.result->reassociation);
    child.notes = parent.notes;
    for (const auto& n : o.result->notes) child.notes.push_back(o.step.rewrite + ": " + n);
    child.motivations = parent.motivations;
    child.motivations.push_back(o.step.rewrite + ": " + o.motivation);
    child.predicted = parent.predicted * std::max(0.5, o.predicted_gain) *
                      guidance_boost(o, context.kernel, context.findings, context.profile);
    child.last_stage = o.stage;
    child.last_index = ci;
    // Parameter variants other than the best one are not built upon.
    child.expanded = o.predicted_gain < best_variant[o.step.rewrite];
    nodes_.push_back(std::move(child));
    parent_[nodes_.size() - 1] = index;
    ++added;
  }
  // An enabling step (inline-device-call) predicts no gain of its own, so
  // its plan would never rank high enough to be expanded: expand it now,
  // and its children compete with their own predictions.
  const std::size_t last = nodes_.size();
  for (std::size_t i = last - static_cast<std::size_t>(added); i < last; ++i)
    if (const RewriteInfo* info = find_rewrite(nodes_[i].plan.back().rewrite); info && info->enabling && !stop.stop_requested())
      expand(i, context, stop);
  log_.lines.push_back("expanded [" + to_string(parent.plan) + "] (" + std::to_string(survey.parse_seconds).substr(0, 4) +
                       " s parse): " + std::to_string(added) + " new plan(s)");
}

double RewriteSearch::priority(std::size_t index, const std::vector<TriedCandidate>& history) const {
  const Node& n = nodes_[index];
  // Walk up: the closest proposed ancestor with a verdict decides.
  std::size_t at = index;
  double measured_factor = 1.0;
  while (parent_.count(at)) {
    const std::size_t up = parent_.at(at);
    const Node& a = nodes_[up];
    if (!a.candidate_id.empty()) {
      for (const auto& t : history)
        if (t.candidate.id == a.candidate_id) {
          if (t.verdict.level == RewardLevel::Incorrect) return -1;  // never build on a wrong plan
          if (t.verdict.speedup > 0) {
            // Replace the ancestor's prediction with what it measured.
            measured_factor = t.verdict.speedup / std::max(1e-9, a.predicted);
            if (t.verdict.speedup < 0.95) return -1;  // slower: prune
          }
        }
      break;
    }
    at = up;
  }
  return n.predicted * measured_factor;
}

Candidate RewriteSearch::make_candidate(const Node& n, const SourceFile& original, const std::string& id) const {
  Candidate c;
  c.id = id;
  c.kernel = nodes_.empty() ? n.kernel : nodes_[0].kernel;
  c.result_kernel = n.kernel;
  c.policy = "builtin";
  c.plan = n.plan;
  std::string desc;
  for (const auto& m : n.motivations) desc += (desc.empty() ? "" : "; ") + m;
  c.description = desc;
  c.source = n.source;
  c.edits = minimal_edits(original.text, n.source);
  c.launch_changes = n.launch_changes;
  c.fusion = n.fusion;
  c.reassociation = n.reassociation;
  c.notes = n.notes;
  c.predicted_gain = n.predicted;
  return c;
}

std::vector<Candidate> RewriteSearch::propose(const PolicyContext& context, int max, std::stop_token stop) {
  if (!started_) {
    started_ = true;
    Node root;
    root.source = context.file.text;
    root.kernel = context.kernel;
    nodes_.push_back(std::move(root));
    expand(0, context, stop);
  }
  std::vector<Candidate> out;
  while (static_cast<int>(out.size()) < max && !stop.stop_requested()) {
    // The best node not yet proposed. Siblings that differ only in the
    // parameters of their last step are spread out (x0.88 per sibling already
    // proposed), and so are plans ending in a step already tried elsewhere
    // (x0.95) and plans of an idea already proposed (x0.85 each: the same
    // restructuring steps), so that a few rewrites do not crowd out the others.
    // A hedge: after three proposals in a row that all reorder float sums
    // (which the verifier judges by a widened tolerance, and which a sum can
    // still fail), the next one is the best plan that keeps the original's
    // order, when one is predicted faster at all: a speedup that needs no
    // tolerance is among the candidates too.
    int proposed = 0, reordering = 0;
    for (auto it = proposal_order_.rbegin(); it != proposal_order_.rend() && proposed < 3; ++it, ++proposed)
      if (nodes_[*it].reassociation) ++reordering;
    bool hedge = proposed == 3 && reordering == 3;
    if (hedge) {
      hedge = false;
      for (std::size_t i = 1; i < nodes_.size() && !hedge; ++i)
        hedge = nodes_[i].candidate_id.empty() && !nodes_[i].reassociation && priority(i, context.history) > 1.0;
    }
    std::size_t best = 0;
    double best_p = 0;
    for (std::size_t i = 1; i < nodes_.size(); ++i) {
      if (!nodes_[i].candidate_id.empty()) continue;
      if (hedge && nodes_[i].reassociation) continue;
      double p = priority(i, context.history);
      if (p <= 0) continue;
      const std::size_t parent = parent_.count(i) ? parent_.at(i) : 0;
      for (std::size_t j = 1; j < nodes_.size(); ++j) {
        if (j == i || nodes_[j].candidate_id.empty()) continue;
        if (parent_.count(j) && parent_.at(j) == parent && nodes_[j].plan.back().rewrite == nodes_[i].plan.back().rewrite)
          p *= 0.88;
        // The same finishing step tried on many plans teaches little: x0.95 each.
        else if (nodes_[j].plan.back() == nodes_[i].plan.back())
          p *= 0.95;
        if (idea_of(nodes_[j].plan) == idea_of(nodes_[i].plan)) p *= 0.85;
      }
      if (p > best_p) {
        best_p = p;
        best = i;
      }
    }
    if (best == 0) {
      // Nothing left: grow the tree from the best proposed node not yet expanded.
      std::size_t grow = 0;
      double grow_p = 0;
      for (std::size_t i = 1; i < nodes_.size(); ++i) {
        if (nodes_[i].expanded || nodes_[i].candidate_id.empty()) continue;
        double p = priority(i, context.history);
        for (const auto& t : context.history)
          if (t.candidate.id == nodes_[i].candidate_id) p = t.verdict.level == RewardLevel::Incorrect ? -1 : t.verdict.speedup > 0 ? t.verdict.speedup : p;
        if (p > grow_p) {
          grow_p = p;
          grow = i;
        }
      }
      if (grow == 0 || expansions_ >= options_.max_expansions) break;
      expand(grow, context, stop);
      continue;
    }
    char id[16];
    std::snprintf(id, sizeof id, "c%02d", next_id_++);
    nodes_[best].candidate_id = id;
    proposal_order_.push_back(best);
    out.push_back(make_candidate(nodes_[best], context.file, id));
    // Grow under what was just proposed, so deeper plans are ready next round.
    if (!nodes_[best].expanded && expansions_ < options_.max_expansions) expand(best, context, stop);
  }
  return out;
}

OfflineSearch generate_candidates(const SourceFile& file, const std::string& kernel,
                                  const std::vector<Finding>& findings, const std::optional<ProfileHints>& profile,
                                  const SearchOptions& options, std::stop_token stop) {
  OfflineSearch result;
  if (!rewrite_engine_available()) {
    result.error = survey_kernel(file, kernel, options.engine, false).error;
    return result;
  }
  const auto start = std::chrono::steady_clock::now();
  RewriteSearch search(options);
  std::vector<TriedCandidate> none;
  PolicyContext ctx{file, kernel, findings, profile, none, {}, nullptr};
  // Without verdicts the search is purely predicted: ask until the budget.
  while (static_cast<int>(result.candidates.size()) < options.max_candidates && !stop.stop_requested()) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > options.max_seconds) {
      result.log.lines.push_back("stopped: offline time budget");
      break;
    }
    auto batch = search.propose(ctx, 1, stop);
    if (batch.empty()) break;
    for (auto& c : batch) result.candidates.push_back(std::move(c));
  }
  result.refused = search.refused_at_root();
  result.log = search.log();
  if (result.candidates.empty()) {
    KernelSurvey s = survey_kernel(file, kernel, options.engine, false, stop);
    result.kernels = s.kernels;
    if (!s.error.empty()) result.error = s.error;
    result.refused = s.refused;
  }
  // Best predicted first, spread over ideas: each pick is the candidate with
  // the highest predicted gain x 0.85 per candidate of the same idea already
  // picked, the order a verifier with few slots (--max-candidates) takes.
  std::vector<Candidate> ordered;
  std::map<std::string, int> picked;
  while (!result.candidates.empty()) {
    std::size_t best = 0;
    double best_score = -1;
    for (std::size_t i = 0; i < result.candidates.size(); ++i) {
      const double score = result.candidates[i].predicted_gain *
                           std::pow(0.85, static_cast<double>(picked[idea_of(result.candidates[i].plan)]));
      if (score > best_score) {
        best_score = score;
        best = i;
      }
    }
    ++picked[idea_of(result.candidates[best].plan)];
    ordered.push_back(std::move(result.candidates[best]));
    result.candidates.erase(result.candidates.begin() + static_cast<long>(best));
  }
  result.candidates = std::move(ordered);
  return result;
}

}  // namespace warplens::agent
