// A candidates directory: what `warplens optimize --candidates-only --out DIR`
// writes on a machine with Clang and `--verify-dir DIR` reads on the GPU
// machine (which has no Clang). Format `warplens-candidates/1`
// (docs/optimize.md):
//
//   DIR/manifest.json   kernel, original, include directories, PyTorch
//                       reference, candidates (plan, declarations, notes)
//   DIR/original.cu     a copy of the original source
//   DIR/cNN.cu          each candidate: a comment header (plan, notes,
//                       launch/fusion declarations) + the full rewritten file
//
// Paths inside the manifest are relative to DIR, so the directory can be
// committed and carried to another machine with the tree.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agent/candidate.h"
#include "agent/rewrite_engine.h"

namespace warplens::agent {

struct CandidateSet {
  std::filesystem::path dir;
  std::string name;                        // e.g. the example's name
  std::string kernel;
  std::string source_path;                 // the original's path when generated (informational)
  std::string original_text;               // contents of original.cu
  std::vector<std::string> include_dirs;   // relative to dir (or absolute)
  std::string pytorch_reference;           // relative to dir; empty when none
  std::vector<Candidate> candidates;       // sources without the comment header
  std::vector<RefusedRewrite> refused;     // why other rewrites did not apply
  std::vector<std::string> log;            // the search's log
};

// Writes the directory (created if needed; existing candidate files of the
// same names are replaced). False with `error` on I/O failure.
bool write_candidate_set(const CandidateSet& set, std::string& error);
std::optional<CandidateSet> read_candidate_set(const std::filesystem::path& dir, std::string& error);

// The original as a SourceFile located inside the directory (for include
// resolution the include_dirs are made absolute).
SourceFile original_of(const CandidateSet& set);
std::vector<std::string> absolute_include_dirs(const CandidateSet& set);

}  // namespace warplens::agent
