// The fuzz targets' logging. spdlog's default logger writes to stdout, which
// warplens never logs to (logs go to stderr or a file) and which libFuzzer's
// -close_fd_mask=1 closes anyway. Off by default: a run of millions of
// malformed inputs would otherwise write a warning for most of them.
// WARPLENS_FUZZ_LOG_LEVEL (trace, debug, info, warn, err, critical) turns it
// on, on stderr, to see what the code said about one input when reproducing
// a finding: `WARPLENS_FUZZ_LOG_LEVEL=debug build-fuzz/bin/fuzz_server crash-...`.
#pragma once

#include <cstdlib>
#include <string>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace warplens::fuzz {

inline void configure_logging() {
  auto logger = spdlog::stderr_logger_mt("warplens-fuzz");
  const char* level = std::getenv("WARPLENS_FUZZ_LOG_LEVEL");
  logger->set_level(level ? spdlog::level::from_str(level) : spdlog::level::off);
  spdlog::set_default_logger(logger);
}

}  // namespace warplens::fuzz
