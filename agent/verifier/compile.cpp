#include "agent/verifier/compile.h"

#include "agent/verifier/tool_process.h"
#include "analysis/nvcc_toolchain.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

std::string find_nvcc(const std::string& configured) {
  if (!configured.empty()) return find_on_path(configured);
  NvccLookup lookup = warplens::find_nvcc("");  // $CUDA_PATH, $CUDA_HOME, PATH, /usr/local/cuda
  return lookup.toolchain ? lookup.toolchain->nvcc : "";
}

bool needs_relocatable_device_code(const std::string& log) {
  return log.find("separate compilation mode") != std::string::npos ||
         log.find("-rdc=true") != std::string::npos ||
         log.find("relocatable device code") != std::string::npos;
}

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

  int step = 0;
  auto run = [&](std::vector<std::string> argv) {
    ToolSpec spec;
    spec.argv = std::move(argv);
    spec.timeout_s = req.timeout_s;
    spec.log_stem = req.output.string() + ".nvcc" + std::to_string(step++);
    result.command = shell_join(spec.argv);
    ToolRun r = run_tool(spec, stop);
    result.ms += r.process.wall_ms;
    result.cancelled = r.process.cancelled;
    std::string log = r.err + r.out;
    if (!r.succeeded() && (log.empty() || r.process.timed_out)) log += r.description;
    return std::make_pair(r.succeeded(), log);
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
