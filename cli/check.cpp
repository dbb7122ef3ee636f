// `warplens check`: analyse files and print diagnostics like a compiler,
// or as JSON objects whose range and severity are exactly LSP's.
#include <cstdio>

#include "cli/cli.h"
#include "cli/inputs.h"
#include "formats/model_json.h"

namespace warplens::cli {

using formats::finding_json;

namespace {

void print_check_help() {
  std::printf(
      "usage: warplens check [--format text|json] [--arch sm_XX] [-p DIR] [--no-resource-usage]\n"
      "                      [-I DIR] [-D NAME[=V]] [-U NAME] [-std=c++NN] [--cuda-path DIR] FILE...\n\n"
      "Analyses CUDA files and prints their diagnostics: the front end's, the static analyses',\n"
      "and resource usage and occupancy (low-occupancy, register-spill, resource-usage), for\n"
      "which each file's device code is compiled with nvcc.\n\n"
      "options:\n"
      "  --format text   compiler style, one per line: FILE:LINE:COL: SEVERITY: MESSAGE [CODE]\n"
      "                  (1-based line; 1-based column counted in bytes, as clang does)\n"
      "  --format json   a JSON array of {file, range, severity, code, source, message, data};\n"
      "                  range and severity exactly as in LSP (0-based, UTF-16 columns)\n"
      "  --arch sm_XX    target GPU architecture (default sm_90)\n"
      "  -p DIR          directory of compile_commands.json (default: searched upward from each file)\n"
      "  --no-resource-usage\n"
      "                  skip nvcc: no registers, occupancy or spill findings\n"
      "  --allow-driver GLOB\n"
      "                  let compile commands run this host compiler (-ccbin) or nvcc; by default\n"
      "                  only the CUDA toolkit and compilers on PATH run (repeatable)\n"
      "%s\n"
      "exit status: 0 when the analysis ran (whatever it found); 2 on usage errors, unreadable\n"
      "files, or when the front end could not run (its error is printed).\n",
      kCompileFlagsHelp);
}

std::string position_text(const std::string& display, const Position& p) {
  return display + ":" + std::to_string(p.line + 1) + ":" + std::to_string(p.column + 1);
}

}  // namespace

int run_check(const std::vector<std::string>& args, const CliEnvironment&) {
  FileCommandArgs a = read_file_command_args("check", args, {"text", "json"});
  if (a.help) {
    print_check_help();
    return kExitOk;
  }
  const std::string& format = a.format;
  std::vector<InputFile> inputs;
  if (!read_inputs(a.files, inputs)) return kExitUsage;

  bool all_parsed = true;
  nlohmann::json json_out = nlohmann::json::array();
  for (const auto& input : inputs) {
    workflows::FileAnalysis analysis = analyze_input(input, a);
    const AnalysisResult& result = analysis.result;
    InputConversion conversion(input);
    Converter& convert = conversion.convert;
    for (const auto& f : analysis.findings()) {
      if (format == "json") {
        json_out.push_back(finding_json(f, convert));
        continue;
      }
      auto display = [&](const Location& l) {
        const std::string& file = convert.file_of(l);
        return file == input.path ? input.given : file;
      };
      std::printf("%s: %s: %s [%s]\n", position_text(display(f.location), f.location.range.start).c_str(),
                  to_string(f.severity), f.message.c_str(), f.code.c_str());
      for (const auto& rel : f.related)
        std::printf("%s: note: %s\n", position_text(display(rel.location), rel.location.range.start).c_str(),
                    rel.message.c_str());
    }
    if (!result.parsed) {
      all_parsed = false;
      report_frontend_failure(input, result);
    }
  }
  if (format == "json") std::printf("%s\n", json_out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stdout);
  return all_parsed ? kExitOk : kExitUsage;
}

}  // namespace warplens::cli
