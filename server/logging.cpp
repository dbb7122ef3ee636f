#include "server/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace warplens::server {

bool valid_log_level(const std::string& level) {
  for (const char* l : {"trace", "debug", "info", "warn", "error", "off"})
    if (level == l) return true;
  return false;
}

std::string setup_logging(const std::string& level, const std::string& file) {
  if (!valid_log_level(level))
    return "invalid --log-level `" + level + "` (expected trace, debug, info, warn, error or off)";
  std::shared_ptr<spdlog::logger> logger;
  try {
    if (file.empty())
      logger = std::make_shared<spdlog::logger>("warplens", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    else
      logger = std::make_shared<spdlog::logger>("warplens",
                                                std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, false));
  } catch (const spdlog::spdlog_ex& e) {
    return "cannot open log file `" + file + "`: " + e.what();
  }
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e [%l] %v");
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return {};
}

}  // namespace warplens::server
