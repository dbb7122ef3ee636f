#include "agent/verifier/compile.h"

#include <unistd.h>

#include "agent/verifier/subprocess.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

std::string find_nvcc(const std::string& configured) {
  if (!configured.empty()) return find_on_path(configured);
  if (const char* cuda = std::getenv("CUDA_PATH")) {
    std::string p = std::string(cuda) + "/bin/nvcc";
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  return find_on_path("nvcc");
}

bool needs_relocatable_device_code(const std::string& log) {
  return log.find("separate compilation mode") != std::string::npos ||
         log.find("-rdc=true") != std::string::npos ||
         log.find("relocatable device code") != std::string::npos;
}

namespace {

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    bool quote = a.find_first_of(" \t\"'$") != std::string::npos;
    s += quote ? "'" + a + "'" : a;
  }
  return s;
}

}  // namespace

CompileResult compile_to_cubin(const CompileRequest& req, std::stop_token stop) {
  CompileResult result;
  std::string nvcc = find_nvcc(req.nvcc);
  if (nvcc.empty()) {
    result.log = "nvcc not found (set CUDA_PATH or put nvcc on PATH)";
    return result;
  }
  std::vector<std::string> common = {"-arch=" + req.arch, "-O3", "-lineinfo"};
  fs::path dir = req.source.parent_path();
  common.push_back("-I" + (dir.empty() ? std::string(".") : dir.string()));
  for (const auto& i : req.include_dirs) common.push_back("-I" + i);
  for (const auto& f : req.extra_flags) common.push_back(f);

  auto run = [&](std::vector<std::string> argv) {
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.timeout_s = req.timeout_s;
    result.command = join(spec.argv);
    ProcessResult p = run_process(spec, stop);
    result.ms += p.wall_ms;
    result.cancelled = p.cancelled;
    std::string log = p.err + p.out;
    if (!p.succeeded() && log.empty()) log = "nvcc " + p.describe();
    else if (p.timed_out) log += "\nnvcc timed out";
    return std::make_pair(p.succeeded(), log);
  };

  std::vector<std::string> argv = {nvcc, "-cubin"};
  argv.insert(argv.end(), common.begin(), common.end());
  argv.insert(argv.end(), {"-o", req.output.string(), req.source.string()});
  auto [ok, log] = run(argv);
  result.log = log;
  if (ok || result.cancelled || !needs_relocatable_device_code(log)) {
    result.ok = ok;
    return result;
  }
  // Dynamic parallelism: relocatable compile, then a device link against
  // the device runtime into a loadable cubin.
  // nvcc picks the input kind by extension: keep ".cubin".
  fs::path relocatable = req.output;
  relocatable.replace_extension(".rdc.cubin");
  std::vector<std::string> rdc = {nvcc, "-cubin", "-rdc=true"};
  rdc.insert(rdc.end(), common.begin(), common.end());
  rdc.insert(rdc.end(), {"-o", relocatable.string(), req.source.string()});
  auto [ok2, log2] = run(rdc);
  result.log = log2;
  if (!ok2) return result;
  std::vector<std::string> link = {nvcc, "-dlink", "-cubin", "-arch=" + req.arch, relocatable.string(),
                                   "-lcudadevrt", "-o", req.output.string()};
  auto [ok3, log3] = run(link);
  result.log = log2 + log3;
  result.ok = ok3;
  result.relocatable = true;
  return result;
}

}  // namespace warplens::verifier
