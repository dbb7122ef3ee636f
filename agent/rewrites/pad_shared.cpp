// pad-shared: apply the bank-conflict quick fix as a rewrite. The static
// analysis (analysis/bank_conflicts.cpp) evaluates every shared access of
// the kernel with the warp model under its launch contexts and, for an
// access with an n-way conflict, asks analysis/shared_padding.h for the
// smallest padding of the array's innermost dimension that makes that access
// conflict-free without adding wavefronts to any other access of the array.
// This rewrite edits exactly what that fix edits, so the editor's quick fix
// and the optimizer never disagree about a padding.
//
// Safety (checked by choose_padding): the array is declared with constant
// extents (not extern), at least 2-D, never reached through pointer
// arithmetic, reinterpretation or a call (address_escapes), and every access
// addresses whole elements of it: then changing its row length changes
// addresses only, never values.
#include <cmath>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

struct Conflict {
  const Finding* finding = nullptr;
  const Fix* fix = nullptr;  // null: conflicted, but no safe padding
  std::string array;
  std::int64_t degree = 0, pad = 0;
};

std::int64_t data_int(const Finding& f, const std::string& key) {
  const EvidenceValue* v = f.data.get(key);
  const auto* i = v ? std::get_if<std::int64_t>(v) : nullptr;
  return i ? *i : 0;
}

std::string data_string(const Finding& f, const std::string& key) {
  const EvidenceValue* v = f.data.get(key);
  const auto* s = v ? std::get_if<std::string>(v) : nullptr;
  return s ? *s : "?";
}

std::vector<Conflict> conflicts(const KernelContext& ctx) {
  std::vector<Conflict> out;
  if (!ctx.model) return out;
  for (const Finding& f : ctx.file.findings()) {
    if (f.code != codes::kSharedBankConflict || f.kernel != ctx.model->key) continue;
    Conflict c;
    c.finding = &f;
    c.array = data_string(f, "array");
    c.degree = data_int(f, "degree");
    c.pad = data_int(f, "padding");
    for (const Fix& fix : f.fixes)
      if (fix.edits.size() == 1 && c.pad > 0) c.fix = &fix;
    out.push_back(c);
  }
  return out;
}

class PadShared final : public Rewrite {
 public:
  const char* name() const override { return "pad-shared"; }

  CheckResult check(KernelContext& ctx) const override {
    const std::vector<Conflict> all = conflicts(ctx);
    if (all.empty())
      return CheckResult::refuse("no bank conflict modelled in this kernel (the bank-conflict analysis reports none)");
    for (const Conflict& c : all) {
      if (!c.fix) continue;
      CheckResult result;
      Proposal p;
      p.step = {name(), {{"pad", c.pad}}};
      p.motivation = c.finding->message + "; padding `" + c.array + "` by " + std::to_string(c.pad) +
                     " (the bank-conflict quick fix) makes it conflict-free";
      p.predicted_gain = 1.0 + 0.1 * std::log2(static_cast<double>(std::max<std::int64_t>(2, c.degree)));
      result.proposals.push_back(p);
      return result;  // one array per step; the search applies it again for the next
    }
    return CheckResult::refuse("bank conflicts on `" + all.front().array +
                               "`, but no padding is safe (the array escapes, is extern or 1-D) or none "
                               "removes them without slowing another access");
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    const std::int64_t pad = param(step, "pad");
    for (const Conflict& c : conflicts(ctx)) {
      if (!c.fix) continue;
      if (c.pad != pad) {
        error = "pad-shared applies the padding the analysis chose for `" + c.array + "` (" + std::to_string(c.pad) +
                "), not " + std::to_string(pad);
        return false;
      }
      const TextEdit& edit = c.fix->edits.front();
      auto begin = offset_of(ctx.file.text, edit.range.start), end = offset_of(ctx.file.text, edit.range.end);
      if (!begin || !end || !out.edits.replace_offsets(*begin, *end, edit.new_text)) {
        error = out.edits.error().empty() ? "the padding edit does not apply" : out.edits.error();
        return false;
      }
      out.notes.push_back("`" + c.array + "` has constant extents, is not extern and its address never escapes; "
                          "every access addresses whole elements: padding its rows changes addresses, not values");
      out.notes.push_back("the padding (" + std::to_string(c.pad) + ") is the bank-conflict quick fix's: the "
                          "conflicted access becomes conflict-free and no other access of `" + c.array +
                          "` needs more wavefronts (warp model, the kernel's launch shapes)");
      return true;
    }
    error = "no conflicted __shared__ array with a safe padding";
    return false;
  }
};

}  // namespace

const Rewrite& pad_shared_rewrite() {
  static const PadShared r;
  return r;
}

}  // namespace warplens::agent::rw
