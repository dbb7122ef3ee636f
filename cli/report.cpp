// `warplens report --format json`: the kernel model of each file (kernels,
// parameters, shared arrays, accesses with their index expressions, launch
// sites, barriers, conditions) and each kernel's resource usage and
// occupancy, as docs/formats/report.md describes.
#include <cstdio>

#include "cli/cli.h"
#include "cli/inputs.h"
#include "formats/report_json.h"

namespace warplens::cli {

using formats::FileReport;
using formats::file_report_json;

namespace {

void print_report_help() {
  std::printf(
      "usage: warplens report [--format json] [--arch sm_XX] [-p DIR] [--no-resource-usage]\n"
      "                       [-I DIR] [-D NAME[=V]] [-U NAME] [-std=c++NN] [--cuda-path DIR] FILE...\n\n"
      "Prints what the front end found in each file as JSON: kernels and device functions\n"
      "(parameters, __shared__ arrays, memory accesses with their index expressions in affine\n"
      "form, conditions, loops, barriers, calls), launch sites, the toolchain used, per kernel\n"
      "its registers, shared memory, stack, spills, block size and theoretical occupancy (nvcc\n"
      "compiles the device code; --no-resource-usage skips it), and the front end's and resource\n"
      "usage's diagnostics. Ranges are LSP ranges (0-based, UTF-16 columns). --allow-driver GLOB\n"
      "lets compile commands run that host compiler or nvcc, as for check.\n\n"
      "compile flags (as for check):\n%s\n"
      "exit status: 0 when every file was parsed; 2 on usage errors, unreadable files, or when\n"
      "the front end could not run.\n",
      kCompileFlagsHelp);
}

}  // namespace

int run_report(const std::vector<std::string>& args, const CliEnvironment& env) {
  FileCommandArgs a = read_file_command_args("report", args, {"json"});
  if (a.help) {
    print_report_help();
    return kExitOk;
  }
  // The static analyses run too (about 1% of the parse): their findings are
  // in each file's "diagnostics", and "analysisMs" times them.
  std::vector<InputFile> inputs;
  if (!read_inputs(a.files, inputs)) return kExitUsage;

  bool all_parsed = true;
  nlohmann::json out_files = nlohmann::json::array();
  for (const auto& input : inputs) {
    workflows::FileAnalysis analysis = analyze_input(input, a);
    InputConversion conversion(input);
    std::vector<Finding> diagnostics = analysis.findings();
    FileReport report{input.path, &analysis.result, analysis.resources ? &*analysis.resources : nullptr,
                      analysis.resources_skipped, &diagnostics};
    out_files.push_back(file_report_json(report, conversion.convert));
    if (!analysis.result.parsed) {
      all_parsed = false;
      report_frontend_failure(input, analysis.result);
    }
  }
  nlohmann::json out = {{"warplens", env.version}, {"files", out_files}};
  std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stdout);
  return all_parsed ? kExitOk : kExitUsage;
}

}  // namespace warplens::cli
