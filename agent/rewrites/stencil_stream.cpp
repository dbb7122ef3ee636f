// stencil-stream: a 2-D stencil (see stencil_plan.h) computes `rows`
// consecutive output rows per thread, down its column, and reads each input
// element it needs once into a register: the rows above and below an output
// are the next and previous outputs' centre rows, so a 5-point stencil over
// 4 rows reads 14 elements instead of 20, all issued before the first
// output is computed. On the H200 this, not a shared-memory halo tile, is
// what helps a memory-bound stencil (5-point Jacobi over 8192^2 floats:
// 1.5-1.6x, about 80% of copy bandwidth; stencil-tile 0.64-0.71x, because
// L1 already serves the horizontal neighbours and the tile adds a barrier).
//
// Applies when plan_stencil() matches, and also: y is declared on its own;
// the work has no return (it is repeated once per row) except the edge
// branch's (stencil_plan.h), which becomes an if-else.
//
// Then the thread's rows are y0 .. y0 + rows - 1 with y0 = (its global y
// index) * rows, the grid's y threads scaled by 1/rows (declared: the
// threads started cover at least the rows the original grid covered, so
// every (x, y) the original handled is handled once). When the guard holds
// at every one of the thread's rows, the thread loads every element some
// row's tap reads (exactly the union of the original's reads for those
// rows: nothing the original leaves alone is read) and runs each row's work
// (without the edge branch, whose condition the check ruled out)
// with the reads replaced by those registers; the kernel never writes the
// stencil's input and nothing it writes reaches it, so reading early reads
// the same values; the check is the guard and, with an edge branch, not its
// condition. Otherwise each row runs the original work under the original
// guard, reading memory as written. The block becomes 32 x 4.
#include "agent/rewrites/rewrite.h"
#include "agent/rewrites/stencil_plan.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

constexpr std::int64_t kBlockRows = 4;

struct StreamPlan {
  StencilPlan stencil;
  std::string y_index;  // the y index's initialiser (the global y thread index)
};

std::optional<StreamPlan> plan(const KernelContext& ctx, std::string& why) {
  auto s = plan_stencil(ctx, why);
  if (!s) return std::nullopt;
  StreamPlan p{*s, {}};
  const IndexVar& y = s->grid.y;
  if (!y.decl || !y.decl->isSingleDecl()) {
    why = "y is declared together with other variables";
    return std::nullopt;
  }
  auto init = ctx.text(y.var->getInit());
  if (!init) {
    why = "the y index is spelled in a macro";
    return std::nullopt;
  }
  p.y_index = *init;
  // The edge branch's own return is dropped (it becomes an if-else per
  // row); any other return would leave every later row undone.
  auto leaves = [&](const Stmt* b) {
    if (s->edge && b == s->edge->branch) {
      for (const Stmt* t : s->edge->statements)
        if (contains_return(t)) return true;
      return false;
    }
    return contains_return(b);
  };
  for (const Stmt* b : s->grid.region.body)
    if (leaves(b)) {
      why = "a return inside the element's work (it is repeated once per row)";
      return std::nullopt;
    }
  return p;
}

// The statements before the guard, with the y index's declaration replaced
// by `const T y = <row>;`.
std::optional<std::string> prologue_at_row(const KernelContext& ctx, const StencilPlan& p, const std::string& row,
                                           const std::string& indent) {
  const VarDecl* y = p.grid.y.var;
  std::string out;
  for (const Stmt* s : p.grid.region.prologue) {
    if (s == p.grid.y.decl) {
      out += indent + "const " + y->getType().getUnqualifiedType().getAsString() + " " + y->getNameAsString() + " = " +
             row + ";\n";
      continue;
    }
    auto t = ctx.text(s);
    if (!t) return std::nullopt;
    out += indent + *t + "\n";
  }
  return out;
}

// The guarded work with each statement's own terminator, one per line.
// With an edge branch `if (E) { S; return; } REST`: where the interior is
// known (the registers' path) the branch is left out, since E is false at
// every row; otherwise it becomes `if (E) { S } else { REST }`, the work
// running once per row.
std::optional<std::string> work_text(const KernelContext& ctx, const StencilPlan& p,
                                     const std::map<const Stmt*, std::string>& nodes, const std::string& indent,
                                     bool interior_known) {
  std::string work, rest;
  bool after_edge = false;
  for (const Stmt* s : p.grid.region.body) {
    if (p.edge && s == p.edge->branch) {
      after_edge = true;
      continue;
    }
    auto t = statement_text(ctx, s, nodes);
    if (!t) return std::nullopt;
    (after_edge && !interior_known ? rest : work) += indent + (after_edge && !interior_known ? "  " : "") + *t + "\n";
  }
  if (!p.edge || interior_known) return work;
  std::string edge;
  for (const Stmt* s : p.edge->statements) {
    auto t = statement_text(ctx, s, nodes);
    if (!t) return std::nullopt;
    edge += indent + "  " + *t + "\n";
  }
  return work + indent + "if (" + p.edge->condition + ") {\n" + edge + indent + "} else {\n" + rest + indent + "}\n";
}

