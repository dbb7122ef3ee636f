// Policies: who proposes candidate edits for a kernel.
//
// The optimize job asks its policy for candidates in rounds, verifies every
// candidate with the same CandidateVerifier, and shows the policy all earlier
// candidates with their verdicts before the next round. A policy never
// verifies or times anything itself, so nothing it proposes can skip the gate.
//
//   - RewriteSearch (agent/search.h): the built-in engine; named Clang
//     rewrites, searched over combinations and parameters. Works offline.
//   - the LLM policy (agent/llm/, later): a ReAct loop against an
//     OpenAI-compatible endpoint. Its tool calls map onto PolicyTools below
//     (read the file, static analysis, compile, the verdict history); its
//     "propose edit" tool returns a Candidate with an empty plan.
#pragma once

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/candidate.h"
#include "agent/candidate_verifier.h"
#include "analysis/analyzer.h"

namespace warplens::agent {

// What the profiler measured for the kernel, reduced to what guides a search.
// Fill what is known; everything is optional. (The lead maps profiler data to
// this; the policy does not read profile files itself.)
struct ProfileHints {
  std::optional<double> kernel_ms;             // measured duration per launch
  std::optional<double> dram_throughput_pct;   // % of peak DRAM bandwidth
  std::optional<double> sm_throughput_pct;     // % of peak SM (compute) throughput
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> sectors_per_request;   // global loads+stores, average
  std::optional<double> bank_conflict_ratio;   // shared wavefronts / ideal
  std::optional<int> registers_per_thread;
};

struct Budget {
  double wall_seconds = 600;   // whole job, including verification
  int max_candidates = 48;     // candidates verified
  double gpu_seconds = 300;    // sum of the verifier's GPU time
};

struct BudgetLeft {
  double wall_seconds = 0;
  int candidates = 0;
  double gpu_seconds = 0;
};

// A candidate and what the verifier said about it.
struct TriedCandidate {
  Candidate candidate;
  CandidateVerdict verdict;
};

// Cheap services a policy may call while proposing (none touches the GPU).
struct PolicyTools {
  // nvcc compile check of a full source; returns the diagnostics, empty when clean.
  std::function<std::optional<std::string>(const std::string& source)> compile_errors;
  // Static analysis of a full source (front end + findings).
  std::function<AnalysisResult(const std::string& source)> analyze;
};

struct PolicyContext {
  const SourceFile& file;                     // the original, as the user has it
  const std::string& kernel;
  const std::vector<Finding>& findings;       // static (and measured) findings for the file
  const std::optional<ProfileHints>& profile;
  const std::vector<TriedCandidate>& history; // everything verified so far in this job
  BudgetLeft remaining;
  const PolicyTools* tools = nullptr;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // Up to `max` new candidates. Ids must be unique within the job (the job
  // renumbers them if not). An empty result means the policy has nothing more
  // to try; the job then stops. Must honour `stop`.
  virtual std::vector<Candidate> propose(const PolicyContext& context, int max, std::stop_token stop) = 0;
};

}  // namespace warplens::agent
