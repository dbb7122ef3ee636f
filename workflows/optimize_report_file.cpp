#include "workflows/optimize_report_file.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "agent/report.h"

namespace warplens::workflows {

namespace fs = std::filesystem;

namespace {

fs::path reports_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "warplens" / "reports";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "warplens" / "reports";
  return fs::temp_directory_path() / "warplens-reports";
}

std::string timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  localtime_r(&now, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y%m%d-%H%M%S", &tm);
  return b;
}

// Kernel names may be anything a C++ identifier allows; keep the file name tame.
std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return out.empty() ? "kernel" : out.substr(0, 80);
}

}  // namespace

std::string save_optimize_report(const agent::OptimizeResult& result, std::string_view original_text) {
  std::error_code ec;
  const fs::path dir = reports_dir();
  fs::create_directories(dir, ec);
  const fs::path base = dir / (file_safe(result.kernel) + "-" + timestamp());
  fs::path path = base;
  path += ".md";
  for (int i = 2; fs::exists(path, ec) && i < 100; ++i) {  // two jobs in one second
    path = base;
    path += "-" + std::to_string(i) + ".md";
  }
  std::ofstream out(path, std::ios::binary);
  out << agent::render_markdown(result, original_text);
  if (!out) {
    spdlog::warn("optimize: cannot write the report to {}", path.string());
    return "";
  }
  return path.string();
}

}  // namespace warplens::workflows
