#include "cli/profile.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/options.h"
#include "common/file_read.h"
#include "profiler/gpu_probe.h"
#include "profiler/kernel_summary.h"
#include "profiler/measured_findings.h"
#include "profiler/profile_data.h"
#include "profiler/profile_tsv.h"
#include "profiler/runner.h"
#include "profiler/units.h"
#include "workflows/profile.h"

namespace warplens::cli {
namespace {

namespace prof = warplens::profile;

constexpr const char* kUsage =
    "usage: warplens profile [options] -- PROGRAM [ARGS...]\n"
    "       warplens profile [options] FILE.cu [-- ARGS...]\n"
    "       warplens profile --show PROFILE.json [--format json|tsv|text]\n"
    "\n"
    "Runs the program under warplens' CUPTI injection library and reports per-kernel times\n"
    "and per-line measured metrics (coalescing, bank conflicts, divergence). The program runs\n"
    "twice: once for the metrics, once for the timings. FILE.cu is built first with nvcc\n"
    "-lineinfo -O3 for this GPU; it must contain main().\n"
    "\n"
    "options:\n"
    "  --kernel REGEX      only kernels whose name matches (ECMAScript, searched in the\n"
    "                      demangled and the mangled name)\n"
    "  --launches N        launches per kernel measured with SASS metrics (default 1)\n"
    "  --budget-ms N       wall time the metric collection may add (default 30000)\n"
    "  --no-metrics        timings and launch data only\n"
    "  --passes 2|1        2 (default; auto is the same): a metrics pass (per-line\n"
    "                      metrics) and a timing pass (durations, launches, copies),\n"
    "                      never both in one run of the program; 1: the metrics pass\n"
    "                      only (no timings)\n"
    "  --timeout S         per run of the program, in seconds (default 600)\n"
    "  --format F          json (the profile), tsv (per-line ratios) or text\n"
    "                      (default: json with --out, text otherwise)\n"
    "  --out FILE          write the output to FILE instead of stdout\n"
    "  --work-dir DIR      keep the program's stdout/stderr and raw profiles in DIR\n"
    "  --arch sm_XY        nvcc target for FILE.cu (default: the GPU's own)\n"
    "  --nvcc-flag FLAG    extra nvcc flag for FILE.cu (repeatable)\n"
    "  --sass-mode M       per-launch (default) or whole-run\n"
    "  --verbose           the injection library logs to the program's stderr\n"
    "  --sass-dump FILE    write every raw SASS record CUPTI returns to FILE (TSV;\n"
    "                      %p becomes the pid), for diagnosing the collection\n"
    "  -h, --help          this text\n"
    "\n"
    "exit codes: 0 profiled, 1 error, 2 usage, 3 no GPU, 4 build failed, 5 profiling failed\n";

struct CliOptions {
  prof::RunOptions run;
  std::string format;       // empty: by --out
  std::string out;
  std::string show;
  std::string source;       // FILE.cu
  std::string arch;
  std::vector<std::string> nvcc_flags;
  bool help = false;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A whole number (no sign games, no trailing text), or nothing.
std::optional<long long> whole_number(const std::string& s) {
  long long n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

// Returns an error message, or "" when the arguments are fine. Options come
// before `--`; what follows it is the program (or FILE.cu's arguments).
std::string parse_arguments(int argc, char** argv, CliOptions* o) {
  auto& s = o->run.settings;
  auto [options, rest] = split_at_double_dash(std::vector<std::string>(argv + 1, argv + argc));
  OptionParser p;
  p.value("--kernel", s.kernel_regex);
  p.value("--launches", [&](const std::string& v) {
    auto n = whole_number(v);
    if (!n || *n < 0 || *n > 1'000'000) throw UsageError("--launches needs a count, got \"" + v + "\"");
    s.metric_launches = int(*n);
  });
  p.value("--budget-ms", [&](const std::string& v) {
    auto n = whole_number(v);
    if (!n || *n < 0) throw UsageError("--budget-ms needs milliseconds, got \"" + v + "\"");
    s.budget_ms = double(*n);
  });
  p.flag("--no-metrics", s.metrics, false);
  p.value("--passes", [&](const std::string& v) {
    if (v == "2" || v == "auto") o->run.passes = prof::Passes::Two;
    else if (v == "1") o->run.passes = prof::Passes::One;
    else throw UsageError("--passes takes 2 (or auto) or 1, got \"" + v + "\"");
  });
  p.value("--timeout", [&](const std::string& v) {
    auto n = whole_number(v);
    if (!n || *n <= 0) throw UsageError("--timeout needs seconds, got \"" + v + "\"");
    o->run.timeout = std::chrono::seconds(*n);
  });
  p.value("--format", [&](const std::string& v) {
    if (v != "json" && v != "tsv" && v != "text") throw UsageError("--format takes json, tsv or text, got \"" + v + "\"");
    o->format = v;
  });
  p.value("--out", o->out);
  p.value("--show", o->show);
  p.value("--work-dir", o->run.work_dir);
  p.value("--arch", [&](const std::string& v) {
    if (v.rfind("sm_", 0) != 0) throw UsageError("--arch takes sm_XY, got \"" + v + "\"");
    o->arch = v;
  });
  p.values("--nvcc-flag", o->nvcc_flags);
  p.value("--sass-mode", [&](const std::string& v) {
    auto m = prof::sass_mode_from_string(v);
    if (!m) throw UsageError("--sass-mode takes per-launch or whole-run, got \"" + v + "\"");
    s.sass_mode = *m;
  });
  p.flag("--verbose", o->run.verbose);
  p.value("--sass-dump", [&](const std::string& v) {
    o->run.sass_dump = v;
    // The program may run elsewhere (--work-dir is not its working directory).
    if (!v.empty() && v[0] != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof cwd)) o->run.sass_dump = std::string(cwd) + "/" + v;
    }
  });
  try {
    if (!p.parse(options)) {
      o->help = true;
      return {};
    }
  } catch (const UsageError& e) {
    return e.what();
  }
  for (const auto& a : p.positionals()) {
    if (o->source.empty() && ends_with(a, ".cu")) o->source = a;
    else return "unexpected argument \"" + a + "\" (put the program after --)";
  }
  if (!o->show.empty()) {
    if (!o->source.empty() || !rest.empty()) return "--show takes no program";
    return {};
  }
  if (o->source.empty()) {
    if (rest.empty()) return "no program given";
    o->run.command = rest;
  } else {
    o->run.command = rest;  // arguments for the built program; argv[0] added after the build
  }
  return {};
}

// ---------------------------------------------------------------------------
// Text view
// ---------------------------------------------------------------------------

std::optional<std::string> read_text(const std::string& path) {
  // Regular text files only (a profile may name any path as a source).
  common::FileReadResult read = common::read_text_file(path);
  if (!read) return std::nullopt;
  return std::move(*read.content);
}

std::string pad(std::string s, std::size_t width) {
  // Byte width is good enough: names are ASCII, units may hold "µ".
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string text_view(const prof::Profile& p) {
  std::string out;
  char buf[512];
  std::string device = "no device recorded";
  if (!p.devices.empty()) {
    const prof::Device& d = p.devices.front();
    device = d.name + " (" + d.arch() + ", " + std::to_string(d.sm_count) + " SMs";
    if (d.peak_bandwidth_gbs > 0) device += ", peak " + prof::format_bandwidth_gbs(d.peak_bandwidth_gbs);
    device += ")";
  }
  std::snprintf(buf, sizeof buf, "warplens profile: %s · %zu pass%s · %s · exit code %d\n",
                device.c_str(), p.passes.size(), p.passes.size() == 1 ? "" : "es",
                prof::format_duration_ns(p.wall_ms * 1e6).c_str(), p.exit_code);
  out += buf;

  out += "\n" + pad("kernel", 48) + "  summary\n";
  for (const prof::KernelSummary& s : prof::kernel_summaries(p)) {
    std::string name = s.name.size() > 46 ? s.name.substr(0, 45) + "…" : s.name;
    out += pad(name, 48) + "  " + s.title + "\n";
  }

  // Findings per file, whole-line ranges (no static model here).
  std::map<std::string, bool> seen;
  std::vector<Finding> findings;
  for (const prof::LineMetrics& l : p.lines) {
    if (seen.count(l.file)) continue;
    seen[l.file] = true;
    std::optional<std::string> text = read_text(l.file);
    prof::MeasuredFindingsRequest req;
    req.file = l.file;
    if (text) req.text = *text;
    for (Finding& f : prof::measured_findings(p, req)) findings.push_back(std::move(f));
  }
  if (!findings.empty()) out += "\n";
  for (const Finding& f : findings) {
    std::snprintf(buf, sizeof buf, "%s:%d:%d: %s: ", f.location.file.c_str(),
                  f.location.range.start.line + 1, f.location.range.start.column + 1,
                  to_string(f.severity));
    out += buf + f.message + " [" + f.code + "] (" + f.kernel + ")\n";
  }
  if (findings.empty() && !p.lines.empty())
    out += "\nno line exceeded the thresholds (coalescing, bank conflicts, divergence, spills)\n";
  const bool measured = std::any_of(p.kernels.begin(), p.kernels.end(),
                                    [](const prof::Kernel& k) { return k.metric_launches > 0; });
  if (p.lines.empty() && measured)
    out += std::string("\nno per-line data in this profile") +
           (p.warnings.empty() ? " (the SASS records held none; see the collector counters in the JSON)\n"
                               : "; the warnings below say why\n");
  if (!p.warnings.empty()) {
    out += "\nwarnings:\n";
    for (const prof::Warning& w : p.warnings) out += "  [" + w.code + "] " + w.message + "\n";
  }
  return out;
}

std::string render(const prof::Profile& p, const std::string& format) {
  if (format == "json") return prof::to_json(p) + "\n";
  if (format == "tsv") return prof::to_tsv(p);
  return text_view(p);
}

int emit(const std::string& text, const std::string& out) {
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return kProfileExitOk;
  }
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) {
    std::fprintf(stderr, "warplens profile: cannot write %s\n", out.c_str());
    return kProfileExitError;
  }
  return kProfileExitOk;
}

int exit_code_for(workflows::ProfileJobError::Kind kind) {
  using Kind = workflows::ProfileJobError::Kind;
  switch (kind) {
    case Kind::BadRequest: return kProfileExitUsage;
    case Kind::NoGpu: return kProfileExitNoGpu;
    case Kind::BuildFailed: return kProfileExitBuildFailed;
    case Kind::Failed: break;
  }
  return kProfileExitFailed;
}

}  // namespace

