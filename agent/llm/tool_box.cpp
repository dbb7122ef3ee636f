#include "agent/llm/tool_box.h"

#include <sstream>

#include "agent/llm/analysis_text.h"
#include "agent/llm/kernel_directory.h"
#include "agent/llm/text_clip.h"
#include "agent/llm/tool_arguments.h"

namespace warplens::agent::llm {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxFileBytes = 200 * 1024;
constexpr std::size_t kMaxCompilerOutput = 8000;

std::string tool_names() {
  std::string names;
  for (const auto& t : tool_definitions()) names += (names.empty() ? "" : ", ") + t.name;
  return names;
}

// Lines first..last (1-based, inclusive) of `text`; clamps to the text.
std::string line_range(const std::string& text, std::int64_t first, std::int64_t last, std::int64_t& total) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' && i + 1 < text.size()) starts.push_back(i + 1);
  total = static_cast<std::int64_t>(text.empty() ? 0 : starts.size());
  if (first > total) return {};
  last = std::min(last, total);
  const std::size_t begin = starts[static_cast<std::size_t>(first - 1)];
  const std::size_t end = last >= total ? text.size() : starts[static_cast<std::size_t>(last)];
  return text.substr(begin, end - begin);
}

}  // namespace

ToolBox::ToolBox(const LlmConfig& config) : config_(config) {}

const std::string* ToolBox::proposed_source(const std::string& id) const {
  auto it = proposed_.find(id);
  return it == proposed_.end() ? nullptr : &it->second;
}

std::string ToolBox::duplicate_of(const std::string& source) const {
  for (const auto& [id, text] : proposed_)
    if (text == source) return id;
  return {};
}

ToolOutcome ToolBox::call(const ToolCall& call, const PolicyContext& context, int turn) {
  std::string_view raw = call.arguments;
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.front()))) raw.remove_prefix(1);
  json args = raw.empty() ? json::object() : json::parse(raw, nullptr, false);
  // Some models encode the arguments twice: a JSON string holding the object.
  if (args.is_string()) args = json::parse(args.get<std::string>(), nullptr, false);
  if (args.is_discarded() || !args.is_object()) {
    return {"Error: the arguments of " + call.name + " are not a valid JSON object (got: " + clip(call.arguments, 200) +
                "). If your reply was cut off, keep it shorter (for example `edits` instead of the full `source`).",
            std::nullopt, false, {}};
  }
  try {
    if (call.name == "read_file") return read_file(args, context);
    if (call.name == "list_files") return list_files(args, context);
    if (call.name == "static_analysis") return static_analysis(args, context);
    if (call.name == "compile") return compile(args, context);
    if (call.name == "propose_edit") return propose_edit(args, context, turn);
    if (call.name == "finish") {
      ToolOutcome o;
      o.finish = true;
      o.finish_reason = clip(optional_string(args, "reason").value_or(""), 300);
      o.reply = "Finished.";
      return o;
    }
    return {"Error: there is no tool named '" + clip(call.name, 80) + "'. The tools are: " + tool_names() + ".",
            std::nullopt, false, {}};
  } catch (const ArgumentError& e) {
    return {"Error in the arguments of " + call.name + ": " + e.what() + ".", std::nullopt, false, {}};
  }
}

ToolOutcome ToolBox::read_file(const json& args, const PolicyContext& context) {
  const std::string path = required_string(args, "path");
  const auto first = optional_integer(args, "start_line");
  const auto last = optional_integer(args, "end_line");
  if ((first && *first < 1) || (last && *last < 1)) throw ArgumentError("line numbers start at 1");
  if (first && last && *last < *first) throw ArgumentError("end_line is before start_line");
  KernelDirectory dir(context.file);
  KernelDirectory::Read r = dir.read(path, kMaxFileBytes);
  if (!r.ok) return {"Error: " + r.error + ".", std::nullopt, false, {}};
  std::ostringstream out;
  if (first || last) {
    std::int64_t total = 0;
    const std::int64_t a = first.value_or(1);
    std::string slice = line_range(r.text, a, last.value_or(INT64_MAX), total);
    if (slice.empty()) return {"Error: " + r.shown_path + " has only " + std::to_string(total) + " lines.", std::nullopt, false, {}};
    out << r.shown_path << ", lines " << a << "-" << std::min(last.value_or(total), total) << " of " << total << ":\n"
        << slice;
  } else {
    out << r.shown_path << ":\n" << r.text;
  }
  if (r.truncated) out << "\n[... cut at " << kMaxFileBytes / 1024 << " KiB; read further with start_line/end_line]";
  return {out.str(), std::nullopt, false, {}};
}

ToolOutcome ToolBox::list_files(const json& args, const PolicyContext& context) {
  const std::string path = optional_string(args, "path").value_or("");
  KernelDirectory dir(context.file);
  std::string error;
  std::string listing = dir.list(path, error);
  if (!error.empty()) return {"Error: " + error + ".", std::nullopt, false, {}};
  return {listing.empty() ? "(empty)" : listing, std::nullopt, false, {}};
}

std::optional<std::string> ToolBox::draft_source(const json& args, const PolicyContext& context,
                                                 std::string& error) const {
  auto source = optional_string(args, "source");
  auto id = optional_string(args, "candidate");
  if (source && id) {
    error = "give either `source` or `candidate`, not both";
    return std::nullopt;
  }
  if (source) return *source;
  if (id) {
    if (const std::string* s = proposed_source(*id)) return *s;
    for (const auto& t : context.history)
      if (t.candidate.id == *id) return t.candidate.source;
    error = "there is no candidate '" + clip(*id, 60) + "'";
    return std::nullopt;
  }
  return context.file.text;
}

const AnalysisResult* ToolBox::original_analysis(const PolicyContext& context) {
  if (!original_analysed_ && context.tools && context.tools->analyze) {
    original_analysis_ = context.tools->analyze(context.file.text);
    original_analysed_ = true;
  }
  return original_analysis_ ? &*original_analysis_ : nullptr;
}

ToolOutcome ToolBox::static_analysis(const json& args, const PolicyContext& context) {
  if (!context.tools || !context.tools->analyze)
    return {"Static analysis is not available in this session.", std::nullopt, false, {}};
  std::string error;
  auto source = draft_source(args, context, error);
  if (!source) throw ArgumentError(error);
  const bool is_original = *source == context.file.text;
  const AnalysisResult result = is_original ? *original_analysis(context) : context.tools->analyze(*source);
  std::ostringstream out;
  if (!result.parsed) out << "The analysis front end could not parse this source; its messages:\n";
  else out << "Findings:\n";
  out << findings_text(result.findings, *source);
  if (result.parsed) out << "\nKernels and launches:\n" << kernel_summary(result.model);
  return {out.str(), std::nullopt, false, {}};
}

ToolOutcome ToolBox::compile(const json& args, const PolicyContext& context) {
  if (!context.tools || !context.tools->compile_errors)
    return {"Compilation is not available in this session; propose_edit will still be compiled by the verifier.",
            std::nullopt, false, {}};
  std::string error;
  auto source = draft_source(args, context, error);
  if (!source) throw ArgumentError(error);
  const auto errors = context.tools->compile_errors(*source);
  if (!errors || errors->empty()) return {"Compiles cleanly.", std::nullopt, false, {}};
  return {"Compiler errors:\n" + clip(*errors, kMaxCompilerOutput), std::nullopt, false, {}};
}

}  // namespace warplens::agent::llm
