// The built-in policy: a best-first search over plans of named rewrites.
//
// A node is a source reached by a plan (a sequence of rewrite steps); its
// children are the rewrites that apply to that source (the engine checks
// applicability and safety each time, on a fresh parse). Children compose in
// a canonical order (stage, then catalogue order) so the same combination is
// not produced twice in different orders; each rewrite appears once per plan.
//
// Priority = product of the steps' predicted gains, boosted when a step
// addresses a static/measured finding of the kernel or what the profile
// shows (uncoalesced traffic, bank conflicts, low occupancy). Online, the
// verdicts steer it: children of a verified plan are ranked from its measured
// speedup, and nothing is built on an incorrect or slower plan.
//
// Offline (--candidates-only), generate_candidates() returns the best
// candidates without any GPU; the verifier decides later.
#pragma once

#include <map>
#include <optional>
#include <queue>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/policy.h"
#include "agent/rewrite_engine.h"

namespace warplens::agent {

struct SearchOptions {
  EngineOptions engine;
  int max_candidates = 24;     // offline: candidates returned
  int max_depth = 4;           // steps per plan
  int max_expansions = 24;     // parses of intermediate sources
  double max_seconds = 300;    // offline wall-time cap
};

// How much a finding or the profile boosts an option (exposed for tests).
double guidance_boost(const RewriteOption& option, const std::string& kernel, const std::vector<Finding>& findings,
                      const std::optional<ProfileHints>& profile);

struct SearchLog {
  std::vector<std::string> lines;  // what was expanded, refused, skipped
};

struct OfflineSearch {
  std::vector<Candidate> candidates;   // best predicted first
  std::vector<std::string> kernels;    // kernels in the file
  std::vector<RefusedRewrite> refused; // at the root: why each other rewrite does not apply
  SearchLog log;
  std::string error;                   // parse error, unknown kernel, engine missing
};

OfflineSearch generate_candidates(const SourceFile& file, const std::string& kernel,
                                  const std::vector<Finding>& findings, const std::optional<ProfileHints>& profile,
                                  const SearchOptions& options, std::stop_token stop = {});

class RewriteSearch final : public Policy {
 public:
  explicit RewriteSearch(SearchOptions options);
  std::string name() const override { return "builtin"; }
  std::vector<Candidate> propose(const PolicyContext& context, int max, std::stop_token stop) override;
  const SearchLog& log() const { return log_; }
  const std::vector<RefusedRewrite>& refused_at_root() const { return refused_; }

  // One node of the search tree (public for tests of the ordering).
  struct Node {
    RewritePlan plan;
    std::string source;
    std::string kernel;                      // current kernel name (fusion renames it)
    std::vector<LaunchChange> launch_changes;
    std::optional<FusionDeclaration> fusion;
    std::optional<ReassociatedTerms> reassociation;
    std::vector<std::string> notes;
    std::vector<std::string> motivations;
    double predicted = 1.0;                  // product of predicted gains (with guidance)
    RewriteStage last_stage = RewriteStage::Structure;
    int last_index = -1;                     // catalogue index of the last step
    bool expanded = false;
    std::string candidate_id;                // set once proposed
  };

 private:
  void expand(std::size_t node, const PolicyContext& context, std::stop_token stop);
  double priority(std::size_t node, const std::vector<TriedCandidate>& history) const;
  Candidate make_candidate(const Node& node, const SourceFile& original, const std::string& id) const;

  SearchOptions options_;
  std::vector<Node> nodes_;                  // 0 = the original
  std::map<std::size_t, std::size_t> parent_;
  std::set<std::string> seen_plans_;
  std::vector<std::size_t> proposal_order_;  // nodes in the order they were proposed
  std::vector<RefusedRewrite> refused_;
  SearchLog log_;
  int expansions_ = 0;
  int next_id_ = 1;
  bool started_ = false;
};

}  // namespace warplens::agent
