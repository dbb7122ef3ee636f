// `warplens mcp`: the Model Context Protocol server on stdio, for coding
// agents (docs/mcp.md). Reads the options that fix its scope and limits,
// then hands stdin/stdout to mcp::serve_stdio.
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "mcp/stdio_server.h"
#include "mcp/tool_env.h"

namespace warplens::cli {

namespace {

void print_mcp_help() {
  std::printf(
      "usage: warplens mcp [--root DIR] [options]\n\n"
      "Runs the Model Context Protocol server (MCP 2025-06-18) on stdin/stdout for coding agents\n"
      "(Claude Code, Codex CLI, Cursor, VS Code). Tools: analyze, kernel_report, verify, apply_rewrite,\n"
      "profile, capture, optimize (docs/mcp.md). Every path an agent passes is resolved inside the root\n"
      "and refused outside it; the only shell commands run are the build and profile commands below.\n\n"
      "options:\n"
      "  --root DIR               the workspace the agent may read and edit (default: the current directory)\n"
      "  --build-command CMD      run with /bin/sh -c in the root before profiling or capturing\n"
      "  --profile-command CMD    the workspace's program (profile, capture, optimize)\n"
      "  --capture DIR            verify's default capture directory (default: .warplens/capture)\n"
      "  -p, --compile-commands-dir DIR   where compile_commands.json is\n"
      "  --arch sm_XX             analysis and nvcc architecture (default: the GPU's own, else sm_90)\n"
      "  --no-resource-usage      never compile with nvcc for registers and occupancy\n"
      "  --inputs N               the verifier's input sets (default 5; fewer weakens its guarantee)\n"
      "  --runs N                 the verifier's timed runs per side (default 30)\n"
      "  --verify-timeout S       time limit per replay process (default 60)\n"
      "  --command-timeout S      time limit of the build, profile and capture commands (default 600)\n"
      "  --max-candidates N       optimize's candidate budget per call (default 16)\n"
      "  --nvcc PATH  --replay PATH\n"
      "  --max-message-bytes N    refuse messages larger than N bytes (default 67108864)\n"
      "Agents cannot change these: they are the limits the verifier's verdicts report.\n");
}

}  // namespace

int run_mcp(const std::vector<std::string>& args, const CliEnvironment& env) {
  mcp::WorkspaceConfig ws;
  mcp::ToolOptions options;
  std::size_t max_message_bytes = protocol::kDefaultMaxMessageBytes;
  OptionParser p("mcp");
  p.value("--root", [&](const std::string& v) { ws.root = v; });
  p.value("--build-command", ws.build_command);
  p.value("--profile-command", ws.profile_command);
  p.value("--capture", ws.capture_dir);
  p.value("-p,--compile-commands-dir", [&](const std::string& v) {
    ws.compile_commands_dir = v;
    options.analysis.compile_commands_dir = v;
  });
  p.value("--arch", [&](const std::string& v) {
    if (v.rfind("sm_", 0) != 0) throw UsageError("--arch expects an architecture such as sm_90, got `" + v + "`");
    options.analysis.arch = v;
    options.arch = v;
  });
  p.flag("--no-resource-usage", options.resource_usage, false);
  p.value("--inputs", [&](const std::string& v) { options.input_sets = static_cast<int>(parse_int("--inputs", v, 1, 100)); });
  p.value("--runs", [&](const std::string& v) { options.timed_runs = static_cast<int>(parse_int("--runs", v, 1, 10000)); });
  p.value("--verify-timeout", [&](const std::string& v) {
    options.verify_timeout_s = static_cast<double>(parse_int("--verify-timeout", v, 1, 86400));
  });
  p.value("--command-timeout", [&](const std::string& v) {
    options.command_timeout = std::chrono::seconds(parse_int("--command-timeout", v, 1, 86400));
  });
  p.value("--max-candidates", [&](const std::string& v) {
    options.optimize_max_candidates = static_cast<int>(parse_int("--max-candidates", v, 1, 48));
  });
  p.value("--nvcc", options.nvcc);
  p.value("--replay", options.replay_binary);
  p.value("--max-message-bytes", [&](const std::string& v) {
    max_message_bytes = static_cast<std::size_t>(parse_int("--max-message-bytes", v, 1024, 1ll << 34));
  });
  if (!p.parse(args)) {
    print_mcp_help();
    return kExitOk;
  }
  if (!p.positionals().empty())
    throw UsageError("mcp takes no positional arguments (got `" + p.positionals().front() + "`); use --root DIR");
  if (options.input_sets < 5)
    spdlog::warn("mcp: {} input set(s); the verifier's guarantee assumes at least 5", options.input_sets);
  options.docs_dir = find_docs_dir();
  std::signal(SIGPIPE, SIG_IGN);  // a vanished client is a write error, not a crash

  std::unique_ptr<mcp::ToolEnv> tools;
  try {
    tools = std::make_unique<mcp::ToolEnv>(ws, options);
  } catch (const std::exception& e) {
    throw UsageError(std::string("mcp: ") + e.what());
  }
  spdlog::info("mcp: serving workspace {} on stdio", tools->workspace().root().string());
  mcp::ServerInfo info;
  info.version = env.version;
  info.instructions =
      "warplens analyses, profiles and optimises CUDA kernels in the workspace " + tools->workspace().root().string() +
      ". Typical loop: analyze (or kernel_report) a file to see what is slow and why; profile to measure; write a "
      "candidate rewrite and submit it to verify (the verifier replays the kernel's captured launches, checks "
      "correctness on 5 input sets and times it); apply_rewrite writes a candidate only when verify rated it "
      "level >= 2. Paths are relative to the workspace root.";
  mcp::Session session(info, mcp::make_tools(*tools), mcp::fd_line_writer(STDOUT_FILENO));
  return mcp::serve_stdio(session, STDIN_FILENO, max_message_bytes);
}

}  // namespace warplens::cli
