#include "cli/verify.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "agent/candidate.h"
#include "agent/capture_verifier.h"
#include "agent/verifier/capture_program.h"
#include "agent/verifier/kernel_signature.h"
#include "agent/verifier/verifier.h"
#include "cli/options.h"

namespace warplens::cli {

namespace {

using namespace verifier;

constexpr int kExitCorrect = 0;
constexpr int kExitIncorrect = 1;
constexpr int kExitError = 2;
constexpr int kExitInterrupted = 130;

const char* kVerifyUsage =
    "usage: warplens verify --capture DIR --original FILE.cu --candidate FILE.cu --kernel NAME [options]\n"
    "\n"
    "Replays the captured launches of NAME with the original and the candidate, checks the candidate\n"
    "on every input set, times both, and prints the verdict (reward level -1, 1, 2 or 3) with its evidence.\n"
    "\n"
    "options:\n"
    "  --json                 print the verdict as JSON (warplens-verdict v1)\n"
    "  --rtol X --atol X      fp32 tolerance (default 1e-4 / 1e-4)\n"
    "  --rtol-half X --atol-half X   fp16/bf16 tolerance (default 1e-2 / 1e-2)\n"
    "  --rtol-f64 X --atol-f64 X     fp64 tolerance (default 1e-10 / 1e-10)\n"
    "  --nan-equal            treat NaN == NaN (default: NaN never equal)\n"
    "  --inputs N             input sets (captured first, then fresh re-draws; default 5)\n"
    "  --runs N               timed runs per side (default 30); --warmup N (default 3)\n"
    "  --seed N               seed of the fresh input sets (default 1)\n"
    "  --timeout S            time limit per replay process in seconds (default 60)\n"
    "  --launch N             the captured launch to time (default: the kernel's first)\n"
    "  --block X[,Y[,Z]]      candidate block size (else `// warplens: block=(...)` in the candidate)\n"
    "  --coarsen X[,Y[,Z]]    original threads per candidate thread, per dimension\n"
    "                         (without these, `// warplens-launch:` and `// warplens-fused:` declarations in\n"
    "                         the candidate, as `warplens optimize --candidates-only` writes them, apply)\n"
    "  --dynamic-smem BYTES   candidate dynamic shared memory (default: captured)\n"
    "  --reassociates TERMS   the candidate reorders float sums of TERMS terms (pN = parameter N's value,\n"
    "                         products like p2*p3, or `inputs`): float outputs that fail the tolerance are\n"
    "                         compared again with what that rounding explains (docs/verifier.md)\n"
    "  --pytorch-ref FILE     KernelBench-style Model/get_inputs module: enables level 3\n"
    "  --pytorch-timeout S    (default 600)\n"
    "  -I DIR                 extra include directory (repeatable); --nvcc-flag F (repeatable)\n"
    "  --arch sm_XX           compile for this arch (default: the GPU's own)\n"
    "  --nvcc PATH  --replay PATH  --python PATH\n"
    "  --work-dir DIR         keep cubins, plan and results there; --keep-work-dir keeps the temporary one\n"
    "  --reference-cache DIR  keep the original's compile and reference there and reuse them\n"
    "  --no-shapes            no shape variations (integer size arguments as captured only)\n"
    "  --no-sanitize          no compute-sanitizer run over a winner (it is then not offerable)\n"
    "  --sanitizer PATH       compute-sanitizer to use; --guard-bytes N (default 1 MiB)\n"
    "  --pipeline device|host buffer work as GPU kernels (default) or host loops (the pre-change method)\n"
    "  -v, --verbose          progress on stderr\n";

const char* kCaptureUsage =
    "usage: warplens capture --kernel REGEX [--launches K] [--launches-per-kernel P] [--out DIR] [--max-bytes N]\n"
    "                        [--timeout S] [--inject-lib PATH] -- PROGRAM ARGS...\n"
    "\n"
    "Runs PROGRAM under the warplens injection library and records the first K launches of the kernels\n"
    "whose name matches REGEX (default K=1, DIR=./warplens-capture, N=1 GiB) for `warplens verify`, in\n"
    "program order; with P, at most P launches of each kernel (a producer and its consumer both, for a\n"
    "fused candidate: --kernel 'mul|bias_relu' --launches 6 --launches-per-kernel 3).\n";

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }

// Ctrl-C: children run in their own process groups and do not see the
// terminal's SIGINT, so turn it into a stop request that kills them.
class InterruptGuard {
 public:
  InterruptGuard() {
    old_ = std::signal(SIGINT, on_sigint);
    watcher_ = std::jthread([this](std::stop_token st) {
      while (!st.stop_requested()) {
        if (g_interrupted) source_.request_stop();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  ~InterruptGuard() {
    watcher_.request_stop();
    watcher_.join();
    std::signal(SIGINT, old_);
  }
  std::stop_token token() { return source_.get_token(); }

 private:
  std::stop_source source_;
  void (*old_)(int) = SIG_DFL;
  std::jthread watcher_;
};

// A finite number of at least 0 (strtod alone also takes "nan" and "inf").
double non_negative(const std::string& option, const std::string& v) {
  std::optional<double> d = finite_number(v);
  if (!d || *d < 0) throw UsageError(option + " expects a non-negative number, got `" + v + "`");
  return *d;
}

// A count: a whole number from 0 to `max`.
std::uint64_t whole(const std::string& option, const std::string& v, double max) {
  std::optional<double> d = finite_number(v);
  if (!d || *d < 0 || *d != std::floor(*d) || *d > max)
    throw UsageError(option + " expects a whole number from 0 to " + std::to_string(static_cast<std::uint64_t>(max)) +
                     ", got `" + v + "`");
  return static_cast<std::uint64_t>(*d);
}

bool parse_dim3_arg(const std::string& s, Dim3& out) {
  Dim3 d{1, 1, 1};
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    std::size_t comma = s.find(',', start);
    std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    unsigned long v = std::strtoul(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v == 0) return false;
    d[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(v);
    if (comma == std::string::npos) {
      out = d;
      return true;
    }
    start = comma + 1;
  }
  return false;
}

int usage_error(const std::string& message, const char* usage) {
  std::fprintf(stderr, "warplens: %s\n\n%s", message.c_str(), usage);
  return kExitError;
}

}  // namespace

int run_verify_command(int argc, char** argv) {
  VerifyRequest req;
  bool json = false, verbose = false;
  OptionParser p;
  p.flag("--json", json);
  p.flag("-v,--verbose", verbose);
  p.flag("--nan-equal", req.tolerance.nan_equal);
  p.flag("--keep-work-dir", req.keep_work_dir);
  p.flag("--no-shapes", req.vary_shapes, false);
  p.flag("--no-sanitize", req.sanitize, false);
  auto path = [&](const char* name, std::filesystem::path& out) {
    p.value(name, [&out](const std::string& v) { out = v; });
  };
  path("--capture", req.capture_dir);
  path("--original", req.original_source);
  path("--candidate", req.candidate_source);
  p.value("--kernel", req.kernel);
  path("--pytorch-ref", req.pytorch_reference);
  p.value("-I", [&](const std::string& v) { req.include_dirs.push_back(v); });
  p.values("--nvcc-flag", req.nvcc_flags);
  p.value("--arch", req.arch);
  p.value("--nvcc", req.nvcc);
  p.value("--replay", req.replay_binary);
  p.value("--python", req.python);
  path("--work-dir", req.work_dir);
  path("--reference-cache", req.reference_cache_dir);
  p.value("--sanitizer", req.sanitizer);
  p.value("--reassociates", [&](const std::string& v) {
    std::string why;
    req.reassociation = verifier::parse_reassociation(v, &why);
    if (!req.reassociation) throw UsageError("--reassociates: " + why);
  });
  p.value("--pipeline", [&](const std::string& v) {
    if (v != "device" && v != "host") throw UsageError("--pipeline expects device or host");
    req.pipeline = v;
  });
  for (const char* name : {"--block", "--coarsen"})
    p.value(name, [&req, name = std::string(name)](const std::string& v) {
      Dim3 d;
      if (!parse_dim3_arg(v, d)) throw UsageError(name + " expects X[,Y[,Z]] with positive integers");
      if (name == "--block") req.candidate_launch.block = d;
      else req.candidate_launch.coarsen = d;
    });
  auto real = [&](const char* name, double& out) {
    p.value(name, [&out, name](const std::string& v) { out = non_negative(name, v); });
  };
  real("--rtol", req.tolerance.rtol_f32);
  real("--atol", req.tolerance.atol_f32);
  real("--rtol-half", req.tolerance.rtol_half);
  real("--atol-half", req.tolerance.atol_half);
  real("--rtol-f64", req.tolerance.rtol_f64);
  real("--atol-f64", req.tolerance.atol_f64);
  real("--timeout", req.timeout_s);
  real("--pytorch-timeout", req.pytorch_timeout_s);
  constexpr double kMaxInt = 2147483647.0;
  p.value("--guard-bytes", [&](const std::string& v) { req.guard_bytes = whole("--guard-bytes", v, 1ull << 40); });
  p.value("--inputs", [&](const std::string& v) { req.input_sets = static_cast<int>(whole("--inputs", v, kMaxInt)); });
  p.value("--runs", [&](const std::string& v) { req.timed_runs = static_cast<int>(whole("--runs", v, kMaxInt)); });
  p.value("--warmup", [&](const std::string& v) { req.warmup_runs = static_cast<int>(whole("--warmup", v, kMaxInt)); });
  p.value("--seed", [&](const std::string& v) { req.seed = whole("--seed", v, 9007199254740992.0); });
  p.value("--launch", [&](const std::string& v) { req.timing_launch = static_cast<int>(whole("--launch", v, kMaxInt)); });
  p.value("--dynamic-smem", [&](const std::string& v) {
    req.candidate_launch.dynamic_shared_bytes = static_cast<std::uint32_t>(whole("--dynamic-smem", v, 4294967295.0));
  });
  try {
    if (!p.parse(std::vector<std::string>(argv + 1, argv + argc))) {
      std::fputs(kVerifyUsage, stdout);
      return kExitCorrect;
    }
    if (!p.positionals().empty())
      throw UsageError("unexpected argument `" + p.positionals().front() + "` (every input is named by an option)");
  } catch (const UsageError& e) {
    return usage_error(e.what(), kVerifyUsage);
  }
  if (req.capture_dir.empty() || req.original_source.empty() || req.candidate_source.empty() || req.kernel.empty())
    return usage_error("--capture, --original, --candidate and --kernel are required", kVerifyUsage);
  if (req.input_sets < 1) return usage_error("--inputs must be at least 1", kVerifyUsage);
  if (req.timed_runs < 1) return usage_error("--runs must be at least 1", kVerifyUsage);
  if (req.input_sets < 5)
    std::fprintf(stderr, "warplens: note: %d input set(s); the verifier's guarantee assumes at least 5\n",
                 req.input_sets);
  // A candidate file from `warplens optimize --candidates-only` declares how
  // it must be launched; --block/--coarsen given on the command line win.
  try {
    const std::string text = read_text_file(req.candidate_source);
    if (auto fusion = agent::find_fusion_declaration(text)) {
      req.fusion = agent::to_fusion_spec(*fusion);
      req.kernel = fusion->fused_kernel;  // `--kernel` may name either original kernel
    }
    if (!req.candidate_launch.block && req.candidate_launch.coarsen == Dim3{1, 1, 1}) {
      std::string why;
      auto declared = agent::launch_override(agent::find_launch_declarations(text), why, req.kernel);
      if (!declared) return usage_error(req.candidate_source.string() + ": " + why, kVerifyUsage);
      req.candidate_launch.reshapes = declared->reshapes;
    }
  } catch (const std::exception&) {
    // An unreadable candidate is reported by verify() itself.
  }

  InterruptGuard interrupt;
  ProgressCallback progress;
  if (verbose)
    progress = [](const VerifyProgress& p) { std::fprintf(stderr, "warplens verify: %s\n", p.stage.c_str()); };
  Verdict v = verify(req, interrupt.token(), progress);
  if (json) std::fputs(to_json_text(v).c_str(), stdout);
  else std::fputs(summary_text(v).c_str(), stdout);
  std::fflush(stdout);
  switch (v.status) {
    case VerdictStatus::Cancelled: return kExitInterrupted;
    case VerdictStatus::Error:
      if (json) std::fprintf(stderr, "warplens verify: %s\n", v.error.c_str());
      return kExitError;
    case VerdictStatus::Verified: return v.level >= 1 ? kExitCorrect : kExitIncorrect;
  }
  return kExitError;
}

int run_capture_command(int argc, char** argv) {
  CaptureRequest req;
  req.out_dir = "warplens-capture";
  bool have_kernel = false;
  auto [options, program] = split_at_double_dash(std::vector<std::string>(argv + 1, argv + argc));
  OptionParser p;
  p.value("--kernel", [&](const std::string& v) {
    req.kernel_regex = v;
    have_kernel = true;
  });
  p.value("--out", [&](const std::string& v) { req.out_dir = v; });
  p.value("--inject-lib", [&](const std::string& v) { req.inject_library = v; });
  constexpr double kMaxInt = 2147483647.0;
  p.value("--launches", [&](const std::string& v) { req.max_launches = static_cast<int>(whole("--launches", v, kMaxInt)); });
  p.value("--launches-per-kernel", [&](const std::string& v) {
    req.max_launches_per_kernel = static_cast<int>(whole("--launches-per-kernel", v, kMaxInt));
  });
  p.value("--max-bytes", [&](const std::string& v) { req.max_bytes = whole("--max-bytes", v, 1ull << 50); });
  p.value("--timeout", [&](const std::string& v) { req.timeout_s = non_negative("--timeout", v); });
  try {
    if (!p.parse(options)) {
      std::fputs(kCaptureUsage, stdout);
      return 0;
    }
    if (!p.positionals().empty())
      throw UsageError("unexpected argument `" + p.positionals().front() + "` (put the program after --)");
  } catch (const UsageError& e) {
    return usage_error(e.what(), kCaptureUsage);
  }
  req.program = program;
  if (req.program.empty()) return usage_error("no program given (put it after --)", kCaptureUsage);
  if (!have_kernel) return usage_error("--kernel REGEX is required", kCaptureUsage);
  if (req.max_launches < 1) return usage_error("--launches must be at least 1", kCaptureUsage);

  InterruptGuard interrupt;
  CaptureRunResult r = capture_program(req, interrupt.token());
  if (!r.ok) {
    std::fprintf(stderr, "warplens capture: %s\n", r.error.c_str());
    return kExitError;
  }
  const auto& m = *r.manifest;
  std::printf("capture %s: %zu launch(es) captured, %llu bytes; program %s\n", req.out_dir.c_str(), m.launches.size(),
              static_cast<unsigned long long>(m.total_bytes), r.process.description.c_str());
  for (const auto& l : m.launches)
    std::printf("  [%d] %s grid (%u,%u,%u) block (%u,%u,%u) smem %u, %zu allocation(s), %llu bytes, via %s\n", l.index,
                demangle_symbol(l.kernel).c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                l.dynamic_shared_bytes, l.allocations.size(),
                static_cast<unsigned long long>(l.allocation_bytes()), l.api.c_str());
  for (const auto& f : m.refusals)
    std::printf("  refused %s (launch %llu): %s\n", demangle_symbol(f.kernel).c_str(),
                static_cast<unsigned long long>(f.sequence), f.reason.c_str());
  for (const auto& n : m.notes) std::printf("  note: %s\n", n.c_str());
  if (m.launches.empty())
    std::printf("  no launch matched '%s' (%llu kernel launches seen)\n", req.kernel_regex.c_str(),
                static_cast<unsigned long long>(m.counters.driver_launches));
  return m.launches.empty() ? kExitIncorrect : kExitCorrect;
}

}  // namespace warplens::cli
