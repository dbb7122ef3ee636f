// The original's side of a verification, computed once per job and capture
// and reused for every candidate: the compiled original and the reference
// child's result (roles, reproduction, determinism, which shape variations
// the original handles). Keyed by everything that decides them: the capture
// (its manifest's bytes), the original source and its compile settings, the
// input sets, tolerance, guard bands and pipeline, and the replay binary.
//
// In the process by default (the optimize job verifies its candidates in one
// process), or also on disk in `dir` (a CLI run reuses an earlier one's).
// Concurrent verifications of the same key wait for the first; a failed
// computation is not kept (the next asks again).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/verifier/compile.h"
#include "agent/verifier/replay_protocol.h"

namespace warplens::verifier {

struct CachedReference {
  bool ok = false;
  std::string error;                      // !ok: why (the original does not compile, does not replay, ...)
  std::filesystem::path dir;              // holds original.cubin, reference.json, reference-plan.json
  std::filesystem::path cubin;
  std::filesystem::path reference_path;
  CompileResult original_compile;
  ReferenceResult reference;
  std::vector<InputSetSpec> input_sets;   // the plan's, with the variations the original failed marked skipped
  double reference_ms = 0;                // the reference child(ren)
  bool reused = false;                    // set per lookup: this caller did not compute it
};

using ReferenceComputation = std::function<CachedReference(const std::filesystem::path& dir)>;

class ReferenceCache {
 public:
  static ReferenceCache& instance();
  // The cached entry for `key`, or `compute(dir)`'s (into a fresh directory
  // it owns) when there is none. `persistent_dir` non-empty: also looked up
  // in and stored to <persistent_dir>/<key>/.
  std::shared_ptr<const CachedReference> get(const std::string& key, const std::filesystem::path& persistent_dir,
                                             const ReferenceComputation& compute);
  void clear();  // tests

 private:
  ReferenceCache();
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// The key's text parts, hashed (exposed for tests).
std::string reference_cache_key(const std::vector<std::string>& parts);

}  // namespace warplens::verifier