int run_profile_command(int argc, char** argv) {
  CliOptions o;
  o.run.tool_version = prof::tool_version();
  if (std::string err = parse_arguments(argc, argv, &o); !err.empty()) {
    std::fprintf(stderr, "warplens profile: %s\n\n%s", err.c_str(), kUsage);
    return kProfileExitUsage;
  }
  if (o.help) {
    std::fputs(kUsage, stdout);
    return kProfileExitOk;
  }
  const std::string format = !o.format.empty() ? o.format : (o.out.empty() ? "text" : "json");

  if (!o.show.empty()) {
    std::string error;
    auto p = prof::load_profile(o.show, &error);
    if (!p) {
      std::fprintf(stderr, "warplens profile: %s\n", error.c_str());
      return kProfileExitError;
    }
    return emit(render(*p, format), o.out);
  }

  // The same workflow as the editor's warplens.profile (workflows/profile.h):
  // the GPU first (without one, neither nvcc nor the program is worth
  // running), then FILE.cu built for it, then the program under the
  // injection library.
  workflows::ProfileJobRequest req;
  req.run = o.run;
  req.timeout = o.run.timeout;
  if (o.source.empty()) {
    req.program = o.run.command;
    req.quick_gpu_check = true;
  } else {
    req.source_file = o.source;
    req.program_args = o.run.command;
    req.arch = o.arch;
    req.nvcc_flags = o.nvcc_flags;
    req.run_next_to_source = false;  // where the user runs `warplens profile`, as for a given program
  }
  const bool tty = isatty(STDERR_FILENO);
  auto progress = [tty](workflows::ProfileStage stage, const std::string& message, int) {
    if (stage == workflows::ProfileStage::Preparing) return;
    if (tty || message != "done") std::fprintf(stderr, "warplens profile: %s\n", message.c_str());
  };
  workflows::ProfileJobResult r;
  try {
    r = workflows::run_profile_job(req, {}, progress, [](std::stop_token s) { return prof::probe_gpus(s); });
  } catch (const workflows::ProfileJobError& e) {
    std::fprintf(stderr, "warplens profile: %s\n", e.what());
    return exit_code_for(e.kind);
  }
  if (!r.profile) return 130;
  if (!o.run.work_dir.empty())
    std::fprintf(stderr, "warplens profile: the program's output is in %s and %s\n", r.program_stdout.c_str(),
                 r.program_stderr.c_str());
  for (const prof::Warning& w : r.profile->warnings)
    std::fprintf(stderr, "warplens profile: warning [%s] %s\n", w.code.c_str(), w.message.c_str());
  return emit(render(*r.profile, format), o.out);
}

}  // namespace warplens::cli
