#include "agent/verifier/tool_process.h"

#include <unistd.h>

#include <chrono>
#include <fstream>

namespace warplens::verifier {

namespace fs = std::filesystem;

namespace {
std::string read_head(const fs::path& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string s(limit, '\0');
  in.read(s.data(), static_cast<std::streamsize>(limit));
  s.resize(static_cast<std::size_t>(in.gcount()));
  if (s.size() == limit) s += "\n[... output truncated ...]\n";
  return s;
}
}  // namespace

ToolRun run_tool(const ToolSpec& spec, std::stop_token stop) {
  ToolRun run;
  ProcessSpec p;
  p.argv = spec.argv;
  p.env_set = spec.env;
  p.working_directory = spec.cwd.string();
  p.timeout = std::chrono::milliseconds(static_cast<long long>(spec.timeout_s * 1000));
  const std::string out_path = spec.log_stem.empty() ? "" : spec.log_stem.string() + ".out";
  const std::string err_path = spec.log_stem.empty() ? "" : spec.log_stem.string() + ".err";
  p.stdout_path = out_path;
  p.stderr_path = err_path;
  if (!spec.log_stem.empty()) {
    std::error_code ec;
    fs::create_directories(spec.log_stem.parent_path(), ec);
  }
  run.process = run_process(p, stop);
  run.description = describe_process(run.process, p);
  if (!out_path.empty()) run.out = read_head(out_path, spec.read_limit);
  if (!err_path.empty()) run.err = read_head(err_path, spec.read_limit);
  return run;
}

std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

fs::path self_executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace warplens::verifier
