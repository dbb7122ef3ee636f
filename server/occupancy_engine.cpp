#include "server/occupancy_engine.h"

#include <filesystem>

#include "analysis/compile_db.h"

namespace warplens::server {

ResourceCompileCommand resource_compile_command(const std::string& file, const std::string& compile_commands_dir) {
  CommandForFile found = find_command_for_file(file, compile_commands_dir);
  ResourceCompileCommand out;
  out.description = found.description;
  if (found.command) {
    out.args = std::move(found.arguments);
    out.directory = std::move(found.directory);
  }
  return out;
}

std::string resource_skip_reason(const AnalysisResult& result) {
  if (result.cancelled) return "the analysis was cancelled";
  if (!result.parsed) return "the front end could not parse the file";
  // nvcc would read what the front end refused (#include "/dev/zero", a
  // FIFO), without the front end's limits.
  for (const auto& f : result.findings)
    if (f.code == codes::kAnalysisLimit) return "warplens did not read all of the file's includes: " + f.message;
  // nvcc compiles a header alone without what its includer declares first
  // (errors that are not the user's) and instantiates none of its
  // templates: headers are not compiled on their own.
  if (std::filesystem::path(result.file).extension() != ".cu")
    return "not a .cu file (headers are not compiled on their own)";
  // The model holds kernels and the device functions they call: without
  // them nvcc has nothing to report.
  if (result.model.functions.empty()) return "no device code";
  return {};
}

OccupancyAnalysis analyze_resources(const SourceFile& file, const KernelModel& model, const AnalysisOptions& options,
                                    std::stop_token stop) {
  ResourceCompileCommand command = resource_compile_command(file.path, options.compile_commands_dir);
  OccupancyRequest request;
  request.file = file;
  request.compile_args = std::move(command.args);
  request.working_directory = std::move(command.directory);
  return run_occupancy_analysis(request, model, options, stop);
}

}  // namespace warplens::server
