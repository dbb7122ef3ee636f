#include "workflows/llm_policy_tools.h"

#include <unistd.h>

#include <atomic>
#include <fstream>

#include "agent/verifier/compile.h"

namespace warplens::workflows {

namespace fs = std::filesystem;

agent::PolicyTools make_policy_tools(const PolicyToolsOptions& o, std::stop_token stop) {
  agent::PolicyTools t;
  if (frontend_available())
    t.analyze = [file = o.file, analysis = o.analysis, stop](const std::string& source) {
      return analyze(SourceFile{file.string(), source}, analysis, stop);
    };
  t.compile_errors = [o, stop](const std::string& source) -> std::optional<std::string> {
    static std::atomic<int> counter{0};
    const fs::path dir = fs::temp_directory_path() /
                         ("warplens-llm-compile-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    fs::create_directories(dir);
    verifier::CompileRequest req;
    req.source = dir / o.file.filename();
    req.output = dir / "candidate.cubin";
    req.arch = o.arch;
    req.include_dirs = o.include_dirs;
    req.include_dirs.push_back(o.file.parent_path().string());  // the original's own headers
    req.nvcc = o.nvcc;
    req.timeout_s = o.compile_timeout_s;
    std::ofstream(req.source) << source;
    const verifier::CompileResult r = verifier::compile_to_cubin(req, stop);
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (r.ok) return std::nullopt;
    return r.log.empty() ? std::string("nvcc failed: ") + r.command : r.log;
  };
  return t;
}

}  // namespace warplens::workflows
