// propose_edit: turning the model's edit into a Candidate, or into a precise
// refusal it can fix. The checks here are cheap gates in front of the
// verifier (which still judges everything): a refusal costs the model a turn
// but no GPU time and no candidate from the job's budget.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "agent/llm/text_clip.h"
#include "agent/llm/tool_arguments.h"
#include "agent/llm/tool_box.h"

namespace warplens::agent::llm {

using nlohmann::json;

namespace {

ToolOutcome refuse(const std::string& why) { return {"Not accepted: " + why, std::nullopt, false, {}}; }

// Applies exact search/replace pairs in order. Returns an error or "".
std::string apply_search_replace(std::string& text, const json& edits, const std::string& base_name) {
  if (!edits.is_array() || edits.empty())
    throw ArgumentError("`edits` must be a non-empty array of {\"old\": ..., \"new\": ...} objects");
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const json& e = edits[i];
    const std::string which = "edit " + std::to_string(i + 1);
    if (!e.is_object()) throw ArgumentError(which + " is not an object with `old` and `new`");
    const std::string old_text = required_string(e, "old");
    const std::string new_text = required_string(e, "new");
    if (old_text.empty()) throw ArgumentError(which + ": `old` is empty");
    const std::size_t at = text.find(old_text);
    if (at == std::string::npos)
      return which + ": its `old` text does not occur in " + base_name +
             " (it must match exactly, whitespace included). It begins: `" + clip(old_text, 120) + "`";
    if (text.find(old_text, at + 1) != std::string::npos)
      return which + ": its `old` text occurs more than once in " + base_name +
             "; include more surrounding lines so it is unique. It begins: `" + clip(old_text, 120) + "`";
    text.replace(at, old_text.size(), new_text);
  }
  return {};
}

std::optional<Ratio> parse_ratio(const std::string& s) {
  long long num = 0, den = 0;
  char slash = 0;
  std::istringstream in(s);
  if (!(in >> num)) return std::nullopt;
  if (in >> slash) {
    if (slash != '/' || !(in >> den)) return std::nullopt;
  } else {
    den = 1;
  }
  if (num <= 0 || den <= 0) return std::nullopt;
  return Ratio{num, den};
}

LaunchChange parse_launch_change(const json& j, const std::string& kernel) {
  if (!j.is_object()) throw ArgumentError("`launch_change` must be an object");
  LaunchChange c;
  c.kernel = kernel;
  if (j.contains("block") && !j["block"].is_null()) {
    const json& b = j["block"];
    if (!b.is_array() || b.size() != 3) throw ArgumentError("`launch_change.block` must be [x, y, z]");
    std::int64_t v[3];
    for (int d = 0; d < 3; ++d) {
      if (!b[d].is_number_integer() || b[d].get<std::int64_t>() < 1)
        throw ArgumentError("`launch_change.block` entries must be positive integers");
      v[d] = b[d].get<std::int64_t>();
    }
    if (v[0] * v[1] * v[2] > 1024) throw ArgumentError("`launch_change.block` has more than 1024 threads");
    c.block = Dim3{v[0], v[1], v[2]};
  }
  if (j.contains("swap_xy") && !j["swap_xy"].is_null()) {
    if (!j["swap_xy"].is_boolean()) throw ArgumentError("`launch_change.swap_xy` must be true or false");
    c.swap_xy = j["swap_xy"].get<bool>();
  }
  if (j.contains("thread_scale") && !j["thread_scale"].is_null()) {
    const json& s = j["thread_scale"];
    if (!s.is_array() || s.size() != 3) throw ArgumentError("`launch_change.thread_scale` must be three fractions");
    for (int d = 0; d < 3; ++d) {
      auto r = s[d].is_string() ? parse_ratio(s[d].get<std::string>())
               : s[d].is_number_integer() && s[d].get<std::int64_t>() > 0
                   ? std::optional<Ratio>(Ratio{s[d].get<std::int64_t>(), 1})
                   : std::nullopt;
      if (!r) throw ArgumentError("`launch_change.thread_scale` entries must be positive fractions like \"1/4\"");
      c.thread_scale[d] = *r;
    }
  }
  if (auto p = optional_integer(j, "persistent_blocks_per_sm")) {
    if (*p < 0) throw ArgumentError("`launch_change.persistent_blocks_per_sm` must not be negative");
    c.persistent_blocks_per_sm = static_cast<int>(*p);
  }
  LaunchChange unchanged;
  unchanged.kernel = kernel;
  if (c == unchanged) throw ArgumentError("`launch_change` changes nothing; leave it out");
  return c;
}

// Parameter types with the qualifiers the rules allow adding removed, so
// `const float* __restrict__ a` matches `float* a`.
std::string comparable_type(std::string t) {
  for (const char* q : {"__restrict__", "__restrict", "restrict", "const"}) {
    for (std::size_t at; (at = t.find(q)) != std::string::npos;) t.erase(at, std::string_view(q).size());
  }
  t.erase(std::remove_if(t.begin(), t.end(), [](unsigned char c) { return std::isspace(c); }), t.end());
  return t;
}

const Function* find_kernel(const KernelModel& model, const std::string& name) {
  for (const Function* f : model.kernels())
    if (f->name == name) return f;
  return nullptr;
}

std::string launch_key(const LaunchSite& l) {
  std::string k = l.grid.spelling + "|" + l.block.spelling + "|" + l.shared_bytes_spelling + "|" + l.stream_spelling;
  for (const auto& a : l.args) k += "|" + a;
  return k;
}

std::vector<const LaunchSite*> launches_of(const KernelModel& model, const std::string& kernel) {
  std::vector<const LaunchSite*> out;
  for (const auto& l : model.launches)
    if (l.kernel == kernel) out.push_back(&l);
  return out;
}

std::string describe_launch(const LaunchSite& l) {
  return l.kernel + "<<<" + l.grid.spelling + ", " + l.block.spelling +
         (l.shared_bytes_spelling.empty() ? "" : ", " + l.shared_bytes_spelling) + ">>> (line " +
         std::to_string(l.range.start.line + 1) + ")";
}

// Kernel signature and launch checks against the original, when the front
// end could parse both. Returns a refusal reason or "".
std::string check_against_original(const AnalysisResult& original, const AnalysisResult& candidate,
                                   const std::string& kernel, bool launch_declared, bool host_changes_allowed,
                                   std::vector<std::string>& notes) {
  const Function* before = find_kernel(original.model, kernel);
  if (!before || !original.parsed || !candidate.parsed) return {};
  const Function* after = find_kernel(candidate.model, kernel);
  if (!after) return "the kernel `" + kernel + "` is no longer defined as a __global__ function";
  bool same = before->params.size() == after->params.size();
  for (std::size_t i = 0; same && i < before->params.size(); ++i)
    same = comparable_type(before->params[i].type) == comparable_type(after->params[i].type);
  if (!same)
    return "the kernel's parameter list changed: it was `" + before->signature + "`, now `" + after->signature +
           "`. Keep the same parameters (adding const or __restrict__ is fine)";
  notes.push_back("kernel signature kept (checked with the front end)");
  if (host_changes_allowed || launch_declared) return {};
  const auto a = launches_of(original.model, kernel);
  const auto b = launches_of(candidate.model, kernel);
  bool launches_same = a.size() == b.size();
  for (std::size_t i = 0; launches_same && i < a.size(); ++i) launches_same = launch_key(*a[i]) == launch_key(*b[i]);
  if (!launches_same) {
    std::string was = a.empty() ? "no launch" : describe_launch(*a.front());
    std::string now = b.empty() ? "no launch" : describe_launch(*b.front());
    return "the host code launching the kernel changed (was " + was + ", now " + now +
           "). Keep host code unchanged, or, if the kernel needs another launch shape, describe it in `launch_change`";
  }
  notes.push_back("kernel launches unchanged (checked with the front end)");
  return {};
}

}  // namespace

