// `capture`: records a kernel's first launches from the workspace's program
// (the configured build and profile commands, workflows::capture_kernel_launches,
// as the editor's optimize job captures), into a directory of the
// workspace that `verify` then replays. The program is the configured one:
// an agent cannot make this server run a command of its choosing.
#include "mcp/tool_env.h"
#include "mcp/tool_support.h"

namespace warplens::mcp {

namespace fs = std::filesystem;

Tool make_capture_tool(ToolEnv& env) {
  Tool t;
  t.name = "capture";
  t.title = "Capture a kernel's launches from the workspace's program";
  t.description =
      "Runs the server's configured build command and profile command under the launch capture and records "
      "the first launches of one kernel (arguments, buffers, grid and block) into a capture directory of the "
      "workspace (default .warplens/capture), which verify replays. Needs a GPU and a configured profile command.";
  t.input_schema = {{"type", "object"},
                    {"properties",
                     {{"kernel", {{"type", "string"}, {"description", "the kernel's name as written"}}},
                      {"launches", {{"type", "integer"}, {"minimum", 1}, {"maximum", 16}, {"description", "default 3"}}},
                      {"out", {{"type", "string"}, {"description", "capture directory in the workspace (default .warplens/capture)"}}}}},
                    {"required", {"kernel"}},
                    {"additionalProperties", false}};
  t.output_schema = {{"type", "object"},
                     {"properties",
                      {{"capture", {{"type", "string"}}}, {"kernel", {{"type", "string"}}}, {"launches", {{"type", "integer"}}}}},
                     {"required", {"capture", "kernel", "launches"}}};
  t.annotations = {{"readOnlyHint", false}, {"destructiveHint", false}, {"openWorldHint", false}};
  t.run = [&env](const json& args, const ToolContext& ctx) {
    const auto& ws = env.workspace();
    if (ws.config().profile_command.empty())
      throw ToolError("no-capture", "this server has no profile command to capture from; start it with "
                                    "--profile-command CMD, or record one with `warplens capture --kernel NAME "
                                    "--out .warplens/capture -- PROGRAM ARGS`");
    // The capture needs CUPTI on a real GPU: say so before building and
    // running the program for nothing.
    if (auto gpu = env.services().probe(ctx.stop()); !gpu.available)
      throw ToolError("no-gpu", "capture needs an NVIDIA GPU: " + gpu.reason);
    fs::path out = ws.resolve(args.contains("out") ? args["out"].get<std::string>() : ws.default_capture_dir().string(),
                              "out", false);
    std::error_code ec;
    // Replaces an earlier capture, never anything else.
    if (fs::exists(out, ec) && !fs::is_empty(out, ec) && !fs::is_regular_file(out / "manifest.json", ec))
      throw ToolError("refused", ws.relative(out) + " exists and is not a capture directory; choose another `out`");
    workflows::KernelCaptureRequest req;
    req.kernel = args["kernel"].get<std::string>();
    req.profile_command = ws.config().profile_command;
    req.build_command = ws.config().build_command;
    req.working_directory = ws.root().string();
    req.max_launches = args.value("launches", 3);
    req.timeout = env.options().command_timeout;
    ctx.progress(0, 100, "waiting for the GPU");
    std::unique_lock gpu(env.gpu());
    workflows::KernelCapture capture;
    int step = 0;
    try {
      capture = workflows::capture_kernel_launches(
          req, env.services().capture, [&](const std::string& m) { ctx.progress(++step * 10, 100, m); }, ctx.stop());
    } catch (const workflows::OptimizeCaptureError& e) {
      std::string m = e.what();
      throw ToolError(m.find("build") != std::string::npos ? "build-failed" : "no-capture", m);
    }
    gpu.unlock();
    if (capture.capture_dir.empty() || ctx.cancelled()) throw ToolError("cancelled", "cancelled");
    fs::remove_all(out, ec);
    fs::create_directories(out.parent_path(), ec);
    fs::copy(capture.capture_dir, out, fs::copy_options::recursive, ec);
    if (ec) throw ToolError("failed", "cannot write the capture to " + ws.relative(out) + ": " + ec.message());
    ToolResult r;
    r.structured = {{"capture", ws.relative(out)}, {"kernel", req.kernel}, {"launches", capture.launches}};
    r.text = "captured " + std::to_string(capture.launches) + " launch(es) of " + req.kernel + " into " +
             ws.relative(out) + "\n";
    return r;
  };
  return t;
}

}  // namespace warplens::mcp
