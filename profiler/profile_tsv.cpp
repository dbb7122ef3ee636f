#include "profiler/profile_tsv.h"

#include <cstdio>
#include <map>
#include <optional>

#include "profiler/demangle.h"

namespace warplens::profile {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string ratio(std::uint64_t a, std::uint64_t b) {
  return b ? number(double(a) / double(b)) : std::string();
}

struct Totals {
  std::uint64_t global = 0, shared = 0, local = 0, divergent = 0, threads = 0;
};

}  // namespace

std::string to_tsv(const Profile& p) {
  std::map<std::string, Totals> totals;
  for (const LineMetrics& l : p.lines) {
    Totals& t = totals[l.kernel];
    if (is_global(l.kind)) t.global += l.sectors;
    if (is_shared(l.kind)) t.shared += l.wavefronts;
    if (is_local(l.kind)) t.local += l.sectors;
    if (l.kind == LineKind::Branch) t.divergent += l.divergent;
    if (l.kind == LineKind::All) t.threads += l.threads_executed;
  }
  std::string out =
      "file\tline\tkernel\tkind\texecuted\tactual\tideal\tper_request\tideal_per_request\tratio\t"
      "excess\tshare\n";
  for (const LineMetrics& l : p.lines) {
    const Totals& t = totals[l.kernel];
    std::uint64_t actual = 0, total = 0;
    std::optional<std::uint64_t> ideal;
    std::string r;
    if (is_global(l.kind)) {
      actual = l.sectors;
      ideal = l.sectors_ideal;
      total = t.global;
      r = ratio(actual, *ideal);
    } else if (is_local(l.kind)) {
      actual = l.sectors;
      total = t.local;
    } else if (is_shared(l.kind)) {
      actual = l.wavefronts;
      ideal = l.wavefronts_ideal;
      total = t.shared;
      r = ratio(actual, *ideal);
    } else if (l.kind == LineKind::Branch) {
      actual = l.divergent;
      ideal = l.divergent + l.uniform;
      total = t.divergent;
      r = ratio(actual, *ideal);
    } else {  // All
      actual = l.threads_executed;
      ideal = 32 * l.executed;
      total = t.threads;
      r = ratio(actual, *ideal);
    }
    const bool memory = is_global(l.kind) || is_shared(l.kind);
    std::string excess = memory && ideal ? std::to_string(actual > *ideal ? actual - *ideal : 0) : "";
    out += l.file + '\t' + std::to_string(l.line) + '\t' + demangle(l.kernel) + '\t' +
           to_string(l.kind) + '\t' + std::to_string(l.executed) + '\t' + std::to_string(actual) +
           '\t' + (ideal ? std::to_string(*ideal) : "") + '\t' + ratio(actual, l.executed) + '\t' +
           (ideal && memory ? ratio(*ideal, l.executed) : "") + '\t' + r + '\t' + excess + '\t' +
           ratio(actual, total) + '\n';
  }
  return out;
}

}  // namespace warplens::profile