class StencilStream final : public Rewrite {
 public:
  const char* name() const override { return "stencil-stream"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    const StencilPlan& s = p->stencil;
    CheckResult r;
    for (std::int64_t rows : find_rewrite(name())->params[0].values) {
      Proposal pr;
      pr.step = {name(), {{"rows", rows}}};
      pr.motivation = std::to_string(s.taps.size()) + " reads of `" + s.array->getNameAsString() +
                      "` around each element (offsets x " + std::to_string(s.dx_min) + ".." +
                      std::to_string(s.dx_max) + ", y " + std::to_string(s.dy_min) + ".." +
                      std::to_string(s.dy_max) + "): " + std::to_string(rows) +
                      " rows per thread, each input element loaded once into a register";
      // Above stencil-tile's estimate: measured faster on the H200 (see the header).
      pr.predicted_gain = 1.45 + 0.02 * static_cast<double>(s.taps.size()) + (rows == 4 ? 0.01 : 0.0);
      r.proposals.push_back(pr);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const StencilPlan& s = p->stencil;
    const std::int64_t rows = param(step, "rows");
    if (rows != 2 && rows != 4 && rows != 8) {
      error = "rows must be 2, 4 or 8";
      return false;
    }
    const VarDecl* x = s.grid.x.var;
    const VarDecl* y = s.grid.y.var;
    const std::string xn = x->getNameAsString(), yn = y->getNameAsString();
    const std::string xt = x->getType().getUnqualifiedType().getAsString(),
                      yt = y->getType().getUnqualifiedType().getAsString();
    auto x_index = ctx.text(x->getInit());
    if (!x_index) {
      error = "the x index is spelled in a macro";
      return false;
    }
    const std::string R = std::to_string(rows);
    const std::string y0 = fresh_name(ctx.file, "y0"), r = fresh_name(ctx.file, "r"),
                      all = fresh_name(ctx.file, "all_rows");
    // One register per (dx, row offset k) some row's tap reads: row `i`'s tap
    // (dx, dy) reads the element at (x + dx, y0 + i + dy).
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> regs;
    for (std::int64_t i = 0; i < rows; ++i)
      for (const StencilTap& t : s.taps) {
        auto key = std::make_pair(t.dx, i + t.dy);
        if (!regs.count(key)) regs[key] = fresh_name(ctx.file, "v");
      }
    std::string b = "{\n  // Rewritten by warplens (stencil-stream): " + R + " rows per thread; when all of them are " +
                    "worked on, each\n  // element of `" + s.array->getNameAsString() +
                    "` they read is loaded once, into a register, before the work.\n";
    b += "  const " + yt + " " + y0 + " = (" + p->y_index + ") * " + R + ";\n";
    auto guard_prologue = prologue_at_row(ctx, s, y0 + " + " + r, "    ");
    if (!guard_prologue) {
      error = "a declaration is spelled in a macro";
      return false;
    }
    b += "  bool " + all + " = true;\n  #pragma unroll\n  for (int " + r + " = 0; " + r + " < " + R + "; ++" + r +
         ") {\n" + *guard_prologue + "    " + all + " = " + all + " && (" + s.interior + ");\n  }\n";
    b += "  if (" + all + ") {\n";
    for (const auto& [key, name] : regs) {
      b += "    " + s.type + " " + name + ";\n    {\n      const " + xt + " " + xn + " = (" + *x_index + ") + (" +
           std::to_string(key.first) + ");\n      const " + yt + " " + yn + " = " + y0 + " + (" +
           std::to_string(key.second) + ");\n      " + name + " = " + s.first + ";\n    }\n";
    }
    for (std::int64_t i = 0; i < rows; ++i) {
      std::map<const Stmt*, std::string> nodes;
      for (const StencilTap& t : s.taps) nodes[t.read] = regs.at({t.dx, i + t.dy});
      auto pro = prologue_at_row(ctx, s, y0 + " + " + std::to_string(i), "      ");
      auto work = work_text(ctx, s, nodes, "      ", /*interior_known=*/true);
      if (!pro || !work) {
        error = "the work is spelled in a macro";
        return false;
      }
      b += "    {\n" + *pro + *work + "    }\n";
    }
    auto row_prologue = prologue_at_row(ctx, s, y0 + " + " + r, "      ");
    auto plain_work = work_text(ctx, s, {}, "        ", /*interior_known=*/false);
    if (!row_prologue || !plain_work) {
      error = "the work is spelled in a macro";
      return false;
    }
    b += "  } else {\n    for (int " + r + " = 0; " + r + " < " + R + "; ++" + r + ") {\n" + *row_prologue +
         "      if (" + s.guard + ") {\n" + *plain_work + "      }\n    }\n  }\n}";
    if (!out.edits.replace(ctx.body, b)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{32, kBlockRows, 1};
    change.thread_scale[1] = {1, rows};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("every read of `" + s.array->getNameAsString() + "` is at a constant offset (x " +
                        std::to_string(s.dx_min) + ".." + std::to_string(s.dx_max) + ", y " +
                        std::to_string(s.dy_min) + ".." + std::to_string(s.dy_max) +
                        ") from (x, y) with one row pitch; the kernel never writes it and nothing it writes reaches "
                        "it, so loading it before the work reads the same values");
    out.notes.push_back(std::string("the registers are loaded only when the original guard ") +
                        (s.edge ? "holds and the edge condition `" + s.edge->condition + "` does not, " : "holds ") +
                        "at all " + R +
                        " of the thread's rows, and hold exactly the elements those rows read; otherwise each row "
                        "runs the original work under the original guard");
    out.notes.push_back("each thread handles rows " + R + " * gid_y .. " + R + " * gid_y + " +
                        std::to_string(rows - 1) + "; the launches cover both bounds and the new grid's threads "
                        "cover at least the rows of the original's");
    return true;
  }
};

}  // namespace

const Rewrite& stencil_stream_rewrite() {
  static const StencilStream r;
  return r;
}

}  // namespace warplens::agent::rw
