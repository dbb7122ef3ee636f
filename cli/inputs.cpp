#include "cli/inputs.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cli/options.h"
#include "common/file_read.h"

namespace warplens::cli {

bool read_inputs(const std::vector<std::string>& given, std::vector<InputFile>& out) {
  bool ok = true;
  for (const auto& name : given) {
    // Regular files only, bounded, and text: `check /dev/stdin`, a FIFO or
    // an ELF binary gets one line, not a hang or megabytes of diagnostics.
    common::FileReadResult read = common::read_text_file(name);
    if (!read) {
      std::fprintf(stderr, "warplens: error: cannot read %s\n", read.error.c_str());
      ok = false;
      continue;
    }
    std::error_code ec;
    auto absolute = std::filesystem::absolute(name, ec);
    out.push_back({name, (ec ? std::filesystem::path(name) : absolute.lexically_normal()).string(),
                   std::move(*read.content)});
  }
  return ok;
}

FileCommandArgs read_file_command_args(const std::string& command, const std::vector<std::string>& args,
                                       const std::vector<std::string>& formats) {
  FileCommandArgs out;
  out.format = formats.front();
  CompileFlagArgs flags;
  OptionParser p(command);
  p.value("--format", [&](const std::string& v) {
    if (std::find(formats.begin(), formats.end(), v) == formats.end()) {
      std::string expected;
      for (const auto& f : formats) expected += (expected.empty() ? "" : " or ") + f;
      throw UsageError(command + ": --format expects " + expected + ", got `" + v + "`");
    }
    out.format = v;
  });
  p.value("--arch", [&](const std::string& v) {
    if (v.rfind("sm_", 0) != 0) throw UsageError("--arch expects an architecture such as sm_90, got `" + v + "`");
    out.options.arch = v;
  });
  p.value("-p,--compile-commands-dir", out.options.compile_commands_dir);
  p.flag("--no-resource-usage", out.resource_usage, false);
  p.value("--allow-driver", [&](const std::string& v) {
    if (v.empty() || v[0] != '/')
      throw UsageError("--allow-driver expects an absolute path glob such as /opt/cuda-*/bin/nvcc, got `" + v + "`");
    out.options.allowed_drivers.push_back(v);
  });
  add_compile_flags(p, flags);
  if (!p.parse(args)) {
    out.help = true;
    return out;
  }
  for (const auto& f : p.positionals())
    if (!f.empty()) out.files.push_back(f);
  if (out.files.empty()) throw UsageError(command + ": no input files");
  flags.apply(out.options);
  return out;
}

workflows::FileAnalysis analyze_input(const InputFile& input, const FileCommandArgs& args) {
  workflows::FileAnalysis a = workflows::analyze_file(SourceFile{input.path, input.text}, args.options, args.resource_usage);
  if (!args.resource_usage) a.resources_skipped = "--no-resource-usage";
  return a;
}

InputConversion::InputConversion(const InputFile& input)
    : convert(formats::ConvertOptions{formats::PositionEncoding::Utf16, ""}, texts, input.path) {
  texts.pin(input.path, {std::make_shared<const formats::SourceText>(input.text), std::nullopt});
}

void report_frontend_failure(const InputFile& input, const AnalysisResult& result) {
  if (result.findings.empty())
    std::fprintf(stderr, "warplens: error: the front end did not analyse '%s' and gave no reason\n",
                 input.given.c_str());
  else
    std::fprintf(stderr, "warplens: error: the front end could not analyse '%s': %s\n", input.given.c_str(),
                 result.findings.front().message.c_str());
}

}  // namespace warplens::cli
