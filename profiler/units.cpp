#include "profiler/units.h"

#include <cmath>
#include <cstdio>

namespace warplens::profile {
namespace {

std::string three_digits(double v, const char* unit) {
  char buf[48];
  if (v >= 100 || v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f%s", v, unit);
  else if (v >= 10) std::snprintf(buf, sizeof buf, "%.1f%s", v, unit);
  else std::snprintf(buf, sizeof buf, "%.2f%s", v, unit);
  return buf;
}

}  // namespace

std::string format_duration_ns(double ns) {
  if (ns < 1e3) return three_digits(ns, " ns");
  if (ns < 1e6) return three_digits(ns / 1e3, " µs");
  if (ns < 1e9) return three_digits(ns / 1e6, " ms");
  return three_digits(ns / 1e9, " s");
}

std::string format_count(double v) {
  char buf[48];
  double a = std::fabs(v);
  if (a < 1e3) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const char* unit = " k";
  double scaled = v / 1e3;
  if (a >= 1e9) {
    unit = " G";
    scaled = v / 1e9;
  } else if (a >= 1e6) {
    unit = " M";
    scaled = v / 1e6;
  }
  std::snprintf(buf, sizeof buf, "%.1f%s", scaled, unit);
  return buf;
}

std::string format_bandwidth_gbs(double gbs) {
  if (gbs >= 1000) return three_digits(gbs / 1000, " TB/s");
  return three_digits(gbs, " GB/s");
}

std::string format_ratio(double v) {
  char buf[32];
  if (std::fabs(v - std::round(v * 10) / 10) < 1e-9 || v >= 10) std::snprintf(buf, sizeof buf, "%.1f", v);
  else std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string format_percent(double fraction) {
  char buf[32];
  double p = fraction * 100;
  if (p >= 1 || p == 0) std::snprintf(buf, sizeof buf, "%.0f%%", p);
  else std::snprintf(buf, sizeof buf, "%.1f%%", p);
  return buf;
}

}  // namespace warplens::profile
