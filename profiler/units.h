// Numbers for people: durations, counts and bandwidths in messages, code
// lenses and the CLI's text view. Three significant digits, SI prefixes.
#pragma once

#include <string>

namespace warplens::profile {

std::string format_duration_ns(double ns);   // "812 ns", "52.1 µs", "1.23 ms", "2.50 s"
std::string format_count(double v);          // "812", "14.7 k", "3.7 M", "1.2 G"
std::string format_bandwidth_gbs(double gbs);  // "644 GB/s", "4.80 TB/s"
std::string format_ratio(double v);          // "8.0", "32.0", "1.25"
std::string format_percent(double fraction); // 0.889 -> "89%", 0.004 -> "0.4%"

}  // namespace warplens::profile
