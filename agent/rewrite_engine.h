// The built-in rewrite engine, seen from outside: named, parameterised
// source-to-source rewrites of one kernel, applied on the Clang AST.
//
// This header is Clang-free so the search, the job and the CLI build in both
// profiles. The implementation lives in agent/rewrites/ (WARPLENS_WITH_CLANG)
// or, without Clang, in agent/rewrites/unavailable/, which reports that the
// engine is missing (candidates are then read from a directory instead).
#pragma once

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/candidate.h"
#include "analysis/analyzer.h"

namespace warplens::agent {

// Rough order in which rewrites compose: restructure first, then memory
// accesses, then loops, then the launch shape.
enum class RewriteStage : int { Structure = 0, Memory = 1, Loop = 2, Launch = 3 };
const char* to_string(RewriteStage s);

struct RewriteParam {
  std::string name;
  std::vector<std::int64_t> values;  // the values the search explores
  std::string meaning;
};

struct RewriteInfo {
  std::string name;     // "pad-shared"
  std::string summary;  // one line
  RewriteStage stage = RewriteStage::Memory;
  std::vector<RewriteParam> params;
  std::vector<std::string> addresses;  // finding codes it can fix, e.g. "shared-bank-conflict"
  // Worth nothing alone, only for what it lets the later rewrites see: the
  // search expands its plan at once instead of ranking it by its own gain.
  bool enabling = false;
};

struct ApplyResult {
  bool ok = false;
  std::string error;                  // why it could not be applied
  std::string source;                 // the whole rewritten file
  std::string result_kernel;          // kernel to keep optimising (renamed by fusion)
  std::vector<LaunchChange> launch_changes;
  std::optional<FusionDeclaration> fusion;
  std::optional<ReassociatedTerms> reassociation;
  std::vector<std::string> notes;     // safety conditions that were checked
};

// A rewrite that applies to the kernel, with one parameterisation.
struct RewriteOption {
  RewriteStep step;
  RewriteStage stage = RewriteStage::Memory;
  std::string motivation;        // what in the kernel calls for it, with numbers
  double predicted_gain = 1.0;   // heuristic, for ordering only
  std::vector<std::string> addresses;
  std::optional<ApplyResult> result;  // filled when the survey was asked to apply
};

struct RefusedRewrite {
  std::string rewrite;
  std::string reason;  // the safety or applicability condition that failed
};

// How the engine parses: with the analysis' own settings (the workspace's
// compile_commands.json, CUDA path, architecture, extra arguments), through
// the analysis front end, so the rewrites see a file exactly as the
// diagnostics did (docs/frontend.md).
struct EngineOptions {
  AnalysisOptions analysis;
};

struct KernelSurvey {
  bool parsed = false;
  std::string error;                     // parse errors, unknown kernel
  ToolchainStatus toolchain;             // how the file was parsed (the analysis' command line)
  std::vector<std::string> kernels;      // every __global__ function in the file
  std::vector<RewriteOption> options;    // applicable rewrites and parameters
  std::vector<RefusedRewrite> refused;   // why the others do not apply
  double parse_seconds = 0;
};

// What applying a step declares about launches (agent/candidate.h): its
// launch changes, in order (LaunchChange::kernel left empty: the rewritten
// kernel's), and whether it fuses two launches into one (a
// FusionDeclaration). Kept beside the catalogue, without Clang, so a
// replaying verifier can be checked against every change a rewrite can make;
// nullopt for a rewrite this list does not know (a test fails for any
// catalogue entry without one). Missing parameters take the catalogue's
// first value, as the engine does.
struct DeclaredLaunch {
  std::vector<LaunchChange> changes;
  bool fuses = false;
  // The rewrite makes `changes` or none, depending on the kernel's shape
  // (privatize-atomics: a persistent grid only where the work can become a
  // grid-stride loop). A replaying verifier must handle both.
  bool changes_depend_on_kernel = false;
};
std::optional<DeclaredLaunch> declared_launch(const RewriteStep& step);
// Every parameter combination of a rewrite's catalogue values.
std::vector<RewriteStep> catalogue_variants(const RewriteInfo& info);

// True when this build has the Clang-based engine.
bool rewrite_engine_available();

// Every rewrite the engine knows (also without Clang: for docs and --help).
const std::vector<RewriteInfo>& rewrite_catalogue();
const RewriteInfo* find_rewrite(const std::string& name);

// Parses `file` once, lists which rewrites apply to `kernel` (with their
// parameter variants) and, when `apply` is set, applies each of them to the
// same parse.
KernelSurvey survey_kernel(const SourceFile& file, const std::string& kernel, const EngineOptions& options,
                           bool apply, std::stop_token stop = {});

// Parses and applies one step.
ApplyResult apply_rewrite(const SourceFile& file, const std::string& kernel, const RewriteStep& step,
                          const EngineOptions& options, std::stop_token stop = {});

}  // namespace warplens::agent
