#include "cli/logging.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/redaction.h"

namespace warplens::cli {

namespace {

constexpr const char* kPattern = "%Y-%m-%d %H:%M:%S.%e [%l] %v";

// Every line goes through the redactor after it is formatted: whatever a
// log call was handed (a message body, a URL, a child's output), no
// secret reaches the sink, at any level.
class RedactingFormatter : public spdlog::formatter {
 public:
  RedactingFormatter() : inner_(std::make_unique<spdlog::pattern_formatter>(kPattern)) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    spdlog::memory_buf_t line;
    inner_->format(msg, line);
    std::string redacted = common::redact_text(std::string_view(line.data(), line.size()));
    dest.append(redacted.data(), redacted.data() + redacted.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<RedactingFormatter>(); }

 private:
  std::unique_ptr<spdlog::formatter> inner_;
};

// A log file is created, never a directory for it; and it is never the
// LSP channel (stdout), whatever name reaches it (/dev/stdout, /proc/self/fd/1).
std::string check_log_file(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path parent = fs::path(file).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return "cannot open log file `" + file + "`: the directory " + parent.string() + " does not exist";
  struct stat target {}, out {};
  if (::stat(file.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) return "cannot open log file `" + file + "`: it is a directory";
    if (::fstat(STDOUT_FILENO, &out) == 0 && target.st_dev == out.st_dev && target.st_ino == out.st_ino)
      return "cannot use `" + file + "` as the log file: it is standard output, which carries LSP (or the command's output)";
  }
  return {};
}

}  // namespace

bool valid_log_level(const std::string& level) {
  for (const char* l : {"trace", "debug", "info", "warn", "error", "off"})
    if (level == l) return true;
  return false;
}

std::string setup_logging(const std::string& level, const std::string& file) {
  if (!valid_log_level(level))
    return "invalid --log-level `" + level + "` (expected trace, debug, info, warn, error or off)";
  // Secrets the process was given in its environment (WARPLENS_LLM_API_KEY,
  // OPENAI_API_KEY, HF_TOKEN, ...) are redacted by value from here on.
  common::register_environment_secrets();
  std::shared_ptr<spdlog::logger> logger;
  if (!file.empty())
    if (std::string error = check_log_file(file); !error.empty()) return error;
  try {
    if (file.empty())
      logger = std::make_shared<spdlog::logger>("warplens", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    else
      logger = std::make_shared<spdlog::logger>("warplens",
                                                std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, false));
  } catch (const spdlog::spdlog_ex& e) {
    return "cannot open log file `" + file + "`: " + e.what();
  }
  logger->set_formatter(std::make_unique<RedactingFormatter>());
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return {};
}

}  // namespace warplens::cli