ToolOutcome ToolBox::propose_edit(const json& args, const PolicyContext& context, int turn) {
  const std::string description = required_string(args, "description");
  const auto source_arg = optional_string(args, "source");
  const bool has_edits = args.contains("edits") && !args["edits"].is_null();
  if (source_arg && has_edits) throw ArgumentError("give either `edits` or `source`, not both");
  if (!source_arg && !has_edits)
    throw ArgumentError("give `edits` (exact search/replace pairs) or `source` (the complete new file)");
  const auto base = optional_string(args, "base");
  if (base && !has_edits) throw ArgumentError("`base` only applies to `edits`");

  std::string source;
  if (source_arg) {
    source = *source_arg;
  } else {
    std::string base_name = "the original file";
    source = context.file.text;
    if (base && *base != "original") {
      const std::string* s = proposed_source(*base);
      if (!s) throw ArgumentError("`base` names no candidate of yours: '" + clip(*base, 60) + "'");
      source = *s;
      base_name = "candidate " + *base;
    }
    if (std::string error = apply_search_replace(source, args["edits"], base_name); !error.empty())
      return refuse(error + ". Nothing was changed.");
  }

  if (source == context.file.text) return refuse("the result is identical to the original file.");
  if (std::string dup = duplicate_of(source); !dup.empty())
    return refuse("the result is identical to your candidate " + dup + ", which was already verified.");
  for (const auto& t : context.history)
    if (t.candidate.source == source)
      return refuse("the result is identical to candidate " + t.candidate.id + ", which was already verified (level " +
                    std::to_string(to_int(t.verdict.level)) + ").");
  if (source.find(context.kernel) == std::string::npos || source.find("__global__") == std::string::npos)
    return refuse("the kernel `" + context.kernel + "` is missing from the result.");

  std::vector<LaunchChange> launch_changes;
  if (args.contains("launch_change") && !args["launch_change"].is_null())
    launch_changes.push_back(parse_launch_change(args["launch_change"], context.kernel));

  std::vector<std::string> notes;
  if (const AnalysisResult* original = original_analysis(context)) {
    const AnalysisResult candidate = context.tools->analyze(source);
    std::string why = check_against_original(*original, candidate, context.kernel, !launch_changes.empty(),
                                             config_.allow_host_changes, notes);
    if (!why.empty()) return refuse(why + ".");
  }
  if (context.tools && context.tools->compile_errors) {
    const auto errors = context.tools->compile_errors(source);
    if (errors && !errors->empty())
      return refuse("it does not compile, so it was not sent for verification. Compiler errors:\n" + clip(*errors, 6000));
    notes.push_back("compiles with nvcc (checked before verification)");
  }

  // Ids unique within the job, even next to other policies' candidates.
  auto taken = [&](const std::string& id) {
    if (proposed_.count(id)) return true;
    for (const auto& t : context.history)
      if (t.candidate.id == id) return true;
    return false;
  };
  std::string id;
  do {
    char buf[16];
    std::snprintf(buf, sizeof buf, "llm-%02d", next_number_++);
    id = buf;
  } while (taken(id));

  Candidate c;
  c.id = id;
  c.kernel = context.kernel;
  c.result_kernel = context.kernel;
  c.policy = "llm";
  c.description = clip(description, 300);
  c.source = source;
  c.launch_changes = std::move(launch_changes);
  notes.insert(notes.begin(), "free-form edit proposed by model " + config_.model + " at turn " + std::to_string(turn));
  c.notes = std::move(notes);
  if (args.contains("expected_speedup") && args["expected_speedup"].is_number()) {
    const double g = args["expected_speedup"].get<double>();
    if (g > 0 && g < 1000) c.predicted_gain = g;
  }
  proposed_[id] = source;
  ToolOutcome o;
  o.reply = "Accepted as " + id + "; it is being verified.";
  o.candidate = std::move(c);
  return o;
}

}  // namespace warplens::agent::llm
