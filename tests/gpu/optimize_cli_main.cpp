// `warplens-optimize`: the optimize command as its own executable, for the GPU
// script (tests/gpu/run_optimize_h200.sh) and for machines where the main
// `warplens` binary does not dispatch `optimize` yet. Same arguments as
// `warplens optimize` (cli/optimize.h).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/optimize.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

int main(int argc, char** argv) {
  // Logs (the LLM policy's turns, the verifier) go to stderr: stdout carries
  // the report, which --json makes machine-readable.
  spdlog::set_default_logger(spdlog::stderr_color_mt("warplens-optimize"));
  return warplens::cli::run_optimize_command(argc, argv);
}
