#include "cli/optimize.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "agent/candidate_store.h"
#include "agent/job.h"
#include "agent/llm/llm_config.h"
#include "agent/report.h"
#include "agent/search.h"
#include "analysis/analyzer.h"
#include "cli/cli.h"
#include "cli/compile_flag_args.h"
#include "cli/options.h"
#include "common/file_read.h"
#include "workflows/analyze_file.h"
#include "workflows/candidate_sets.h"
#include "workflows/optimize.h"

namespace warplens::cli {

namespace fs = std::filesystem;
using namespace warplens::agent;
using nlohmann::json;

namespace {

constexpr const char* kUsage = R"(usage:
  warplens optimize FILE --kernel NAME [options]                      search and verify on this GPU
  warplens optimize FILE --kernel NAME --candidates-only --out DIR    write candidates (no GPU)
  warplens optimize --verify-dir DIR [--verify-dir DIR ...] [options] verify candidate directories
  warplens optimize --verify-dir DIR --capture CAPTURE [...]          ... against captured launches

options:
  --kernel NAME           the kernel to optimise
  --budget SECONDS        wall-time budget of the search (default 600)
  --gpu-budget SECONDS    GPU-time budget (default 300)
  --max-candidates N      candidates to verify (--verify-dir: the first N of each directory),
                          or to write with --candidates-only (default 24)
  --policy builtin|llm    who proposes candidates (default builtin)
  --llm-endpoint URL      (--policy llm) OpenAI-compatible API root, e.g. http://localhost:8000/v1
                          (default: $WARPLENS_LLM_BASE_URL); the API key is read from
                          $WARPLENS_LLM_API_KEY only, never from the command line
  --llm-model NAME        (--policy llm) the model as the endpoint names it (default: $WARPLENS_LLM_MODEL)
  --llm-max-turns N       (--policy llm) chat requests in the whole job (default 30)
  --capture DIR           verify against launches captured with `warplens capture` instead of
                          running FILE's own self-checking main; with --verify-dir, one per
                          directory, in the same order (no Clang needed: the split-machine path)
  --pytorch-ref FILE.py   KernelBench-style reference for reward level 3 (default: FILE with .py, if any)
  --name NAME             name of the candidate directory's program (default: FILE's stem)
  --pytorch-times FILE    (--verify-dir) JSON {"name": {"eager_ms": x, "compiled_ms": y}}
  --bandwidth-gbs X       (--verify-dir) measured device bandwidth, for the roofline column
  --report PATH           write the markdown report (--verify-dir: a directory of reports)
  --json                  print the JSON report on stdout instead of markdown
  --sets N                correctness input sets (default 5)
  --runs N                timed runs (default 30)
  --max-timing-s S        stop timing a program after S seconds once 10 runs are done (default 3)
  --timeout S             kill a build or program run after S seconds (default 300)
  --jobs N                parallel builds (default: all cores)
  --gpu-jobs N            correctness runs sharing the GPU at once (default 4)
  --arch ARCH             nvcc -arch (default native) and parse architecture
  --nvcc PATH             nvcc to use
  -I DIR, -IDIR, -D NAME[=V], -DNAME
                          extra include directories / macros (parse and build; a relative
                          directory is relative to the current directory)
  -U NAME, -std=c++NN, --std c++NN
                          undefine a macro / the C++ standard (the parse only: candidates are
                          built with nvcc's default standard)
  -p, --compile-commands-dir DIR
                          compile_commands.json (or its directory) the file is parsed with, as
                          `warplens check` does (default: searched upward from FILE)
  --cuda-path DIR         CUDA toolkit the file is parsed against (default: as the analysis finds it)
                          Without compile_commands.json, the nearest compile_flags.txt is used; the
                          flags above are appended to either, as for `warplens check`.
)";

std::stop_source g_stop;
// Its own name: extern "C" ignores the anonymous namespace, and cli/verify.cpp has an on_sigint too.
extern "C" void on_optimize_sigint(int) { g_stop.request_stop(); }

struct Options {
  std::string file, kernel, out, pytorch_ref, name, pytorch_times, report, arch, nvcc;
  std::vector<std::string> verify_dirs, captures, includes, defines;  // includes: absolute
  std::string compile_commands_dir;
  CompileFlagArgs flags;  // -I, -D, -U, -std, --cuda-path (cli/compile_flag_args.h)
  double budget = 600, gpu_budget = 300, bandwidth_gbs = 0, max_timing_s = 3, timeout_s = 300;
  int max_candidates = 24, sets = 5, runs = 30, jobs = 0, gpu_jobs = 4;
  bool candidates_only = false, json = false;
  std::string policy = "builtin";
  std::string llm_endpoint, llm_model;
  int llm_max_turns = 0;  // 0: the LLM policy's default
};

// Finite numbers in range only: strtod alone also takes "nan", "inf" and
// "-5", which as a budget would mean "never stop" or "stop at once".
double number(const std::string& option, const std::string& v, double min = 0, bool min_allowed = false) {
  std::optional<double> d = finite_number(v);
  if (!d) throw UsageError(option + ": not a number: " + v);
  if (*d > 1e9) throw UsageError(option + ": at most 1000000000, got " + v);
  if (*d < min || (*d == min && !min_allowed))
    throw UsageError(option + ": must be " + (min_allowed ? "at least " : "more than ") +
                     std::to_string(static_cast<int>(min)) + ", got " + v);
  return *d;
}

int integer(const std::string& option, const std::string& v, int min = 1) {
  const double d = number(option, v, min, /*min_allowed=*/true);
  if (d != std::floor(d)) throw UsageError(option + ": expects a whole number up to 1000000000, got " + v);
  return static_cast<int>(d);
}

bool parse(int argc, char** argv, Options& o, std::string& error) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  // Refused rather than accepted: argv is visible to other users (ps) and
  // ends up in shell histories and logs.
  for (const auto& a : args) {
    if (a == "--") break;
    if (a.rfind("--llm-api-key", 0) == 0 || a.rfind("--api-key", 0) == 0) {
      error = std::string(a.substr(0, a.find('='))) + " is not accepted: put the key in the environment variable " +
              llm::kApiKeyVariable;
      return false;
    }
  }
  OptionParser p;
  auto seconds = [&](const char* name, double& out, double min = 0, bool min_allowed = false) {
    p.value(name, [&out, name, min, min_allowed](const std::string& v) { out = number(name, v, min, min_allowed); });
  };
  auto count = [&](const char* name, int& out, int min = 1) {
    p.value(name, [&out, name, min](const std::string& v) { out = integer(name, v, min); });
  };
  add_compile_flags(p, o.flags);  // read as check and report read them
  p.value("--kernel", o.kernel);
  p.value("--out", o.out);
  p.values("--capture", o.captures);
  p.value("--pytorch-ref", o.pytorch_ref);
  p.value("--name", o.name);
  p.value("--pytorch-times", o.pytorch_times);
  p.value("--report", o.report);
  p.value("--arch", o.arch);
  p.value("--nvcc", o.nvcc);
  p.value("-p,--compile-commands-dir", o.compile_commands_dir);
  p.value("--policy", o.policy);
  p.value("--llm-endpoint", o.llm_endpoint);
  p.value("--llm-model", o.llm_model);
  count("--llm-max-turns", o.llm_max_turns);
  p.values("--verify-dir", o.verify_dirs);
  seconds("--budget", o.budget);
  seconds("--gpu-budget", o.gpu_budget);
  seconds("--bandwidth-gbs", o.bandwidth_gbs, 0, /*min_allowed=*/true);
  seconds("--max-timing-s", o.max_timing_s);
  seconds("--timeout", o.timeout_s);
  count("--max-candidates", o.max_candidates);
  count("--sets", o.sets);
  count("--runs", o.runs);
  count("--jobs", o.jobs, 0);
  count("--gpu-jobs", o.gpu_jobs);
  p.flag("--candidates-only", o.candidates_only);
  p.flag("--json", o.json);
  try {
    if (!p.parse(args)) {
      error = "help";
      return false;
    }
  } catch (const UsageError& e) {
    error = e.what();
    return false;
  }
  for (const auto& a : p.positionals()) {
    if (!o.file.empty()) {
      error = "more than one FILE: " + a;
      return false;
    }
    o.file = a;
  }
  o.includes = o.flags.include_dirs;
  o.defines = o.flags.defines;
  if (o.verify_dirs.empty() && o.file.empty()) error = "no FILE (or --verify-dir DIR)";
  else if (!o.verify_dirs.empty() && !o.file.empty()) error = "give either FILE or --verify-dir, not both";
  else if (o.verify_dirs.empty() && o.kernel.empty()) error = "--kernel NAME is required";
  else if (o.verify_dirs.empty() && o.captures.size() > 1) error = "one --capture DIR for FILE";
  else if (!o.captures.empty() && !o.verify_dirs.empty() && o.captures.size() != o.verify_dirs.size())
    error = "--verify-dir and --capture pair up in order: give one --capture per --verify-dir (" +
            std::to_string(o.verify_dirs.size()) + " and " + std::to_string(o.captures.size()) + " given)";
  else if (o.candidates_only && !o.captures.empty()) error = "--candidates-only writes candidates; it takes no --capture";
  else if (o.candidates_only && o.out.empty()) error = "--candidates-only needs --out DIR";
  else if (o.policy != "builtin" && o.policy != "llm") error = "--policy must be builtin or llm";
  else if (o.policy != "llm" && (!o.llm_endpoint.empty() || !o.llm_model.empty() || o.llm_max_turns != 0))
    error = "--llm-endpoint, --llm-model and --llm-max-turns need --policy llm";
  else if (o.policy == "llm" && (o.candidates_only || !o.verify_dirs.empty()))
    error = "--policy llm proposes candidates while they are verified on this GPU; it cannot write them with "
            "--candidates-only or verify directories with --verify-dir";
  else if (o.policy == "llm" && o.llm_max_turns < 0) error = "--llm-max-turns must be >= 1";
  else if (o.max_candidates < 1 || o.sets < 1 || o.runs < 1) error = "--max-candidates, --sets and --runs must be >= 1";
  return error.empty();
}

