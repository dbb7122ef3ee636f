// `optimize`: the built-in search (workflows::gpu_optimize_backend, what the
// editor's "Optimize kernel" and `warplens optimize` run): candidates from
// the rewrite engine, each verified on this GPU against the kernel's
// captured launches (the configured profile command) or the file's own
// checking main(); only verified winners come back. Each winner is recorded
// as a candidate, so apply_rewrite can write it. Long: progress is reported
// per candidate, and a cancellation stops the search.
#include <algorithm>

#include "mcp/tool_env.h"
#include "mcp/tool_support.h"
#include "workflows/verified_rewrites.h"

namespace warplens::mcp {

Tool make_optimize_tool(ToolEnv& env) {
  Tool t;
  t.name = "optimize";
  t.title = "Search for faster verified rewrites of a kernel";
  t.description =
      "Runs warplens' built-in rewrite search on one kernel (coalescing, shared-memory padding, block size, "
      "unrolling, ...): every candidate is verified on this machine's GPU, against the kernel's launches "
      "captured from the configured profile command, or by the file's own self-checking main(). Returns the "
      "verified winners (level >= 2), fastest first, each with a candidate_id and candidate_hash for "
      "apply_rewrite. Takes minutes; reports progress; cancellable. Needs a GPU.";
  t.input_schema = {
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}, {"description", "the .cu file, relative to the workspace root"}}},
        {"kernel", {{"type", "string"}, {"description", "the kernel's name as written"}}},
        {"max_candidates", {{"type", "integer"}, {"minimum", 1}, {"maximum", 48}}},
        {"max_minutes", {{"type", "number"}, {"minimum", 0.1}, {"maximum", 60}}}}},
      {"required", {"file", "kernel"}},
      {"additionalProperties", false}};
  t.output_schema = {{"type", "object"},
                     {"properties",
                      {{"file", {{"type", "string"}}},
                       {"kernel", {{"type", "string"}}},
                       {"summary", {{"type", "string"}}},
                       {"stop_reason", {{"type", "string"}}},
                       {"tried", {{"type", "integer"}}},
                       {"winners", {{"type", "array"}}}}},
                     {"required", {"file", "kernel", "summary", "winners"}}};
  t.annotations = {{"readOnlyHint", true}, {"openWorldHint", false}};
  t.run = [&env](const json& args, const ToolContext& ctx) {
    const auto& ws = env.workspace();
    const ToolOptions& o = env.options();
    const auto file = ws.resolve(args["file"].get<std::string>(), "file");
    const std::string text = read_workspace_file(file, "file");
    agent::OptimizeRequest request;
    request.file = SourceFile{file.string(), text};
    request.kernel = args["kernel"].get<std::string>();
    // The agent may ask for less than the server allows, never more.
    request.budget.max_candidates = std::min(args.value("max_candidates", o.optimize_max_candidates), o.optimize_max_candidates);
    request.budget.wall_seconds = 60 * std::min(args.value("max_minutes", o.optimize_max_minutes), o.optimize_max_minutes);

    workflows::OptimizeContext context;
    context.analysis = o.analysis;
    context.analyze_when_no_findings = true;
    context.require_gpu = true;
    context.names = workflows::SettingNames::command_line();
    auto& v = context.verify;
    v.against = workflows::VerifyChoice::Against::Workspace;
    v.profile_command = ws.config().profile_command;
    v.build_command = ws.config().build_command;
    v.working_directory = ws.root().string();
    v.command_timeout = o.command_timeout;
    v.nvcc = o.nvcc;
    if (!o.arch.empty()) v.arch = o.arch;
    v.input_sets = o.input_sets;
    v.timed_runs = o.timed_runs;

    ctx.progress(0, std::nullopt, "waiting for the GPU");
    std::unique_lock gpu(env.gpu());
    workflows::OptimizeOutcome outcome;
    int reported = 0;
    try {
      outcome = env.services().optimize(
          request, context,
          [&](const agent::JobProgress& p) {
            // One step per event: candidates proposed and verified only grow.
            ctx.progress(++reported, std::nullopt,
                         p.message + " (" + std::to_string(p.verified) + " verified, " + std::to_string(p.faster) +
                             " faster)");
          },
          ctx.stop());
    } catch (const workflows::OptimizeUnavailable& e) {
      std::string m = e.what();
      throw ToolError(m.find("GPU") != std::string::npos ? "no-gpu" : "refused", m);
    }
    gpu.unlock();
    if (ctx.cancelled()) throw ToolError("cancelled", "cancelled");
    json winners = json::array();
    std::string lines;
    for (const auto& rw : workflows::verified_rewrites(outcome)) {
      const agent::Offer* offer = nullptr;
      for (const auto& of : outcome.result.offers)
        if (of.candidate_id == rw.candidate_id) offer = &of;
      if (!offer) continue;
      std::string error;
      auto full = workflows::apply_verified_rewrite(rw, text, error);
      if (!full) continue;
      CandidateRecord rec;
      rec.file = file;
      rec.kernel = request.kernel;
      rec.text = *full;
      rec.text_hash = hash_text(*full);
      rec.base_hash = hash_text(text);
      rec.level = agent::to_int(offer->level);
      rec.offerable = rec.level >= 2;
      rec.origin = "optimize";
      rec.summary = rw.title;
      rec = env.candidates().add(rec);
      winners.push_back({{"candidate_id", rec.id},
                         {"candidate_hash", rec.text_hash},
                         {"title", rw.title},
                         {"plan", offer->plan},
                         {"speedup", rw.speedup},
                         {"level", rec.level},
                         {"evidence", rw.summary}});
      lines += rec.id + ": " + rw.title + "\n";
    }
    ToolResult r;
    r.structured = {{"file", ws.relative(file)},
                    {"kernel", request.kernel},
                    {"summary", outcome.result.summary},
                    {"stop_reason", agent::to_string(outcome.result.stop_reason)},
                    {"tried", outcome.result.tried.size()},
                    {"winners", winners}};
    r.text = outcome.result.summary + "\n" + lines;
    return r;
  };
  return t;
}

}  // namespace warplens::mcp
