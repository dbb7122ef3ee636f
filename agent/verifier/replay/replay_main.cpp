// warplens-replay: the GPU side of `warplens verify`, run as a child process
// so that a faulting or hanging kernel can never take down the editor or
// the CLI. Driver API only; no Clang, no CUDA runtime.
//
//   warplens-replay device-info --out FILE
//   warplens-replay reference   --plan PLAN --out FILE
//   warplens-replay candidate   --plan PLAN --reference REF --out FILE
//   warplens-replay sanitize    --plan PLAN --reference REF --out FILE   (under compute-sanitizer)
//   warplens-replay timer-check --cubin FILE --out FILE   (self-check of the timer)
//
// The result is always written as JSON to FILE (also on errors). Exit codes:
// 0 done (read the result), 2 the replay itself failed (result.error),
// 3 a kernel hung (the process ended without waiting for the GPU),
// 4 reference: the original faulted on a shape variation (result.failed_set),
// 64 bad command line.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/verifier/replay/cuda_driver.h"
#include "agent/verifier/replay/replay_modes.h"

using namespace warplens;

namespace {

constexpr int kExitDone = verifier::kReplayExitDone;
constexpr int kExitError = verifier::kReplayExitError;
constexpr int kExitHung = verifier::kReplayExitHung;
constexpr int kExitUsage = verifier::kReplayExitUsage;

struct Args {
  std::string mode, plan, reference, out, cubin;
};

bool parse(int argc, char** argv, Args& a) {
  if (argc < 2) return false;
  a.mode = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--plan") a.plan = v;
    else if (k == "--reference") a.reference = v;
    else if (k == "--out") a.out = v;
    else if (k == "--cubin") a.cubin = v;
    else return false;
  }
  if (a.out.empty()) return false;
  if (a.mode == "device-info") return true;
  if (a.mode == "timer-check") return !a.cubin.empty();
  if (a.mode == "reference") return !a.plan.empty();
  if (a.mode == "candidate" || a.mode == "sanitize") return !a.plan.empty() && !a.reference.empty();
  return false;
}

void write_or_complain(const std::string& path, const std::string& text) {
  try {
    verifier::write_text_file(path, text);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warplens-replay: %s\n", e.what());
  }
}

// The hang handler: writes the result as it stands and ends the process
// without unwinding (destructors would wait for the hung kernel).
template <class Result>
replay::EmergencyExit write_and_exit_hung(const std::string& out, const Result& result) {
  return [&out, &result] {
    write_or_complain(out, verifier::to_json_text(result));
    std::fflush(nullptr);
    _exit(kExitHung);
  };
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr,
                 "usage: warplens-replay device-info --out FILE\n"
                 "       warplens-replay reference --plan PLAN --out FILE\n"
                 "       warplens-replay candidate --plan PLAN --reference REF --out FILE\n"
                 "       warplens-replay sanitize --plan PLAN --reference REF --out FILE\n"
                 "       warplens-replay timer-check --cubin FILE --out FILE\n");
    return kExitUsage;
  }
  // Load every kernel when its module loads: no first-launch loading inside
  // a timed run, and enumeration sees every function.
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);

  if (args.mode == "device-info") {
    verifier::DeviceProbe probe = replay::probe_device();
    write_or_complain(args.out, verifier::to_json_text(probe));
    return probe.ok ? kExitDone : kExitError;
  }

  if (args.mode == "timer-check") {
    try {
      write_or_complain(args.out, replay::timer_check(args.cubin, 2000000, 20));
      return kExitDone;
    } catch (const std::exception& e) {
      write_or_complain(args.out, std::string("{\"ok\": false, \"error\": ") + nlohmann::json(e.what()).dump() + "}");
      return kExitError;
    }
  }

  if (args.mode == "reference") {
    verifier::ReferenceResult result;
    auto on_hang = write_and_exit_hung(args.out, result);
    try {
      auto plan = verifier::parse_replay_plan(verifier::read_text_file(args.plan));
      replay::compute_reference(plan, result, on_hang);
    } catch (const replay::SetFailed& e) {
      // The context may be lost: write what is known and end without
      // unwinding further into the driver.
      result.ok = false;
      result.error = e.what();
      write_or_complain(args.out, verifier::to_json_text(result));
      std::fflush(nullptr);
      _exit(verifier::kReplayExitSetFailed);
    } catch (const std::exception& e) {
      result.ok = false;
      result.error = e.what();
    }
    write_or_complain(args.out, verifier::to_json_text(result));
    return result.ok ? kExitDone : kExitError;
  }

  if (args.mode == "sanitize") {
    verifier::SanitizeResult result;
    auto on_hang = write_and_exit_hung(args.out, result);
    try {
      auto plan = verifier::parse_replay_plan(verifier::read_text_file(args.plan));
      auto reference = verifier::parse_reference_result(verifier::read_text_file(args.reference));
      replay::sanitize_candidate(plan, reference, result, on_hang);
    } catch (const std::exception& e) {
      result.ok = false;
      result.error = e.what();
    }
    write_or_complain(args.out, verifier::to_json_text(result));
    return result.ok ? kExitDone : kExitError;
  }

  verifier::CandidateResult result;
  auto on_hang = write_and_exit_hung(args.out, result);
  try {
    auto plan = verifier::parse_replay_plan(verifier::read_text_file(args.plan));
    auto reference = verifier::parse_reference_result(verifier::read_text_file(args.reference));
    replay::check_candidate(plan, reference, result, on_hang);
  } catch (const replay::CudaError& e) {
    // A fault outside the candidate's own runs (e.g. while timing the
    // original) is still reported; the context may be unusable.
    result.ok = !result.stage.empty() && result.stage != "load";
    if (result.ok) {
      result.fault = replay::error_name(e.code);
      result.failure = std::string("the candidate left the GPU in an error state: ") + e.what();
    } else {
      result.error = e.what();
    }
  } catch (const std::exception& e) {
    result.ok = false;
    result.error = e.what();
  }
  write_or_complain(args.out, verifier::to_json_text(result));
  return result.ok ? kExitDone : kExitError;
}