std::optional<std::string> read_text(const fs::path& p) {
  // Regular text files only: `optimize /dev/zero` is refused, not read forever.
  common::FileReadResult read = common::read_text_file(p.string());
  if (!read) return std::nullopt;
  return std::move(*read.content);
}

// How FILE is parsed, by the static analysis and the rewrite engine alike
// (one front end: the rewrites see the file as the diagnostics do).
AnalysisOptions analysis_options(const Options& o) {
  AnalysisOptions a;
  if (!o.arch.empty() && o.arch != "native") a.arch = o.arch;
  a.compile_commands_dir = o.compile_commands_dir.empty() ? "" : fs::absolute(o.compile_commands_dir).string();
  o.flags.apply(a);
  return a;
}

EngineOptions engine_options(const Options& o) {
  EngineOptions e;
  e.analysis = analysis_options(o);
  return e;
}

// How candidates are verified (both verifying modes), from the options.
workflows::VerifyChoice verify_choice(const Options& o) {
  workflows::VerifyChoice v;
  v.against = o.captures.empty() ? workflows::VerifyChoice::Against::OwnMain : workflows::VerifyChoice::Against::Capture;
  if (!o.captures.empty()) v.capture_dir = o.captures.front();
  v.nvcc = o.nvcc;
  if (!o.arch.empty()) v.arch = o.arch;
  v.defines = o.defines;
  for (const auto& i : o.includes) v.include_dirs.push_back(fs::absolute(i).string());
  v.input_sets = o.sets;
  v.timed_runs = o.runs;
  v.max_timing_seconds = o.max_timing_s;
  v.timeout_s = o.timeout_s;
  v.compile_jobs = o.jobs;
  v.check_jobs = o.gpu_jobs;
  if (!o.pytorch_ref.empty()) v.pytorch_reference = o.pytorch_ref;
  v.tool_compile_timeout_s = o.timeout_s;
  return v;
}

