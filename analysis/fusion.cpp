// fusable-intermediate findings from the fusion candidates: the message with
// the bytes saved and the time they cost at the target's DRAM bandwidth,
// related locations, the data flow as a hover, and the evidence the agent's
// fuse rewrite acts on.
#include "analysis/fusion.h"

#include <cstdio>

#include "analysis/fusion_candidates.h"
#include "analysis/gpu_catalog.h"

namespace warplens {

namespace {

std::string quoted(const std::string& s) { return "`" + s + "`"; }

std::string bytes_text(std::int64_t b) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(b));
  else if (v >= 100 || v == double(std::int64_t(v))) std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string time_text(double ms) {
  char buf[64];
  if (ms >= 10) std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  else if (ms >= 1) std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  else if (ms >= 0.01) std::snprintf(buf, sizeof buf, "%.2f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.1f µs", ms * 1000);
  return buf;
}

std::string bandwidth_text(double gbs) {
  char buf[64];
  if (gbs >= 1000) std::snprintf(buf, sizeof buf, "%.1f TB/s", gbs / 1000);
  else std::snprintf(buf, sizeof buf, "%.0f GB/s", gbs);
  return buf;
}

std::string launch_text(const LaunchSite& l) {
  std::string s = l.kernel + l.template_args + "<<<" + l.grid.spelling + ", " + l.block.spelling;
  if (!l.shared_bytes_spelling.empty() || !l.stream_spelling.empty())
    s += ", " + (l.shared_bytes_spelling.empty() ? std::string("0") : l.shared_bytes_spelling);
  if (!l.stream_spelling.empty()) s += ", " + l.stream_spelling;
  s += ">>>(";
  for (std::size_t i = 0; i < l.args.size(); ++i) s += (i ? ", " : "") + l.args[i];
  return s + ")";
}

struct Traffic {
  std::optional<std::int64_t> bytes;     // the buffer
  std::string spelling;                  // its byte count as written
  std::optional<double> saved_ms;
  double bandwidth_gbs = 0;
  std::string bandwidth_source;
};

Traffic traffic(const FusionCandidate& c, const AnalysisOptions& options) {
  Traffic t;
  if (c.allocation >= 0) {
    const ByteCount& b = c.host->events[std::size_t(c.allocation)].bytes;
    t.bytes = b.value;
    t.spelling = b.spelling;
  }
  if (auto gpu = catalog_properties(options.arch); gpu && gpu->dram_bandwidth_gbs > 0) {
    t.bandwidth_gbs = gpu->dram_bandwidth_gbs;
    t.bandwidth_source = gpu->arch + " catalogue entry, " + gpu->name + " (docs/gpus.md)";
    if (t.bytes) t.saved_ms = 2.0 * double(*t.bytes) / (t.bandwidth_gbs * 1e9) * 1e3;
  }
  return t;
}

class FindingWriter {
 public:
  FindingWriter(const KernelModel& model, const FusionCandidate& c, const AnalysisOptions& options)
      : model_(model), c_(c), t_(traffic(c, options)) {}

  Finding write() {
    Finding f;
    f.code = codes::kFusableIntermediate;
    f.severity = c_.doubts.empty() ? Severity::Warning : Severity::Information;
    f.location = {model_.file, consumer().range};
    f.kernel = c_.consumer_kernel->key;
    f.message = message();
    related(f);
    evidence(f);
    f.explanation_markdown = hover();
    return f;
  }

 private:
  const HostEvent& ev(int i) const { return c_.host->events[std::size_t(i)]; }
  const HostEvent& producer() const { return ev(c_.producer); }
  const HostEvent& consumer() const { return ev(c_.consumer); }
  const LaunchSite& site(const HostEvent& e) const { return model_.launches[std::size_t(e.launch)]; }
  const std::string& buffer() const { return c_.host->buffers[std::size_t(c_.buffer)].name; }
  std::string a() const { return quoted(c_.producer_kernel->name); }
  std::string b() const { return quoted(c_.consumer_kernel->name); }

