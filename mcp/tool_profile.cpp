// `profile`: per-kernel times and per-line measured metrics, through
// workflows::run_profile_job (the editor's warplens.profile and `warplens
// profile`). Three of its four modes: a recorded profile (no GPU), the
// configured profile command (with the configured build command first: the
// only shell commands this server runs), or a self-contained .cu file with
// main() (built with nvcc and run). An arbitrary program is not one of
// them: an agent cannot make this server run a command it chose.
#include <algorithm>

#include "mcp/tool_env.h"
#include "mcp/tool_support.h"
#include "profiler/kernel_summary.h"
#include "profiler/measured_findings.h"

namespace warplens::mcp {

namespace {

std::string kind_of(const workflows::ProfileJobError& e) {
  switch (e.kind) {
    case workflows::ProfileJobError::Kind::NoGpu: return "no-gpu";
    case workflows::ProfileJobError::Kind::BuildFailed: return "build-failed";
    case workflows::ProfileJobError::Kind::BadRequest: return "refused";
    case workflows::ProfileJobError::Kind::Failed: break;
  }
  return "failed";
}

}  // namespace

json diagnostic_schema();  // tool_analyze.cpp

Tool make_profile_tool(ToolEnv& env) {
  Tool t;
  t.name = "profile";
  t.title = "Profile kernels on the GPU (per kernel and per line)";
  t.description =
      "Measures the workspace's program under the CUPTI profiler: per kernel its time per launch and achieved "
      "bandwidth, per source line the measured global sectors, shared-memory wavefronts and branch divergence, "
      "as diagnostics on the lines (source warplens-profile). Profiles one of: `recorded_profile` (a profile "
      "JSON recorded before; no GPU needed), the server's configured profile command "
      "(`use_profile_command`), or `file`, a self-contained .cu file with main() that is built with nvcc and "
      "run. `file` also selects whose lines are reported. Needs a GPU except for a recorded profile.";
  t.input_schema = {
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}, {"description", "a .cu file: built and run when it has main(); its lines are reported"}}},
        {"recorded_profile", {{"type", "string"}, {"description", "a warplens profile JSON in the workspace"}}},
        {"use_profile_command", {{"type", "boolean"}, {"description", "run the server's configured profile command"}}},
        {"program_args",
         {{"type", "array"}, {"items", {{"type", "string"}}}, {"maxItems", 64},
          {"description", "arguments of the program built from `file`"}}}}},
      {"additionalProperties", false}};
  t.output_schema = {{"type", "object"},
                     {"properties",
                      {{"origin", {{"type", "string"}}},
                       {"device", {{"type", "string"}}},
                       {"kernels", {{"type", "array"}}},
                       {"hot_lines", {{"type", "array"}}},
                       {"diagnostics", {{"type", "array"}, {"items", diagnostic_schema()}}},
                       {"warnings", {{"type", "array"}}}}},
                     {"required", {"origin", "kernels", "hot_lines", "diagnostics"}}};
  t.annotations = {{"readOnlyHint", true}, {"openWorldHint", false}};
  t.run = [&env](const json& args, const ToolContext& ctx) {
    const auto& ws = env.workspace();
    workflows::ProfileJobRequest req;
    req.working_directory = ws.root().string();
    req.timeout = env.options().command_timeout;
    std::filesystem::path file;
    std::string text;
    if (args.contains("file")) {
      file = ws.resolve(args["file"].get<std::string>(), "file");
      text = read_workspace_file(file, "file");
    }
    if (args.contains("recorded_profile")) {
      req.profile_file = ws.resolve(args["recorded_profile"].get<std::string>(), "recorded_profile").string();
    } else if (args.value("use_profile_command", false)) {
      if (ws.config().profile_command.empty())
        throw ToolError("refused", "this server has no profile command; start it with --profile-command CMD "
                                   "(and --build-command CMD), or profile a self-contained .cu file");
      req.profile_command = ws.config().profile_command;
      req.build_command = ws.config().build_command;
    } else if (!file.empty()) {
      if (!workflows::is_self_contained_program(file.string(), text))
        throw ToolError("refused", ws.relative(file) + " has no main(): profile the workspace's program with "
                                   "use_profile_command (the server's --profile-command), or give a .cu file with main()");
      req.source_file = file.string();
      if (args.contains("program_args")) req.program_args = args["program_args"].get<std::vector<std::string>>();
    } else {
      throw ToolError("refused", "give `file`, `recorded_profile` or `use_profile_command`");
    }
    if (!req.source_file.empty() || !req.profile_command.empty()) {
      ctx.progress(0, 100, "waiting for the GPU");
    }
    std::unique_lock gpu(env.gpu(), std::defer_lock);
    if (req.profile_file.empty()) gpu.lock();
    workflows::ProfileJobResult result;
    try {
      result = env.services().profile(
          req, ctx.stop(),
          [&](workflows::ProfileStage, const std::string& message, int percentage) {
            ctx.progress(std::max(1, percentage), 100, message);
          },
          env.services().probe);
    } catch (const workflows::ProfileJobError& e) {
      throw ToolError(kind_of(e), e.what());
    }
    if (!result.profile || ctx.cancelled()) throw ToolError("cancelled", "cancelled");
    const profile::Profile& p = *result.profile;

    KernelModel model;
    if (!file.empty()) {
      auto a = env.services().analyze(SourceFile{file.string(), text}, env.options().analysis, false, ctx.stop());
      if (a.result.parsed) model = a.result.model;
    }
    json kernels = json::array();
    std::map<std::string, std::string> names;  // mangled -> demangled
    for (const auto& k : p.kernels) names[k.mangled] = k.name;
    std::string summary;
    for (const auto& s : profile::kernel_summaries(p, file.empty() ? nullptr : &model)) {
      json k = {{"name", s.name}, {"launches", s.launches}, {"title", s.title}};
      if (s.mean_ns) k["mean_us"] = *s.mean_ns / 1000.0;
      if (s.effective_gbs) k["effective_gbs"] = *s.effective_gbs;
      if (s.requested_gbs) k["requested_gbs"] = *s.requested_gbs;
      if (s.fraction_of_peak) k["fraction_of_peak"] = *s.fraction_of_peak;
      if (s.peak_gbs > 0) k["peak_gbs"] = s.peak_gbs;
      kernels.push_back(k);
      summary += s.name + ": " + s.title + "\n";
    }
    // The hottest lines (all instructions), at most 20.
    std::vector<const profile::LineMetrics*> hot;
    for (const auto& l : p.lines)
      if (l.kind == profile::LineKind::All) hot.push_back(&l);
    std::sort(hot.begin(), hot.end(), [](auto* a, auto* b) { return a->executed > b->executed; });
    if (hot.size() > 20) hot.resize(20);
    json hot_lines = json::array();
    for (const auto* l : hot) {
      std::error_code ec;
      auto canon = std::filesystem::weakly_canonical(l->file, ec);
      hot_lines.push_back({{"file", !ec && is_within(canon, ws.root()) ? ws.relative(canon) : l->file},
                           {"line", l->line},
                           {"kernel", names.count(l->kernel) ? names[l->kernel] : l->kernel},
                           {"warp_instructions", l->executed},
                           {"thread_instructions", l->threads_executed}});
    }
    json diagnostics = json::array();
    if (!file.empty()) {
      profile::MeasuredFindingsRequest mr;
      mr.file = file.string();
      mr.text = text;
      mr.model = model.functions.empty() ? nullptr : &model;
      ResultConverter convert(file.string(), text, ws.root().string(), env.options().docs_dir);
      for (const auto& f : profile::measured_findings(p, mr)) diagnostics.push_back(convert.diagnostic(f));
    }
    json warnings = json::array();
    for (const auto& w : p.warnings) warnings.push_back({{"code", w.code}, {"message", w.message}});
    ToolResult r;
    r.structured = {{"origin", result.origin},
                    {"device", p.devices.empty() ? std::string() : p.devices.front().name},
                    {"kernels", kernels},
                    {"hot_lines", hot_lines},
                    {"diagnostics", diagnostics},
                    {"warnings", warnings}};
    r.text = result.origin + "\n" + summary + std::to_string(diagnostics.size()) + " measured diagnostic(s)\n";
    return r;
  };
  return t;
}

}  // namespace warplens::mcp