// Findings from the static analysis and resource usage, when this build
// has a front end (what `warplens check` prints).
std::vector<Finding> findings_for(const SourceFile& file, const Options& o) {
  if (!frontend_available()) return {};
  const AnalysisOptions a = analysis_options(o);
  return workflows::analyze_file(file, a, /*resource_usage=*/true, g_stop.get_token()).findings();
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '|') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void write_or_warn(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  if (!out) spdlog::warn("cannot write {}", p.string());
}

int candidates_only(const Options& o) {
  auto text = read_text(o.file);
  if (!text) {
    std::fprintf(stderr, "warplens optimize: cannot read %s\n", o.file.c_str());
    return 2;
  }
  const fs::path file = fs::absolute(o.file).lexically_normal();
  SourceFile src{file.string(), *text};
  SearchOptions so;
  so.engine = engine_options(o);
  so.max_candidates = o.max_candidates;
  so.max_expansions = std::max(8, o.max_candidates);
  so.max_seconds = o.budget;
  const std::vector<Finding> findings = findings_for(src, o);
  std::map<std::string, int> codes_seen;
  for (const auto& f : findings)
    if (f.source != "clang") ++codes_seen[f.code];
  std::string guided;
  for (const auto& [code, n] : codes_seen) guided += (guided.empty() ? "" : ", ") + code + " x" + std::to_string(n);
  std::fprintf(stderr, "warplens optimize: static analysis: %s\n",
               frontend_available() ? (guided.empty() ? "no findings" : guided.c_str()) : "not in this build");
  OfflineSearch found = generate_candidates(src, o.kernel, findings, std::nullopt, so, g_stop.get_token());
  if (!found.error.empty()) {
    std::fprintf(stderr, "warplens optimize: %s\n", found.error.c_str());
    return 2;
  }
  CandidateSet set;
  set.dir = fs::absolute(o.out);
  set.name = o.name.empty() ? file.stem().string() : o.name;
  set.kernel = o.kernel;
  set.source_path = o.file;
  set.original_text = *text;
  set.include_dirs.push_back(fs::relative(file.parent_path(), set.dir).string());
  for (const auto& i : o.includes) set.include_dirs.push_back(fs::relative(fs::absolute(i), set.dir).string());
  fs::path ref = o.pytorch_ref.empty() ? fs::path(file).replace_extension(".py") : fs::absolute(o.pytorch_ref);
  if (fs::exists(ref)) set.pytorch_reference = fs::relative(ref, set.dir).string();
  set.candidates = std::move(found.candidates);
  set.refused = found.refused;
  set.log = found.log.lines;
  std::string error;
  if (!write_candidate_set(set, error)) {
    std::fprintf(stderr, "warplens optimize: %s\n", error.c_str());
    return 2;
  }
  std::printf("%s: %zu candidate(s) for `%s` in %s\n", set.name.c_str(), set.candidates.size(), o.kernel.c_str(),
              set.dir.string().c_str());
  for (const auto& c : set.candidates)
    std::printf("  %s  x%-6.2f %s\n", c.id.c_str(), c.predicted_gain, to_string(c.plan).c_str());
  for (const auto& r : set.refused) std::printf("  (not applicable: %s: %s)\n", r.rewrite.c_str(), r.reason.c_str());
  return set.candidates.empty() ? 1 : 0;
}

