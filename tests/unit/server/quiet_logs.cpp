// Server logs go to stderr; in unit tests they would bury doctest's output.
// WARPLENS_TEST_LOG=debug (or trace, info, ...) turns them back on.
#include <cstdlib>

#include <spdlog/spdlog.h>

namespace {
struct QuietLogs {
  QuietLogs() {
    const char* level = std::getenv("WARPLENS_TEST_LOG");
    spdlog::set_level(level ? spdlog::level::from_str(level) : spdlog::level::off);
  }
} quiet_logs;
}  // namespace
