// The interface of one named Clang rewrite. Each rewrite lives in its own
// file beside this one and registers itself in engine.cpp's list.
//
// A rewrite first checks the kernel (applicability and safety) and proposes
// parameterisations with a motivation; apply() then produces edits
// (tooling::Replacements through Edits), the launch changes it needs and the
// safety conditions it verified, as notes.
#pragma once

#include <string>
#include <vector>

#include "agent/rewrites/clang_support.h"

namespace warplens::agent::rw {

struct Proposal {
  RewriteStep step;
  std::string motivation;
  double predicted_gain = 1.0;
};

struct CheckResult {
  std::vector<Proposal> proposals;  // empty: not applicable
  std::string refusal;              // why not (when empty proposals)
  static CheckResult refuse(std::string why) {
    CheckResult r;
    r.refusal = std::move(why);
    return r;
  }
};

struct RewriteOutput {
  explicit RewriteOutput(const ParsedFile& f) : edits(f) {}
  Edits edits;
  std::vector<LaunchChange> launch_changes;
  std::optional<FusionDeclaration> fusion;
  std::optional<ReassociatedTerms> reassociation;  // float sums reordered (candidate.h)
  std::string result_kernel;          // empty: unchanged
  std::vector<std::string> notes;
};

class Rewrite {
 public:
  virtual ~Rewrite() = default;
  virtual const char* name() const = 0;
  virtual CheckResult check(KernelContext& ctx) const = 0;
  // Returns false with `error` set when the step does not apply after all
  // (e.g. parameters out of range).
  virtual bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const = 0;
};

// Parameter value with the catalogue's first value as the default.
std::int64_t param(const RewriteStep& step, const std::string& name);

// The registered rewrites, in catalogue order.
const std::vector<const Rewrite*>& clang_rewrites();

}  // namespace warplens::agent::rw