// `--verify-dir`: the workflow judges the directories (workflows/candidate_sets.h);
// this door reads the PyTorch times, writes the reports and prints the summary.
int verify_dirs(const Options& o) {
  workflows::CandidateSetsRequest request;
  request.dirs = o.verify_dirs;
  request.captures = o.captures;
  request.max_candidates = o.max_candidates;
  request.verify = verify_choice(o);
  if (!o.pytorch_times.empty()) {
    auto t = read_text(o.pytorch_times);
    try {
      if (!t) throw std::runtime_error("cannot read");
      // Keep the document alive: in C++20 a range-for over items() of a
      // temporary dangles (the json dies before the loop body runs).
      const json doc = json::parse(*t);
      for (const auto& [name, v] : doc.items()) {
        std::optional<double> e, c;
        if (v.contains("eager_ms") && v["eager_ms"].is_number()) e = v["eager_ms"].get<double>();
        if (v.contains("compiled_ms") && v["compiled_ms"].is_number()) c = v["compiled_ms"].get<double>();
        request.torch_times[name] = {e, c};
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "warplens optimize: --pytorch-times %s: %s\n", o.pytorch_times.c_str(), e.what());
      return 2;
    }
  }
  auto log = [](const std::string& s) { std::fprintf(stderr, "warplens optimize: %s\n", s.c_str()); };
  workflows::CandidateSetsOutcome outcome;
  try {
    outcome = workflows::verify_candidate_sets(request, g_stop.get_token(), log);
  } catch (const workflows::CandidateSetsError& e) {
    std::fprintf(stderr, "warplens optimize: %s\n", e.what());
    return 2;
  }
  json summary = json::array();
  for (const workflows::VerifiedCandidateSet& out : outcome.sets) {
    const OptimizeResult& r = out.result;
    json row = {{"name", out.set.name},
                {"kernel", out.set.kernel},
                {"original_ms", out.baseline_ms},
                {"best_ms", out.best_ms},
                {"best_speedup", out.best_speedup},
                {"best_plan", r.offers.empty() ? "(original)" : r.offers.front().plan},
                {"best_level", out.best_level},
                {"candidates", r.tried.size()},
                {"verified_faster", r.offers.size()},
                {"wall_seconds", r.wall_seconds},
                {"gpu_seconds", r.gpu_seconds},
                {"bytes", out.bytes},
                {"verifier", out.verifier},
                {"median_verify_seconds", out.median_verify_seconds},
                {"error", r.error}};
    if (out.eager_ms)
      row["eager_ms"] = *out.eager_ms, row["speedup_vs_eager"] = out.best_ms > 0 ? *out.eager_ms / out.best_ms : 0;
    if (out.compiled_ms)
      row["compiled_ms"] = *out.compiled_ms,
      row["speedup_vs_compile"] = out.best_ms > 0 ? *out.compiled_ms / out.best_ms : 0;
    if (o.bandwidth_gbs > 0 && out.best_ms > 0 && out.bytes > 0)
      row["roofline_pct"] = 100.0 * (out.bytes / (out.best_ms * 1e-3)) / (o.bandwidth_gbs * 1e9);
    summary.push_back(row);
    if (!o.report.empty()) {
      fs::create_directories(o.report);
      write_or_warn(fs::path(o.report) / (out.set.name + ".md"), render_markdown(r, out.set.original_text));
      write_or_warn(fs::path(o.report) / (out.set.name + ".json"), render_json(r));
    }
  }
  const double geomean = outcome.geomean_speedup;
  const int counted = outcome.counted;
  json all = {{"format", "warplens-optimize-summary/1"}, {"geomean_speedup", geomean}, {"bandwidth_gbs", o.bandwidth_gbs},
              {"programs", summary}};
  std::ostringstream md;
  md << "| program | original ms | best ms | speedup | level | vs eager | vs compile | roofline | candidates | "
        "faster | wall s | best plan |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : summary) {
    auto num = [&](const char* k, const char* f) {
      if (!row.contains(k)) return std::string("-");
      char b[64];
      std::snprintf(b, sizeof b, f, row[k].get<double>());
      return std::string(b);
    };
    md << "| " << row["name"].get<std::string>() << " | " << num("original_ms", "%.4f") << " | "
       << num("best_ms", "%.4f") << " | " << num("best_speedup", "%.2fx") << " | " << row["best_level"].get<int>()
       << " | " << num("speedup_vs_eager", "%.2fx") << " | " << num("speedup_vs_compile", "%.2fx") << " | "
       << num("roofline_pct", "%.0f%%") << " | " << row["candidates"].get<std::size_t>() << " | "
       << row["verified_faster"].get<std::size_t>() << " | " << num("wall_seconds", "%.1f") << " | "
       << row["best_plan"].get<std::string>() << (row["error"].get<std::string>().empty() ? "" : " ERROR: " + one_line(row["error"].get<std::string>()))
       << " |\n";
  }
  md << "\ngeomean speedup over the originals: " << geomean << "x (" << counted << " program(s))\n";
  if (!o.report.empty()) {
    write_or_warn(fs::path(o.report) / "summary.md", md.str());
    write_or_warn(fs::path(o.report) / "summary.json", all.dump(2));
  }
  if (o.json) std::printf("%s\n", all.dump(2).c_str());
  else std::printf("%s", md.str().c_str());
  if (g_stop.stop_requested()) return 130;
  if (outcome.any_error) return 2;
  return outcome.any_winner ? 0 : 1;
}

