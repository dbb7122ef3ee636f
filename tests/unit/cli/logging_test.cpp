// cli/logging.cpp: every line through the redactor, and a log file that
// is created, never a directory for it, never stdout.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "cli/logging.h"

using namespace warplens::cli;
namespace fs = std::filesystem;

namespace {

struct RestoreLogger {
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  spdlog::level::level_enum level = spdlog::get_level();
  ~RestoreLogger() {
    spdlog::set_default_logger(previous);
    spdlog::set_level(level);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("every log line is redacted, whatever the call was handed, at every level") {
  RestoreLogger restore;
  fs::path dir = fs::temp_directory_path() / ("warplens-logging-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::setenv("WARPLENS_TEST_SESSION_TOKEN", "env-secret-token-77", 1);
  REQUIRE(setup_logging("trace", (dir / "log").string()) == "");
  spdlog::trace("endpoint http://me:pw-in-url@10.1.2.3:8000/v1");
  spdlog::debug("body {}", R"({"jsonrpc":"2.0","params":{"apiKey":"sk-in-body","token":"tok-in-body"}})");
  spdlog::info("child printed: Authorization: Bearer bearer-in-output");
  spdlog::warn("the environment's token env-secret-token-77 echoed");
  spdlog::error("password=pw-in-error");
  spdlog::default_logger()->flush();
  std::string text = slurp(dir / "log");
  for (const char* secret : {"pw-in-url", "sk-in-body", "tok-in-body", "bearer-in-output",
                             "env-secret-token-77", "pw-in-error"})
    CHECK_MESSAGE(text.find(secret) == std::string::npos, secret << " in:\n" << text);
  CHECK(text.find("http://<redacted>@10.1.2.3:8000/v1") != std::string::npos);
  CHECK(text.find("[trace]") != std::string::npos);
  CHECK(text.find("[error] password=<redacted>") != std::string::npos);
  ::unsetenv("WARPLENS_TEST_SESSION_TOKEN");
  fs::remove_all(dir);
}

TEST_CASE("--log-file never creates directories and is never stdout") {
  RestoreLogger restore;
  CHECK(setup_logging("info", "/nonexistent-warplens-dir/sub/x.log") ==
        "cannot open log file `/nonexistent-warplens-dir/sub/x.log`: the directory /nonexistent-warplens-dir/sub does "
        "not exist");
  CHECK_FALSE(fs::exists("/nonexistent-warplens-dir"));
  CHECK(setup_logging("info", fs::temp_directory_path().string()).find("it is a directory") != std::string::npos);
  // Whatever stdout is for this test run, its own name is refused.
  std::string self_stdout = "/proc/self/fd/1";
  if (fs::exists(self_stdout) && !fs::is_directory(self_stdout))
    CHECK(setup_logging("info", self_stdout).find("it is standard output") != std::string::npos);
  CHECK(setup_logging("loud", "").find("invalid --log-level") == 0);
}
