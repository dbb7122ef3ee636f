#include "server/measured_hover.h"

#include <cstdio>
#include <optional>

#include "analysis/markdown_table.h"
#include "analysis/occupancy.h"
#include "profiler/units.h"

namespace warplens::server {

namespace prof = warplens::profile;

namespace {

constexpr const char* kNone = "—";

std::optional<double> number(const Finding& f, const char* key) {
  const EvidenceValue* v = f.data.get(key);
  if (!v) return std::nullopt;
  if (auto i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (auto d = std::get_if<double>(v)) return *d;
  return std::nullopt;
}

std::string num(double v) {
  char buf[32];
  if (v == static_cast<double>(static_cast<std::int64_t>(v)))
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// "32 (ideal 4)" from two evidence keys, or "—".
std::string with_ideal(const Finding* f, const char* value_key, const char* ideal_key) {
  if (!f) return kNone;
  auto v = number(*f, value_key);
  if (!v) return kNone;
  auto ideal = number(*f, ideal_key);
  return ideal ? num(*v) + " (ideal " + num(*ideal) + ")" : num(*v);
}

std::string suffixed(const Finding* f, const char* key, const std::string& suffix) {
  if (!f) return kNone;
  auto v = number(*f, key);
  return v ? prof::format_ratio(*v) + suffix : kNone;
}

// Table cells escape '|' (messages quote code).
std::string cell(std::string s) {
  for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  return s;
}

struct Row {
  std::string what, predicted, measured;
};

std::vector<Row> rows_for(const std::string& code, const Finding* p, const Finding& m) {
  if (code == codes::kUncoalescedGlobal)
    return {{"sectors per request", with_ideal(p, "sectors", "ideal"),
             with_ideal(&m, "sectors_per_request", "ideal_sectors_per_request")},
            {"traffic / ideal", suffixed(p, "ratio", "×"), suffixed(&m, "excess_ratio", "×")}};
  if (code == codes::kSharedBankConflict)
    return {{"bank conflict", suffixed(p, "degree", "-way"), suffixed(&m, "conflict_ways", "-way")},
            {"wavefronts per request", with_ideal(p, "wavefronts", "ideal"),
             m.data.get("wavefronts_per_request") ? num(*number(m, "wavefronts_per_request")) : kNone}};
  if (code == codes::kWarpDivergence) {
    std::string predicted = kNone;
    if (p) {
      auto taken = number(*p, "lanes_taken"), lanes = number(*p, "lanes");
      predicted = taken && lanes ? num(*taken) + " of " + num(*lanes) + " lanes take it" : "divergent";
    }
    auto fraction = number(m, "divergent_fraction");
    return {{"divergence", predicted,
             fraction ? prof::format_percent(*fraction) + " of branch executions diverged" : kNone}};
  }
  if (code == codes::kRegisterSpill) {
    std::string predicted = kNone;
    if (p) {
      auto st = number(*p, "spill_store_bytes"), ld = number(*p, "spill_load_bytes");
      if (st && ld) predicted = num(*st) + " B stored, " + num(*ld) + " B loaded per thread";
    }
    auto sectors = number(m, "local_sectors");
    return {{"local memory", predicted, sectors ? prof::format_count(*sectors) + " sectors" : kNone}};
  }
  return {};
}

// Padded, with plain cells, so it reads as a table in a float that shows
// the markdown source too (analysis/markdown_table.h).
std::string table(const std::string& title, const std::vector<Row>& rows) {
  MarkdownTable t;
  t.headers = {title, "predicted (static)", "measured"};
  for (const auto& r : rows) t.rows.push_back({cell(r.what), cell(r.predicted), cell(r.measured)});
  return t.render();
}

}  // namespace

std::string prediction_vs_measurement(const std::vector<const Finding*>& predicted, const Finding& measured,
                                      const std::string& heading) {
  std::string md = "**Predicted vs measured** (" + heading + ")\n\n";
  const Finding* p = predicted.empty() ? nullptr : predicted.front();
  std::vector<Row> rows = rows_for(measured.code, p, measured);
  if (rows.empty()) rows.push_back({"finding", p ? p->message : kNone, measured.message});
  md += table(measured.code, rows);
  if (!p) md += "\nThe static analysis did not predict this on this line.\n";
  return md;
}

std::string kernel_prediction_vs_measurement(const std::string& kernel_name, const KernelResourceReport* r,
                                             const prof::KernelSummary& s, const prof::Kernel* k,
                                             const std::string& heading) {
  const prof::Launch* launch = k && !k->launches.empty() ? &k->launches.front() : nullptr;
  bool resources = r && r->resources_known;
  std::vector<Row> rows;
  rows.push_back({"registers per thread",
                  resources ? std::to_string(r->registers) + " (ptxas, " + r->arch + ")" : kNone,
                  launch ? std::to_string(launch->registers_per_thread) : kNone});
  rows.push_back({"static shared memory", resources ? format_bytes(r->shared_static_bytes) : kNone,
                  launch ? format_bytes(launch->static_shared_bytes) : kNone});
  std::string block = kNone;
  if (r)
    block = std::to_string(r->block_size.x) + "×" + std::to_string(r->block_size.y) + "×" +
            std::to_string(r->block_size.z) + " (" + to_string(r->block_source) + ")";
  rows.push_back({"block", block,
                  launch ? std::to_string(launch->block.x) + "×" + std::to_string(launch->block.y) + "×" +
                               std::to_string(launch->block.z)
                         : kNone});
  rows.push_back({"occupancy (theoretical)", r && r->occupancy_known ? prof::format_percent(r->occupancy) : kNone,
                  kNone});
  rows.push_back({"time per launch", kNone, s.mean_ns ? prof::format_duration_ns(*s.mean_ns) : "not timed"});
  if (s.effective_gbs) {
    std::string bw = prof::format_bandwidth_gbs(*s.effective_gbs) + " effective";
    if (s.fraction_of_peak)
      bw += " (" + prof::format_percent(*s.fraction_of_peak) + " of " + prof::format_bandwidth_gbs(s.peak_gbs) + ")";
    rows.push_back({"global bandwidth", kNone, bw});
  }
  rows.push_back({"launches", kNone, std::to_string(s.launches)});
  return "**Predicted vs measured** (" + heading + ")\n\n" + table("kernel " + kernel_name, rows);
}

}  // namespace warplens::server
