#include "profiler/inject/inject_log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace warplens::inject {
namespace {
std::atomic<bool> g_verbose{false};

void vlog(const char* fmt, va_list args) {
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, args);
  // One write per message so lines from several threads do not interleave.
  std::fprintf(stderr, "[warplens] %s\n", buf);
}
}  // namespace

void set_verbose(bool v) { g_verbose = v; }
bool verbose() { return g_verbose; }

void log_detail(const char* fmt, ...) {
  if (!g_verbose) return;
  va_list args;
  va_start(args, fmt);
  vlog(fmt, args);
  va_end(args);
}

void log_problem(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vlog(fmt, args);
  va_end(args);
}

}  // namespace warplens::inject
