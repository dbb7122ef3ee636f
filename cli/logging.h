// Logging setup: spdlog to stderr or to a file (--log-file), never to
// stdout, which is the LSP channel (and `check`'s output).
#pragma once

#include <optional>
#include <string>

namespace warplens::cli {

// Installs the default logger. `level` is trace|debug|info|warn|error|off;
// an empty `file` means stderr. Returns an error message, or empty.
std::string setup_logging(const std::string& level, const std::string& file);

bool valid_log_level(const std::string& level);

}  // namespace warplens::cli
