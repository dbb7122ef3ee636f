// Builds without Clang (the GPU machine): the rewrite engine is absent.
// Candidates are generated on a machine with Clang (`warplens optimize
// --candidates-only`) and verified here from their directory.
#include "agent/rewrite_engine.h"

namespace warplens::agent {

namespace {
constexpr const char* kMissing =
    "this warplens was built without Clang (WARPLENS_WITH_CLANG=OFF): the rewrite engine is not available; "
    "generate candidates elsewhere with `warplens optimize --candidates-only --out DIR` and verify them here "
    "with `warplens optimize --verify-dir DIR`";
}

bool rewrite_engine_available() { return false; }

KernelSurvey survey_kernel(const SourceFile&, const std::string&, const EngineOptions&, bool, std::stop_token) {
  KernelSurvey s;
  s.error = kMissing;
  return s;
}

ApplyResult apply_rewrite(const SourceFile&, const std::string&, const RewriteStep&, const EngineOptions&,
                          std::stop_token) {
  ApplyResult r;
  r.error = kMissing;
  return r;
}

}  // namespace warplens::agent
