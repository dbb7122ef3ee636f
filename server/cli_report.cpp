// `warplens report --format json`: the kernel model of each file (kernels,
// parameters, shared arrays, accesses with their index expressions, launch
// sites, barriers, conditions), as docs/formats/report.md describes.
#include <cstdio>

#include "server/cli.h"
#include "server/cli_inputs.h"
#include "server/model_json.h"

namespace warplens::server {

namespace {

void print_report_help() {
  std::printf(
      "usage: warplens report [--format json] [--arch sm_XX] [-p DIR] FILE...\n\n"
      "Prints what the front end found in each file as JSON: kernels and device functions\n"
      "(parameters, __shared__ arrays, memory accesses with their index expressions in affine\n"
      "form, conditions, loops, barriers, calls), launch sites, the toolchain used, and the\n"
      "front end's own diagnostics. Ranges are LSP ranges (0-based, UTF-16 columns).\n\n"
      "exit status: 0 when every file was parsed; 2 on usage errors, unreadable files, or when\n"
      "the front end could not run.\n");
}

}  // namespace

int run_report(const std::vector<std::string>& args, const CliEnvironment& env) {
  FileCommandArgs a = read_file_command_args("report", args, {"json"});
  if (a.help) {
    print_report_help();
    return kExitOk;
  }
  a.options.run_static_analyses = false;  // the model is what the front end built
  std::vector<InputFile> inputs;
  if (!read_inputs(a.files, inputs)) return kExitUsage;

  bool all_parsed = true;
  nlohmann::json out_files = nlohmann::json::array();
  for (const auto& input : inputs) {
    AnalysisResult result = analyze(SourceFile{input.path, input.text}, a.options);
    InputConversion conversion(input);
    Converter& convert = conversion.convert;
    if (result.model.file.empty()) result.model.file = input.path;
    nlohmann::json file = model_json(result.model, convert);
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const auto& f : result.findings) diagnostics.push_back(finding_json(f, convert));
    file["file"] = input.path;
    file["parsed"] = result.parsed;
    file["toolchain"] = toolchain_json(result.toolchain);
    file["diagnostics"] = diagnostics;
    file["parseMs"] = result.parse_ms;
    out_files.push_back(std::move(file));
    if (!result.parsed) {
      all_parsed = false;
      report_frontend_failure(input, result);
    }
  }
  nlohmann::json out = {{"warplens", env.version}, {"files", out_files}};
  std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stdout);
  return all_parsed ? kExitOk : kExitUsage;
}

}  // namespace warplens::server