  std::string size_in_parens() const {
    if (t_.bytes) return " (" + bytes_text(*t_.bytes) + ")";
    if (!t_.spelling.empty()) return " (" + quoted(t_.spelling) + " bytes)";
    return "";
  }

  std::string saving() const {
    if (t_.bytes) {
      std::string s = "fusing saves " + bytes_text(2 * *t_.bytes) + " of traffic per call";
      if (t_.saved_ms) s += ", ~" + time_text(*t_.saved_ms) + " at " + bandwidth_text(t_.bandwidth_gbs);
      return s;
    }
    if (!t_.spelling.empty()) return "fusing saves a write and a read of it (2 × " + quoted(t_.spelling) + " bytes) per call";
    return "fusing saves a write and a read of it per call";
  }

  std::string message() const {
    std::string read = c_.distinct_reads == 1 ? "read once by " : "read by ";
    if (c_.doubts.empty())
      return quoted(buffer()) + size_in_parens() + " is written by " + a() + " and " + read + b() + ": " + saving();
    std::string m = quoted(buffer()) + size_in_parens() + " is written by " + a() + " and read by " + b() +
                    ", but fusing them cannot be proven safe: " + c_.doubts.front().text;
    if (c_.doubts.size() > 1)
      m += " (and " + std::to_string(c_.doubts.size() - 1) + " more reason" + (c_.doubts.size() > 2 ? "s" : "") + ")";
    return m;
  }

  void related(Finding& f) const {
    auto add = [&](const Range& r, std::string text) { f.related.push_back({{model_.file, r}, std::move(text)}); };
    std::string how = c_.write ? " (" + quoted(c_.write->spelling) + ")" : "";
    add(producer().range, quoted(buffer()) + " is written here by " + a() + how);
    if (c_.allocation >= 0) {
      const HostEvent& al = ev(c_.allocation);
      std::string size = t_.bytes ? bytes_text(*t_.bytes) : !t_.spelling.empty() ? quoted(t_.spelling) + " bytes" : "";
      add(al.range, quoted(buffer()) + " is allocated here" + (size.empty() ? "" : " (" + size + ")"));
    }
    if (c_.doubts.empty() && c_.death >= 0) add(ev(c_.death).range, quoted(buffer()) + " is not used after this");
    for (const auto& d : c_.doubts)
      if (d.where && f.related.size() < 8) add(*d.where, d.text);
  }

  void evidence(Finding& f) const {
    Evidence& d = f.data;
    d.set("buffer", buffer());
    d.set("host_function", c_.host->name);
    d.set("producer_kernel", c_.producer_kernel->name);
    d.set("producer_kernel_key", c_.producer_kernel->key);
    d.set("consumer_kernel", c_.consumer_kernel->name);
    d.set("consumer_kernel_key", c_.consumer_kernel->key);
    d.set("producer_param", c_.producer_kernel->params[std::size_t(c_.producer_param)].name);
    if (c_.consumer_param >= 0) d.set("consumer_param", c_.consumer_kernel->params[std::size_t(c_.consumer_param)].name);
    d.set("producer_line", std::int64_t(producer().range.start.line));
    d.set("producer_character", std::int64_t(producer().range.start.column));
    d.set("mapping", std::string(c_.mapping == FusionMapping::SameIndex ? "same-index" : "elementwise-producer"));
    d.set("reads_per_thread", std::int64_t(c_.distinct_reads));
    d.set("proven", c_.doubts.empty());
    if (t_.bytes) {
      d.set("bytes", *t_.bytes);
      d.set("saved_bytes", 2 * *t_.bytes);
    }
    if (!t_.spelling.empty()) d.set("bytes_spelling", t_.spelling);
    if (t_.saved_ms) d.set("saved_ms", *t_.saved_ms);
    if (t_.bandwidth_gbs > 0) d.set("bandwidth_gbs", t_.bandwidth_gbs);
    if (c_.allocation >= 0) {
      AllocationKind k = ev(c_.allocation).allocation;
      d.set("allocation", std::string(to_string(k)));
      d.set("managed", k == AllocationKind::MallocManaged);
    }
    if (!c_.doubts.empty()) {
      std::string reasons;
      for (const auto& x : c_.doubts) reasons += (reasons.empty() ? "" : "; ") + x.text;
      d.set("reasons", reasons);
    }
  }

