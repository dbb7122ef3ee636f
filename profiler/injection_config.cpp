#include "profiler/injection_config.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace warplens::profile {
namespace {

std::string format_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return std::to_string(v);
}

bool parse_int(const char* s, int* out) {
  std::string_view v(s);
  int value = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (ec != std::errc() || ptr != v.data() + v.size()) return false;
  *out = value;
  return true;
}

bool parse_switch(const char* s, bool* out) {
  std::string_view v(s);
  if (v == "1" || v == "true" || v == "on") *out = true;
  else if (v == "0" || v == "false" || v == "off") *out = false;
  else return false;
  return true;
}

bool parse_double(const char* s, double* out) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

}  // namespace

const char* to_string(SassSetup s) { return s == SassSetup::Context ? "context" : "launch"; }

std::optional<SassSetup> sass_setup_from_string(std::string_view s) {
  if (s == "context") return SassSetup::Context;
  if (s == "launch") return SassSetup::Launch;
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> to_environment(const InjectionConfig& c) {
  std::vector<std::pair<std::string, std::string>> e;
  e.emplace_back(env::kOutput, c.output_path);
  e.emplace_back(env::kKernelRegex, c.settings.kernel_regex);
  e.emplace_back(env::kMetricLaunches, std::to_string(c.settings.metric_launches));
  e.emplace_back(env::kLaunchRecords, std::to_string(c.settings.launch_records));
  e.emplace_back(env::kBudgetMs, format_number(c.settings.budget_ms));
  e.emplace_back(env::kMetrics, c.settings.metrics ? "1" : "0");
  e.emplace_back(env::kSassMode, to_string(c.settings.sass_mode));
  e.emplace_back(env::kPass, c.pass);
  e.emplace_back(env::kActivity, c.activity ? "1" : "0");
  e.emplace_back(env::kVerbose, c.verbose ? "1" : "0");
  if (!c.sass_dump_path.empty()) e.emplace_back(env::kSassDump, c.sass_dump_path);
  return e;
}

InjectionConfig config_from_environment(const std::function<const char*(const char*)>& get,
                                        std::vector<std::string>* problems) {
  InjectionConfig c;
  auto problem = [&](const char* name, const char* value, const char* expected) {
    if (problems)
      problems->push_back(std::string(name) + "=\"" + value + "\" is not " + expected +
                          "; using the default");
  };
  if (const char* v = get(env::kOutput)) c.output_path = v;
  if (const char* v = get(env::kKernelRegex)) c.settings.kernel_regex = v;
  if (const char* v = get(env::kMetricLaunches); v && *v) {
    int n = 0;
    if (parse_int(v, &n) && n >= 0) c.settings.metric_launches = n;
    else problem(env::kMetricLaunches, v, "a non-negative integer");
  }
  if (const char* v = get(env::kLaunchRecords); v && *v) {
    int n = 0;
    if (parse_int(v, &n) && n >= 0) c.settings.launch_records = n;
    else problem(env::kLaunchRecords, v, "a non-negative integer");
  }
  if (const char* v = get(env::kBudgetMs); v && *v) {
    double d = 0;
    if (parse_double(v, &d) && d >= 0) c.settings.budget_ms = d;
    else problem(env::kBudgetMs, v, "a non-negative number of milliseconds");
  }
  if (const char* v = get(env::kMetrics); v && *v && !parse_switch(v, &c.settings.metrics))
    problem(env::kMetrics, v, "0 or 1");
  if (const char* v = get(env::kSassMode); v && *v) {
    if (auto m = sass_mode_from_string(v)) c.settings.sass_mode = *m;
    else problem(env::kSassMode, v, "per-launch or whole-run");
  }
  if (const char* v = get(env::kPass); v && *v) {
    std::string_view s(v);
    if (s == "metrics" || s == "timing") c.pass = v;
    else problem(env::kPass, v, "metrics or timing");
  }
  if (const char* v = get(env::kVerbose)) c.verbose = std::string_view(v) == "1";
  if (const char* v = get(env::kSassDump)) c.sass_dump_path = v;
  if (const char* v = get(env::kSassSetup); v && *v) {
    if (auto s = sass_setup_from_string(v)) c.sass_setup = *s;
    else problem(env::kSassSetup, v, "context or launch");
  }
  // Decided after the metrics switch: unset (or unreadable) means "the
  // other of the two", the combination that is known to work.
  c.activity = !c.settings.metrics;
  if (const char* v = get(env::kActivity); v && *v && !parse_switch(v, &c.activity))
    problem(env::kActivity, v, "0 or 1");
  return c;
}

std::string expand_output_path(const std::string& pattern, long pid) {
  std::string out;
  out.reserve(pattern.size() + 8);
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += std::to_string(pid);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

}  // namespace warplens::profile