// The LLM policy's settings: the --llm-* options, else the WARPLENS_LLM_*
// environment. The key only ever comes from the environment.
workflows::LlmSettings llm_settings(const Options& o) {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  workflows::LlmSettings s;
  s.endpoint = !o.llm_endpoint.empty() ? o.llm_endpoint : env(llm::kBaseUrlVariable);
  s.model = !o.llm_model.empty() ? o.llm_model : env(llm::kModelVariable);
  s.max_turns = o.llm_max_turns;
  return s;
}

// The editor's optimize job, from the command line: the same workflow
// (workflows/optimize.h) with the options' policy and verifier.
int optimize_file(const Options& o) {
  auto text = read_text(o.file);
  if (!text) {
    std::fprintf(stderr, "warplens optimize: cannot read %s\n", o.file.c_str());
    return 2;
  }
  const fs::path file = fs::absolute(o.file).lexically_normal();
  OptimizeRequest req;
  req.file = {file.string(), *text};
  req.kernel = o.kernel;
  req.budget = {o.budget, o.max_candidates, o.gpu_budget};
  workflows::OptimizeContext context;
  context.names = workflows::SettingNames::command_line();
  context.policy.llm = o.policy == "llm";
  if (context.policy.llm) context.policy.llm_settings = llm_settings(o);
  context.policy.engine = engine_options(o);
  context.verify = verify_choice(o);
  // Guided by the static analysis and resource usage (when this build has a
  // front end), as the editor's job is by the document's diagnostics.
  context.analyze_when_no_findings = true;
  // Without a GPU the verifier says so; the LLM policy may still talk to its
  // endpoint first (exit 2 then, as for any verifier error).
  context.require_gpu = false;
  auto progress = [](const JobProgress& p) {
    std::fprintf(stderr, "warplens optimize: [%.0f s] %d verified, %d faster, best %.2fx: %s\n", p.elapsed_seconds,
                 p.verified, p.faster, p.best_speedup, p.message.c_str());
  };
  std::unique_ptr<workflows::PreparedOptimize> prepared;
  try {
    prepared = workflows::prepare_optimize(req, context, {}, progress, g_stop.get_token());
  } catch (const workflows::OptimizeUnavailable& e) {
    std::fprintf(stderr, "warplens optimize: %s\n", e.what());
    return 2;
  }
  if (!prepared) return 130;
  std::fprintf(stderr, "warplens optimize: %s, verified by the %s verifier\n", prepared->policy().c_str(),
               prepared->verifier().c_str());
  const OptimizeResult r = prepared->run(progress, g_stop.get_token()).result;
  if (!o.report.empty()) write_or_warn(o.report, render_markdown(r, *text));
  if (o.json) std::printf("%s\n", render_json(r).c_str());
  else std::printf("%s", render_markdown(r, *text).c_str());
  if (r.stop_reason == StopReason::Cancelled) return 130;
  if (r.stop_reason == StopReason::Error) {
    std::fprintf(stderr, "warplens optimize: %s\n", r.error.c_str());
    return 2;
  }
  return r.offers.empty() ? 1 : 0;
}

}  // namespace

int run_optimize_command(int argc, char** argv) {
  Options o;
  std::string error;
  if (!parse(argc, argv, o, error)) {
    if (error == "help") {
      std::printf("%s", kUsage);
      return 0;
    }
    std::fprintf(stderr, "warplens optimize: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  g_stop = std::stop_source();
  auto previous = std::signal(SIGINT, on_optimize_sigint);
  int rc = 2;
  try {
    if (!o.verify_dirs.empty()) rc = verify_dirs(o);
    else if (o.candidates_only) rc = candidates_only(o);
    else rc = optimize_file(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warplens optimize: %s\n", e.what());
    rc = 2;
  }
  std::signal(SIGINT, previous);
  return rc;
}

}  // namespace warplens::cli
