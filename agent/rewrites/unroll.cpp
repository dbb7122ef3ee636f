// unroll: put `#pragma unroll N` on the innermost `for` loops of the kernel
// that have no unroll pragma yet. Unrolling never changes what a loop
// computes (the compiler keeps the remainder iterations), so the rewrite is
// always safe; it pays when loop overhead or too few loads in flight limit
// the kernel.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

bool has_loop(const Stmt* s) {
  if (!s) return false;
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) return true;
  for (const Stmt* c : s->children())
    if (has_loop(c)) return true;
  return false;
}

// Innermost `for` loops without a loop-hint attribute, not written in a macro.
std::vector<const ForStmt*> candidate_loops(const KernelContext& ctx) {
  std::vector<const ForStmt*> out;
  std::function<void(const Stmt*, bool)> walk = [&](const Stmt* s, bool hinted) {
    if (!s) return;
    if (const auto* attributed = dyn_cast<AttributedStmt>(s)) {
      bool hint = false;
      for (const Attr* a : attributed->getAttrs())
        if (isa<LoopHintAttr>(a)) hint = true;
      walk(attributed->getSubStmt(), hint);
      return;
    }
    if (const auto* f = dyn_cast<ForStmt>(s)) {
      if (!hinted && !has_loop(f->getBody()) && !f->getBeginLoc().isMacroID() &&
          is_main_file(ctx.file, f->getBeginLoc()))
        out.push_back(f);
    }
    for (const Stmt* c : s->children()) walk(c, false);
  };
  walk(ctx.body, false);
  return out;
}

class Unroll final : public Rewrite {
 public:
  const char* name() const override { return "unroll"; }

  CheckResult check(KernelContext& ctx) const override {
    auto loops = candidate_loops(ctx);
    if (loops.empty()) return CheckResult::refuse("no innermost for loop without an unroll pragma");
    CheckResult r;
    for (std::int64_t f : find_rewrite(name())->params[0].values) {
      Proposal p;
      p.step = {name(), {{"factor", f}}};
      p.motivation = std::to_string(loops.size()) + " innermost loop(s) without #pragma unroll";
      p.predicted_gain = f == 4 ? 1.04 : 1.03;
      r.proposals.push_back(p);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    const std::int64_t factor = param(step, "factor");
    if (factor < 0 || factor > 64) {
      error = "unroll factor must be 0 (full) to 64";
      return false;
    }
    auto loops = candidate_loops(ctx);
    if (loops.empty()) {
      error = "no loop to unroll";
      return false;
    }
    const std::string pragma = factor == 0 ? "#pragma unroll" : "#pragma unroll " + std::to_string(factor);
    for (const ForStmt* f : loops) {
      const std::string indent = ctx.indentation_at(f->getBeginLoc());
      // The pragma needs its own line: break the line before the loop when
      // something precedes it (e.g. `if (c) for (...)`).
      const unsigned off = ctx.offset(f->getBeginLoc());
      std::size_t line_start = ctx.file.text.rfind('\n', off == 0 ? 0 : off - 1);
      line_start = line_start == std::string::npos ? 0 : line_start + 1;
      const bool alone = ctx.file.text.find_first_not_of(" \t", line_start) == off;
      const std::string text = alone ? pragma + "\n" + indent : "\n" + indent + pragma + "\n" + indent;
      if (!out.edits.insert(f->getBeginLoc(), text)) {
        error = out.edits.error();
        return false;
      }
    }
    out.notes.push_back("unrolling keeps every iteration (the compiler handles remainders)");
    return true;
  }
};

}  // namespace

const Rewrite& unroll_rewrite() {
  static const Unroll r;
  return r;
}

}  // namespace warplens::agent::rw
