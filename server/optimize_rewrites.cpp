#include "server/optimize_rewrites.h"

#include <algorithm>
#include <cstdio>

#include "agent/rewrite_engine.h"

namespace warplens::server {

namespace {

const agent::TriedCandidate* tried_for(const agent::OptimizeResult& result, const std::string& id) {
  for (const auto& t : result.tried)
    if (t.candidate.id == id) return &t;
  return nullptr;
}

bool verified_winner(const agent::CandidateVerdict& v) {
  return v.compiled && v.correct && agent::to_int(v.level) >= agent::to_int(agent::RewardLevel::Faster) &&
         !v.implausible && !v.verifier_failed && v.speedup > 0;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// What the rewrite is called: its plan for the built-in engine, the first
// line of its description for a free-form edit.
std::string rewrite_name(const agent::Candidate& c) {
  if (!c.plan.empty()) return agent::to_string(c.plan);
  if (!c.description.empty()) return first_line(c.description);
  return "Rewrite " + c.id;
}

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g ms", v);
  return b;
}

std::string evidence(const agent::TriedCandidate& t, const std::string& gpu) {
  const auto& v = t.verdict;
  std::string s = "**" + format_speedup(v.speedup) + " faster** on " + gpu + ": median " + ms(v.original.median_ms) +
                  " → " + ms(v.candidate.median_ms) + " (" + std::to_string(v.candidate.runs) + " timed runs); " +
                  "correct on " + std::to_string(v.input_sets) + " input sets; reward level " +
                  std::to_string(agent::to_int(v.level)) + " (" + agent::describe(v.level) + ").";
  for (const auto& step : t.candidate.plan)
    for (const auto& info : agent::rewrite_catalogue())
      if (info.name == step.rewrite) s += "\n- `" + step.to_string() + "`: " + info.summary;
  if (t.candidate.plan.empty() && !t.candidate.description.empty()) s += "\n\n" + t.candidate.description;
  if (!t.candidate.launch_changes.empty()) s += "\n\nThe kernel's launch configuration changes too (host code is edited).";
  return s;
}

}  // namespace

std::string format_speedup(double speedup) {
  char b[32];
  std::snprintf(b, sizeof b, speedup < 1.1 ? "%.2f×" : "%.1f×", speedup);
  return b;
}

std::vector<RewriteOffer> verified_rewrites(const workflows::OptimizeOutcome& outcome, const Document& document,
                                            Converter& convert) {
  std::vector<RewriteOffer> out;
  for (const auto& offer : outcome.result.offers) {
    const agent::TriedCandidate* t = tried_for(outcome.result, offer.candidate_id);
    if (!t || !verified_winner(t->verdict) || offer.edits.empty()) continue;
    RewriteOffer r;
    r.speedup = t->verdict.speedup;
    r.title = "Apply verified rewrite: " + format_speedup(r.speedup) + " faster (level " +
              std::to_string(agent::to_int(t->verdict.level)) + ", correct on " +
              std::to_string(t->verdict.input_sets) + " input sets on " + outcome.gpu_name +
              "): " + rewrite_name(t->candidate);
    r.summary = evidence(*t, outcome.gpu_name);
    protocol::TextDocumentEdit change;
    change.textDocument.uri = document.uri;
    change.textDocument.version = document.version;
    change.edits = convert.text_edits(document.path, offer.edits);
    r.edit.documentChanges = std::vector<protocol::TextDocumentEdit>{std::move(change)};
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const RewriteOffer& a, const RewriteOffer& b) { return a.speedup > b.speedup; });
  return out;
}

nlohmann::json to_json(const RewriteOffer& offer) {
  return nlohmann::json{{"title", offer.title}, {"edit", offer.edit}, {"summary", offer.summary}};
}

}  // namespace warplens::server
