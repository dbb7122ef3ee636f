// `kernel_report`: what warplens knows about a file's kernels: each kernel's
// parameters, shared arrays, memory accesses with their index expressions
// (affine form), launch sites, and per kernel its registers, shared memory,
// spills and the occupancy table: the names of `warplens report --format
// json` (docs/formats/report.md), built by mcp/result_json.h (mcp/ uses no
// server/ view), optionally narrowed to one kernel.
#include <set>

#include "mcp/tool_env.h"
#include "mcp/tool_support.h"

namespace warplens::mcp {

namespace {
std::string ws_root(ToolEnv& env) { return env.workspace().root().string(); }
}  // namespace

Tool make_kernel_report_tool(ToolEnv& env) {
  Tool t;
  t.name = "kernel_report";
  t.title = "Kernel report: resources, occupancy, access patterns";
  t.description =
      "The kernel model of a CUDA file: per kernel its parameters, __shared__ arrays, memory accesses with "
      "their index expressions in affine form (threadIdx/blockIdx terms), barriers, launch sites, and from nvcc "
      "its registers, shared memory, stack, spills and theoretical occupancy with the limiting resource. The "
      "names of `warplens report --format json`. Reads only; no GPU needed.";
  t.input_schema = {
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}, {"description", "path of a .cu file, relative to the workspace root"}}},
        {"kernel", {{"type", "string"}, {"description", "only this kernel (its name as written)"}}},
        {"resource_usage", {{"type", "boolean"}, {"description", "compile with nvcc for resources (default true)"}}}}},
      {"required", {"file"}},
      {"additionalProperties", false}};
  t.output_schema = {{"type", "object"},
                     {"properties",
                      {{"file", {{"type", "string"}}},
                       {"parsed", {{"type", "boolean"}}},
                       {"functions", {{"type", "array"}}},
                       {"launches", {{"type", "array"}}},
                       {"kernels", {{"type", "array"}, {"description", "resources and occupancy per kernel"}}},
                       {"resourceUsage", {{"type", "object"}}},
                       {"diagnostics", {{"type", "array"}}}}},
                     {"required", {"file", "parsed", "functions", "kernels"}}};
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
    if (!kernel.empty() && functions_named(a.result.model, kernel).empty())
      throw ToolError("not-found", "no kernel named `" + kernel + "` in " + env.workspace().relative(path) +
                                       " (kernels: " + kernel_names(a.result.model) + ")");
    ResultConverter convert(path.string(), text, ws_root(env), env.options().docs_dir);
    auto wanted = [&](const std::string& name) { return kernel.empty() || name == kernel; };
    json functions = json::array(), launches = json::array(), kernels = json::array(), diagnostics = json::array();
    for (const auto& f : a.result.model.functions)
      if (wanted(f.name)) functions.push_back(function_json(f, convert.ranges()));
    for (const auto& l : a.result.model.launches)
      if (wanted(l.kernel)) launches.push_back(launch_json(l, convert.ranges()));
    if (a.resources)
      for (const auto& k : a.resources->kernels)
        if (wanted(k.name)) kernels.push_back(kernel_resources_json(k));
    std::set<std::string> keys;
    for (const auto* f : functions_named(a.result.model, kernel)) keys.insert(f->key);
    for (const auto& f : a.findings())
      if (kernel.empty() || keys.count(f.kernel)) diagnostics.push_back(convert.diagnostic(f));
    json j = {{"file", env.workspace().relative(path)},
              {"parsed", true},
              {"functions", functions},
              {"launches", launches},
              {"kernels", kernels},
              {"resourceUsage", a.resources ? resource_usage_json(*a.resources)
                                            : json{{"status", "skipped"}, {"message", a.resources_skipped}}},
              {"diagnostics", diagnostics}};
    if (!kernel.empty()) j["kernel"] = kernel;
    ToolResult r;
    std::string summary;
    for (const auto& k : j["kernels"]) {
      summary += "kernel " + k.value("name", std::string("?"));
      if (k.contains("registers")) summary += ": " + k["registers"].dump() + " registers";
      if (k.contains("occupancy") && !k["occupancy"].is_null()) summary += ", occupancy " + k["occupancy"].dump();
      if (k.contains("limiter")) summary += " (limited by " + k["limiter"].dump() + ")";
      summary += "\n";
    }
    r.text = summary + std::to_string(j["functions"].size()) + " function(s) in " + env.workspace().relative(path) +
             "; the structured result holds the whole report\n";
    r.structured = std::move(j);
    return r;
  };
  return t;
}

}  // namespace warplens::mcp
