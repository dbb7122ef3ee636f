// Starting warplens-replay (the GPU side) from the parent and reading what it
// wrote: locating the binary, the device probe (also the "no GPU" check),
// and the reference / candidate runs with their time limits.
#pragma once

#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>

#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/subprocess.h"

namespace warplens::verifier {

// `configured`, else $WARPLENS_REPLAY, else warplens-replay next to the
// running executable. Empty with `error` set when none exists.
std::string find_replay_binary(const std::string& configured, std::string* error);

// Runs `warplens-replay device-info`. Results are cached per binary for the
// life of the process (a GPU does not come and go), errors are not.
DeviceProbe probe_gpu(const std::string& replay_binary, const std::filesystem::path& work_dir,
                      std::stop_token stop = {});

// Explains a replay process that produced no result file: a missing driver
// library (exit 127 from the loader), a crash, a timeout.
std::string explain_replay_failure(const ProcessResult& p);

struct ReplayRun {
  ProcessResult process;
  bool have_result = false;   // the result file exists and parsed
  std::string read_error;
};

ReplayRun run_reference_child(const std::string& replay_binary, const std::filesystem::path& plan,
                              const std::filesystem::path& out, double timeout_s, ReferenceResult& result,
                              std::stop_token stop);
ReplayRun run_candidate_child(const std::string& replay_binary, const std::filesystem::path& plan,
                              const std::filesystem::path& reference, const std::filesystem::path& out,
                              double timeout_s, CandidateResult& result, std::stop_token stop);

}  // namespace warplens::verifier
