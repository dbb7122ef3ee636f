#include "agent/report.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "agent/text_diff.h"
#include "agent/unified_diff.h"

namespace warplens::agent {

using nlohmann::json;

namespace {

std::string fmt(double v, const char* f = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(double v) { return v > 0 ? fmt(v, "%.4f") + " ms" : "-"; }

// Markdown table cells must not contain pipes or newlines.
std::string cell(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\n') c = c == '|' ? '/' : ' ';
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return s;
}

json edits_json(const std::vector<TextEdit>& edits) {
  json a = json::array();
  for (const auto& e : edits)
    a.push_back({{"range",
                  {{"start", {{"line", e.range.start.line}, {"column", e.range.start.column}}},
                   {"end", {{"line", e.range.end.line}, {"column", e.range.end.column}}}}},
                 {"new_text", e.new_text}});
  return a;
}

json timing_json(const Timing& t) {
  return {{"median_ms", t.median_ms}, {"p10_ms", t.p10_ms}, {"p90_ms", t.p90_ms}, {"runs", t.runs}};
}

}  // namespace

std::string render_diff(std::string_view original_text, const std::vector<TextEdit>& edits, std::string_view path) {
  std::string after(original_text);
  if (!apply_edits(after, edits)) return "(the candidate's edits do not apply to the original)\n";
  return unified_diff(original_text, after, path);
}

std::string render_markdown(const OptimizeResult& r, std::string_view original_text) {
  // Diff paths relative to the git working tree that holds the file (else
  // the current directory), so that `git apply` anywhere in that tree (or
  // `patch -p1` at its top) takes a candidate as it is shown.
  std::error_code ec;
  const std::string path = patch_path(r.file, patch_base(r.file, std::filesystem::current_path(ec).string()));
  std::ostringstream o;
  o << "# Optimize `" << r.kernel << "`\n\n";
  o << "- file: `" << r.file << "`\n";
  o << "- policy: " << r.policy << "; verifier: " << r.verifier << "\n";
  o << "- " << r.summary << "\n";
  o << "- stopped: " << to_string(r.stop_reason) << (r.error.empty() ? "" : " (" + r.error + ")") << "\n";
  o << "- wall time " << fmt(r.wall_seconds, "%.1f") << " s, GPU time " << fmt(r.gpu_seconds, "%.1f") << " s\n\n";
  if (!r.offers.empty()) {
    o << "## Verified winners\n\n| candidate | speedup | level | plan |\n|---|---|---|---|\n";
    for (const auto& off : r.offers)
      o << "| " << off.candidate_id << " | " << fmt(off.speedup, "%.2fx") << " | " << to_int(off.level) << " | "
        << cell(off.plan) << " |\n";
    o << "\n";
  } else {
    o << "**Nothing beat the original.** Every candidate tried is listed below with the reason.\n\n";
  }
  o << "## Every candidate\n\n";
  o << "| candidate | plan | compiled | level | original | candidate | speedup | max error | input sets | "
       "verify s | reason |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& t : r.tried) {
    const auto& v = t.verdict;
    o << "| " << t.candidate.id << " | " << cell(to_string(t.candidate.plan)) << " | " << (v.compiled ? "yes" : "no")
      << " | " << to_int(v.level) << " | " << ms(v.original.median_ms) << " | " << ms(v.candidate.median_ms) << " | "
      << (v.speedup > 0 ? fmt(v.speedup, "%.2fx") : "-") << " | " << fmt(v.max_error, "%.3g") << " | "
      << v.input_sets << " | " << fmt(v.verify_seconds, "%.1f") << " | " << cell(v.reason) << " |\n";
  }
  o << "\n";
  for (const auto& t : r.tried) {
    const auto& c = t.candidate;
    const auto& v = t.verdict;
    o << "### " << c.id << ": " << to_string(c.plan) << "\n\n";
    if (!c.description.empty()) o << c.description << "\n\n";
    o << "- level " << to_int(v.level) << " (" << describe(v.level) << ")";
    if (v.speedup > 0) o << ", " << fmt(v.speedup, "%.2fx") << " (" << ms(v.original.median_ms) << " -> "
                         << ms(v.candidate.median_ms) << ")";
    o << "\n";
    if (v.eager_ms || v.compiled_ms)
      o << "- PyTorch: eager " << ms(v.eager_ms.value_or(0)) << ", torch.compile " << ms(v.compiled_ms.value_or(0)) << "\n";
    o << "- correctness: " << v.input_sets << " input set(s), max error " << fmt(v.max_error, "%.3g")
      << " of tolerance" << (v.worst.empty() ? "" : "; worst " + v.worst) << "\n";
    if (!v.reason.empty()) o << "- " << v.reason << "\n";
    for (const auto& l : c.launch_changes) o << "- launch: `" << format_launch_declaration(l).substr(3) << "`\n";
    if (c.fusion) o << "- fusion: `" << format_fusion_declaration(*c.fusion).substr(3) << "`\n";
    for (const auto& s : v.replayed) o << "- replayed: " << s << "\n";
    for (const auto& n : c.notes) o << "- checked: " << n << "\n";
    if (!v.compiled && !v.compile_log.empty()) o << "\n```\n" << v.compile_log << "\n```\n";
    o << "\n```diff\n" << render_diff(original_text, c.edits, path) << "```\n\n";
  }
  return o.str();
}

std::string render_json(const OptimizeResult& r) {
  json j;
  j["format"] = "warplens-optimize-report/1";
  j["file"] = r.file;
  j["kernel"] = r.kernel;
  j["policy"] = r.policy;
  j["verifier"] = r.verifier;
  j["summary"] = r.summary;
  j["stop_reason"] = to_string(r.stop_reason);
  j["error"] = r.error;
  j["wall_seconds"] = r.wall_seconds;
  j["gpu_seconds"] = r.gpu_seconds;
  j["candidates"] = json::array();
  for (const auto& t : r.tried) {
    const auto& c = t.candidate;
    const auto& v = t.verdict;
    json cj;
    cj["id"] = c.id;
    cj["plan"] = json::array();
    for (const auto& s : c.plan) cj["plan"].push_back({{"rewrite", s.rewrite}, {"params", s.params}});
    cj["description"] = c.description;
    cj["edits"] = edits_json(c.edits);
    cj["launch"] = json::array();
    for (const auto& l : c.launch_changes) cj["launch"].push_back(format_launch_declaration(l).substr(3));
    if (c.fusion) cj["fusion"] = format_fusion_declaration(*c.fusion).substr(3);
    cj["notes"] = c.notes;
    cj["predicted_gain"] = c.predicted_gain;
    cj["verdict"] = {{"compiled", v.compiled},
                     {"compile_log", v.compile_log},
                     {"correct", v.correct},
                     {"input_sets", v.input_sets},
                     {"max_error", v.max_error},
                     {"worst", v.worst},
                     {"original", timing_json(v.original)},
                     {"candidate", timing_json(v.candidate)},
                     {"speedup", v.speedup},
                     {"level", to_int(v.level)},
                     {"reason", v.reason},
                     {"implausible", v.implausible},
                     {"verify_seconds", v.verify_seconds},
                     {"gpu_seconds", v.gpu_seconds},
                     {"replayed", v.replayed}};
    if (!v.memcheck_note.empty()) cj["verdict"]["memcheck"] = v.memcheck_note;
    if (!v.review_notes.empty()) cj["verdict"]["review_notes"] = v.review_notes;
    if (v.eager_ms) cj["verdict"]["eager_ms"] = *v.eager_ms;
    if (v.compiled_ms) cj["verdict"]["compiled_ms"] = *v.compiled_ms;
    j["candidates"].push_back(cj);
  }
  j["offers"] = json::array();
  for (const auto& o : r.offers)
    j["offers"].push_back({{"candidate", o.candidate_id},
                           {"title", o.title},
                           {"plan", o.plan},
                           {"speedup", o.speedup},
                           {"level", to_int(o.level)},
                           {"input_sets", o.input_sets},
                           {"base_text_hash", std::to_string(o.base_text_hash)},
                           {"edits", edits_json(o.edits)}});
  return j.dump(2);
}

}  // namespace warplens::agent