  std::string hover() const {
    std::string md = "**" + std::string(c_.doubts.empty() ? "Fusable intermediate" : "Possibly fusable intermediate") +
                     " `" + buffer() + "`**" + size_in_parens() + "\n\n";
    md += "Data flow in `" + c_.host->name + "`:\n\n| line | what happens to `" + buffer() + "` |\n|---|---|\n";
    auto row = [&](const Range& r, const std::string& text) {
      md += "| " + std::to_string(r.start.line + 1) + " | " + text + " |\n";
    };
    if (c_.allocation >= 0)
      row(ev(c_.allocation).range, "allocated (`" + std::string(to_string(ev(c_.allocation).allocation)) + "`" +
                                       (t_.spelling.empty() ? "" : ", " + quoted(t_.spelling) + " bytes") + ")");
    std::string param_a = c_.producer_kernel->params[std::size_t(c_.producer_param)].name;
    row(producer().range, "`" + launch_text(site(producer())) + "` writes it as `" + param_a + "`" +
                              (c_.write ? ": " + quoted(c_.write->spelling) : ""));
    std::string param_b =
        c_.consumer_param >= 0 ? c_.consumer_kernel->params[std::size_t(c_.consumer_param)].name : buffer();
    row(consumer().range, "`" + launch_text(site(consumer())) + "` reads it as `" + param_b + "`" +
                              (c_.read ? ": " + quoted(c_.read->spelling) : ""));
    if (c_.death >= 0) row(ev(c_.death).range, "`" + ev(c_.death).spelling + "`: nothing reads it afterwards");
    md += "\n";
    if (c_.mapping == FusionMapping::SameIndex)
      md += "Each thread of " + b() + " reads the element the same thread of " + a() +
            " wrote (same index, same launch shape). A fused kernel computes " + a() +
            "'s value and uses it from a register instead of storing and reloading it.\n\n";
    else
      md += a() + " is element-wise (each thread reads and writes only its own element), so its value at any "
            "element can be recomputed where " + b() + " reads it instead of being loaded.\n\n";
    if (t_.bytes) {
      md += "Saved per call: one write and one read of `" + buffer() + "`, " + bytes_text(2 * *t_.bytes);
      if (t_.saved_ms)
        md += ", about " + time_text(*t_.saved_ms) + " of DRAM time at " + bandwidth_text(t_.bandwidth_gbs) + " (" +
              t_.bandwidth_source + "; peak bandwidth, so a lower bound)";
      md += ", plus one kernel launch.\n\n";
    } else {
      md += "Saved per call: one write and one read of `" + buffer() + "` (its size is not known statically), plus "
            "one kernel launch.\n\n";
    }
    if (!c_.doubts.empty()) {
      md += "Not reported as a warning because the analysis cannot prove that nothing else needs the buffer:\n\n";
      for (const auto& d : c_.doubts) md += "- " + d.text + "\n";
      md += "\n";
    }
    return md;
  }

  const KernelModel& model_;
  const FusionCandidate& c_;
  Traffic t_;
};

}  // namespace

std::vector<Finding> find_fusable_intermediates(const KernelModel& model, const AnalysisOptions& options,
                                                std::stop_token stop) {
  std::vector<Finding> out;
  KernelEffectsCache effects(model);
  for (const HostFunction& host : model.host_functions) {
    if (stop.stop_requested()) return {};
    for (const FusionCandidate& c : find_fusion_candidates(model, host, effects))
      out.push_back(FindingWriter(model, c, options).write());
  }
  return out;
}

}  // namespace warplens
