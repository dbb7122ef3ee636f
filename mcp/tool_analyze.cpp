// `analyze`: the diagnostics of a file, or of one kernel in it: what
// `warplens check` prints and the editor underlines (workflows::analyze_file:
// the front end, the static analyses, resource usage and occupancy).
#include <set>
#include <sstream>

#include "mcp/tool_env.h"
#include "mcp/tool_support.h"

namespace warplens::mcp {

namespace {

json range_schema() {
  json pos = {{"type", "object"},
              {"properties", {{"line", {{"type", "integer"}}}, {"character", {{"type", "integer"}}}}},
              {"required", {"line", "character"}}};
  return {{"type", "object"}, {"properties", {{"start", pos}, {"end", pos}}}, {"required", {"start", "end"}}};
}

}  // namespace

// The diagnostic object analyze returns (kernel_report reuses it).
json diagnostic_schema() {
  return {{"type", "object"},
          {"properties",
           {{"code", {{"type", "string"}, {"description", "stable code, e.g. uncoalesced-global-access"}}},
            {"severity", {{"type", "string"}, {"enum", {"error", "warning", "info", "hint"}}}},
            {"source", {{"type", "string"}}},
            {"message", {{"type", "string"}}},
            {"file", {{"type", "string"}}},
            {"range", range_schema()},
            {"numbers", {{"type", "object"}, {"description", "the values the message is computed from"}}},
            {"kernel", {{"type", "string"}}},
            {"docs", {{"type", "string"}, {"description", "documentation page of the code"}}}}},
          {"required", {"code", "severity", "message", "range", "numbers"}}};
}

Tool make_analyze_tool(ToolEnv& env) {
  Tool t;
  t.name = "analyze";
  t.title = "Analyze a CUDA file";
  t.description =
      "Static analysis of a CUDA source file in the workspace, or of one kernel in it: uncoalesced global "
      "accesses, shared-memory bank conflicts, divergence, low occupancy, register spills and the other "
      "warplens diagnostics. Each diagnostic has a stable code, a range (0-based line, UTF-16 character), a "
      "message, the numbers it is computed from, and a documentation link. Compiles the file with nvcc for "
      "resource usage unless resource_usage is false. Reads only; no GPU needed.";
  t.input_schema = {
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}, {"description", "path of a .cu/.cuh file, relative to the workspace root"}}},
        {"kernel", {{"type", "string"}, {"description", "only this kernel's diagnostics (its name as written)"}}},
        {"resource_usage",
         {{"type", "boolean"}, {"description", "compile with nvcc for registers and occupancy (default true)"}}}}},
      {"required", {"file"}},
      {"additionalProperties", false}};
  t.output_schema = {
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}}},
        {"parsed", {{"type", "boolean"}}},
        {"kernel", {{"type", "string"}}},
        {"kernels", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"diagnostics", {{"type", "array"}, {"items", diagnostic_schema()}}},
        {"resourceUsage", {{"type", "string"}}}}},
      {"required", {"file", "parsed", "kernels", "diagnostics"}}};
  t.annotations = {{"readOnlyHint", true}, {"openWorldHint", false}};
  t.run = [&env](const json& args, const ToolContext& ctx) {
    const auto path = env.workspace().resolve(args["file"].get<std::string>(), "file");
    const std::string text = read_workspace_file(path, "file");
    bool resources = args.value("resource_usage", env.options().resource_usage) && env.options().resource_usage;
    workflows::FileAnalysis a =
        env.services().analyze(SourceFile{path.string(), text}, env.options().analysis, resources, ctx.stop());
    if (a.result.cancelled || ctx.cancelled()) throw ToolError("cancelled", "cancelled");
    if (!a.result.parsed) {
      std::string why = a.result.findings.empty() ? "no reason given" : a.result.findings.front().message;
      throw ToolError("failed", "the front end could not analyse " + env.workspace().relative(path) + ": " + why);
    }
    std::string kernel = args.value("kernel", std::string());
    std::set<std::string> keys;
    if (!kernel.empty()) {
      auto fns = functions_named(a.result.model, kernel);
      if (fns.empty())
        throw ToolError("not-found", "no kernel named `" + kernel + "` in " + env.workspace().relative(path) +
                                         " (kernels: " + kernel_names(a.result.model) + ")");
      for (const auto* f : fns) keys.insert(f->key);
    }
    ResultConverter convert(path.string(), text, env.workspace().root().string(), env.options().docs_dir);
    json diagnostics = json::array();
    std::ostringstream out;
    for (const auto& f : a.findings()) {
      // A kernel's own findings, and (when it names none) the ones inside it.
      if (!kernel.empty()) {
        bool mine = keys.count(f.kernel) > 0;
        if (f.kernel.empty())
          for (const auto* fn : functions_named(a.result.model, kernel))
            mine = mine || ((f.location.file.empty() || f.location.file == path.string()) &&
                                fn->range.contains(f.location.range.start));
        if (!mine) continue;
      }
      json d = convert.diagnostic(f);
      out << env.workspace().relative(path) << ":" << d["range"]["start"]["line"].get<int>() + 1 << ":"
          << d["range"]["start"]["character"].get<int>() + 1 << ": " << d["severity"].get<std::string>() << ": "
          << f.message << " [" << f.code << "]\n";
      diagnostics.push_back(std::move(d));
    }
    std::set<std::string> names;
    for (const auto& fn : a.result.model.functions)
      if (fn.kind == FunctionKind::Kernel) names.insert(fn.name);
    ToolResult r;
    r.structured = {{"file", env.workspace().relative(path)},
                    {"parsed", true},
                    {"kernels", json(std::vector<std::string>(names.begin(), names.end()))},
                    {"diagnostics", diagnostics},
                    {"resourceUsage", a.resources ? std::string("computed") : "skipped: " + a.resources_skipped}};
    if (!kernel.empty()) r.structured["kernel"] = kernel;
    r.text = out.str() + std::to_string(diagnostics.size()) + " diagnostic(s)" +
             (kernel.empty() ? "" : " in kernel " + kernel) + " in " + env.workspace().relative(path) + "\n";
    return r;
  };
  return t;
}

}  // namespace warplens::mcp
