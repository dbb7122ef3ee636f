// What `check` and `report` share: reading the files named on the command
// line and the analysis options they accept (--arch, -p).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "analysis/occupancy_findings.h"
#include "workflows/analyze_file.h"
#include "cli/cli.h"
#include "cli/compile_flag_args.h"
#include "formats/convert.h"

namespace warplens::cli {

using formats::Converter;
using formats::TextLookup;

struct InputFile {
  std::string given;  // as typed, for messages
  std::string path;   // absolute, for the analysis
  std::string text;
};

// Reads every file. Reports each one that cannot be read on stderr
// ("warplens: error: cannot read 'x': No such file or directory") and
// returns false if any could not.
bool read_inputs(const std::vector<std::string>& given, std::vector<InputFile>& out);

// The arguments of a command over files:
//   [--format F] [--arch sm_XX] [-p DIR] [--no-resource-usage] [--allow-driver GLOB]
//   [-I DIR] [-D NAME[=V]] [-U NAME] [-std=c++NN] [--cuda-path DIR] [--help] FILE...
struct FileCommandArgs {
  std::string format;  // one of `formats`; the first is the default
  AnalysisOptions options;  // with the compile flags applied (compile_flag_args.h)
  bool resource_usage = true;  // compile with nvcc for registers and occupancy
  std::vector<std::string> files;
  bool help = false;
};
// Throws UsageError for anything else, and when no file is given.
FileCommandArgs read_file_command_args(const std::string& command, const std::vector<std::string>& args,
                                       const std::vector<std::string>& formats);

// One input analysed as `check` and `report` do (workflows/analyze_file.h):
// the front end (and the static analyses unless options.run_static_analyses
// is off), then resource usage and occupancy with nvcc, synchronously,
// unless --no-resource-usage.
workflows::FileAnalysis analyze_input(const InputFile& input, const FileCommandArgs& args);

// Converts ranges in an input's results to LSP's (UTF-16 columns), with
// the input's own text and other files read from disk.
struct InputConversion {
  explicit InputConversion(const InputFile& input);
  TextLookup texts;
  Converter convert;
};

// Prints why the front end produced nothing for `input`; for exit code 2.
void report_frontend_failure(const InputFile& input, const AnalysisResult& result);

}  // namespace warplens::cli
