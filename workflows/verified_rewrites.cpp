#include "workflows/verified_rewrites.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/rewrite_engine.h"
#include "agent/text_diff.h"
#include "common/file_read.h"

namespace warplens::workflows {

namespace fs = std::filesystem;

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

std::vector<VerifiedRewrite> verified_rewrites(const OptimizeOutcome& outcome) {
  std::vector<VerifiedRewrite> out;
  for (const auto& offer : outcome.result.offers) {
    const agent::TriedCandidate* t = tried_for(outcome.result, offer.candidate_id);
    if (!t || !verified_winner(t->verdict) || offer.edits.empty()) continue;
    VerifiedRewrite r;
    r.candidate_id = offer.candidate_id;
    r.speedup = t->verdict.speedup;
    r.title = "Apply verified rewrite: " + format_speedup(r.speedup) + " faster (level " +
              std::to_string(agent::to_int(t->verdict.level)) + ", correct on " +
              std::to_string(t->verdict.input_sets) + " input sets on " + outcome.gpu_name +
              "): " + rewrite_name(t->candidate);
    r.summary = evidence(*t, outcome.gpu_name);
    r.edits = offer.edits;
    r.base_text_hash = offer.base_text_hash;
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const VerifiedRewrite& a, const VerifiedRewrite& b) { return a.speedup > b.speedup; });
  return out;
}

std::optional<std::string> apply_verified_rewrite(const VerifiedRewrite& rewrite, const std::string& text,
                                                  std::string& error) {
  if (agent::text_hash(text) != rewrite.base_text_hash) {
    error = "the text changed since the rewrite was verified; run optimize again";
    return std::nullopt;
  }
  std::string out = text;
  if (!agent::apply_edits(out, rewrite.edits)) {
    error = "the rewrite's edits do not fit the text";
    return std::nullopt;
  }
  return out;
}

bool apply_verified_rewrite_to_file(const VerifiedRewrite& rewrite, const std::string& path, std::string& error) {
  // A regular file only (common/file_read.h): a FIFO must not block the
  // apply, a device must not be read forever.
  common::FileReadResult read = common::read_regular_file(path);
  if (!read) {
    error = "cannot read " + read.error;
    return false;
  }
  auto rewritten = apply_verified_rewrite(rewrite, *read.content, error);
  if (!rewritten) {
    error = path + ": " + error;
    return false;
  }
  // A reader (the editor, a build) sees the old file or the new one, never half of it.
  const fs::path tmp = fs::path(path).concat(".warplens-" + std::to_string(::getpid()) + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << *rewritten;
    if (!out.flush()) {
      error = "cannot write " + tmp.string();
      std::error_code ec;
      fs::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  fs::permissions(tmp, fs::status(path, ec).permissions(), ec);
  fs::rename(tmp, path, ec);
  if (ec) {
    error = "cannot replace " + path + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace warplens::workflows
