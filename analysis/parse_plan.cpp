#include "analysis/parse_plan.h"

#include "analysis/compile_db.h"
#include "analysis/cuda_toolkit.h"
#include "common/file_read.h"

namespace warplens {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

Finding toolchain_finding(const std::string& file, Severity severity, std::string message) {
  Finding f;
  f.code = codes::kToolchain;
  f.severity = severity;
  f.source = "warplens";
  f.location = {file, {}};
  f.message = std::move(message);
  return f;
}

ParsePlan plan_parse(const SourceFile& file, const AnalysisOptions& options, const std::string& resource_dir,
                     ToolchainStatus& toolchain, std::vector<Finding>& diagnostics) {
  // 1. The compile command.
  CommandForFile command = find_command_for_file(file.path, options.compile_commands_dir, options.workspace_roots);
  for (auto& f : command.findings) diagnostics.push_back(std::move(f));
  toolchain.compile_command_source = command.description;

  // 2. The toolkit (a clang compile command's --cuda-path is a hint).
  std::string cuda_setting = options.cuda_path;
  if (cuda_setting.empty() && command.command && !command.command->cuda_path.empty())
    cuda_setting = command.command->cuda_path;
  CudaToolkit toolkit = locate_cuda_toolkit(cuda_setting);
  std::string data_dir = find_data_dir();
  toolchain.cuda_found = toolkit.found;
  toolchain.cuda_path = toolkit.path;
  toolchain.cuda_version = toolkit.version;

  // 3. The architecture: the build's (highest it targets), else the option.
  std::string requested = options.arch;
  std::string candidate = options.arch;
  if (command.command && !command.command->gpu_archs.empty()) {
    requested = command.command->gpu_archs.front();
    for (const auto& a : command.command->gpu_archs)
      if (gpu_arch_number(a) > gpu_arch_number(requested)) requested = a;
    candidate = pick_gpu_arch(command.command->gpu_archs);
  }
  ParseArch arch = choose_parse_arch(candidate);
  toolchain.requested_arch = normalize_gpu_arch(requested).empty() ? requested : normalize_gpu_arch(requested);
  toolchain.parse_arch = arch.parse;
  if (arch.clamped || arch.parse != toolchain.requested_arch) {
    std::string reason = arch.clamped ? arch.reason
                                      : "the build also targets " + toolchain.requested_arch +
                                            ", which Clang 19 cannot parse; analysing the " + arch.parse + " build";
    diagnostics.push_back(toolchain_finding(file.path, Severity::Information, reason));
  }

  // 4. The command line.
  ParsePlan plan;
  plan.relocatable = command.command && command.command->relocatable_device_code;
  plan.target_file = file.path;
  plan.main_file = file.path;
  plan.main_text = file.text;
  plan.working_directory = command.directory;
  if (!command.context_file.empty()) {
    common::FileReadResult context = common::read_text_file(command.context_file);
    if (context) {
      plan.main_file = command.context_file;
      plan.main_text = std::move(*context.content);
    }
  }
  std::vector<std::string>& args = plan.args;
  args = {"clang-19", "-fsyntax-only", "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=" + arch.parse,
          "-nocudalib"};
  if (!resource_dir.empty()) args.push_back("-resource-dir=" + resource_dir);
  args.insert(args.end(), {"-ferror-limit=0", "-Wno-unknown-cuda-version", "-Wno-pragma-once-outside-header",
                           "-Wno-unknown-warning-option", "-fno-caret-diagnostics"});
  // No typo correction: Clang 19's delayed typo correction recurses without
  // end on a launch whose configuration names an undeclared variable when the
  // kernel's own declaration is invalid (`__global__ void g(co v) {}` then
  // `g<<<1, threads>>>(0);`, a state every edit passes through), and takes
  // the process down with a stack overflow (tests/fixtures/robustness/
  // typo_launch_recursion.cu). The price is Clang's "did you mean" hints; an
  // undeclared name is still an error.
  args.push_back("-fno-spell-checking");
  if (command.command) args.insert(args.end(), command.command->args.begin(), command.command->args.end());
  if (!command.command || !command.command->sets_language_standard) args.push_back("-std=c++17");
  if (data_dir.empty())
    diagnostics.push_back(toolchain_finding(
        file.path, Severity::Warning,
        "warplens's bundled headers (share/warplens) were not found next to the binary; set "
        "WARPLENS_DATA_DIR. Parsing may report missing headers."));
  if (toolkit.found) {
    args.push_back("--cuda-path=" + toolkit.path);
    args.push_back("--no-cuda-version-check");
    if (toolkit.has_cccl_dir) args.insert(args.end(), {"-isystem", toolkit.path + "/include/cccl"});
    if (!toolkit.has_texture_fetch_header && !data_dir.empty())
      args.insert(args.end(), {"-isystem", cuda13_shim_dir(data_dir)});
    if (auto sdk = clang_target_sdk_version(toolkit); !sdk.empty())
      args.insert(args.end(), {"-Xclang", "-target-sdk-version=" + sdk});
  } else {
    plan.degraded = true;
    args.insert(args.end(), {"--cuda-path=/nonexistent-cuda", "-nocudainc"});
    if (!data_dir.empty())
      args.insert(args.end(), {"-I", no_toolkit_include_dir(data_dir), "-include", no_toolkit_prelude(data_dir)});
    std::string where = toolkit.searched.empty() ? "nowhere" : join(toolkit.searched, ", ");
    diagnostics.push_back(toolchain_finding(
        file.path, Severity::Information,
        "no CUDA toolkit found (looked in " + where +
            "): parsed with warplens's bundled prelude (degraded mode). Kernels, index expressions and "
            "launches are analysed; CUDA library headers (cuda_fp16.h, cub, cooperative_groups, ...) are "
            "unavailable. Install the toolkit or set CUDA_PATH / the cudaPath setting."));
  }
  if (!data_dir.empty()) args.insert(args.end(), {"-include", nvcc_compat_header(data_dir)});
  // The host compiler's <omp.h> (nvcc -Xcompiler -fopenmp): after every
  // other directory, so a real one on the path wins.
  if (!data_dir.empty() && command.command && command.command->host_openmp)
    args.insert(args.end(), {"-idirafter", openmp_shim_dir(data_dir)});
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  args.push_back(plan.main_file);
  toolchain.degraded = plan.degraded;
  toolchain.clang_args = args;
  return plan;
}

}  // namespace warplens
