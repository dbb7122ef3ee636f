// The original's side of verify(): compile the original and run the
// reference child, again without the shape variations the original itself
// faults or hangs on (each such run ends the child), as one cache entry
// (reference_cache.h).
#pragma once

#include <filesystem>
#include <stop_token>
#include <string>

#include "agent/verifier/compile.h"
#include "agent/verifier/reference_cache.h"
#include "agent/verifier/replay_protocol.h"

namespace warplens::verifier {

// The cache key: everything that decides the original's compile and its
// reference result.
std::string reference_key(const ReplayPlan& plan, const CompileRequest& compile, const std::string& original_text,
                          const std::string& manifest_text, const std::string& replay_binary);

// `plan`: everything but the original's cubin (written into `dir`).
CachedReference compute_reference_entry(const std::filesystem::path& dir, ReplayPlan plan, CompileRequest compile,
                                        const std::string& replay_binary, double timeout_s, std::stop_token stop);

}  // namespace warplens::verifier
