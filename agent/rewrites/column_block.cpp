// column-block: a thread-per-column kernel that walks down a matrix (column
// sums, A^T x, per-channel mean and variance: the row shape of
// row_loops.h, its loops stepping whole rows while consecutive threads read
// consecutive columns) gets 2-D blocks of 32 x `lanes`: 32 consecutive
// columns along x (each warp still reads 128 contiguous bytes per row) and
// `lanes` threads along y sharing each column's walk (lane y takes rows y,
// y + lanes, ...). Each reduction meets in shared memory (one slot per
// thread; every lane reads its column's slots in order), so every lane
// holds the column's total, as warp-per-row's lanes do. Few columns mean few
// threads in the original (2048 columns: 2048 threads on a GPU of 132 SMs);
// here each column has `lanes` of them.
//
// The combines use barriers, which every thread of the block must reach,
// while the column guard `col < cols` is not uniform over a block of 32
// columns. So the guard becomes a flag: every statement of the guarded
// body runs under it (`if (wl_active) ...`; declarations as
// `T v = wl_active ? static_cast<T>(init) : static_cast<T>(0);`, so that
// nothing is read for a column that does not exist), the combines and the
// barriers run in every thread, at the top level of the kernel, the same
// number of times. Stores outside loops run in lane 0 of active columns; a
// barrier follows every statement that stores and is not the last, so the
// other lanes' later reads see it.
//
// Applies where warp-per-row's match holds (row_loops.h), the loops walk
// columns (column_walk), the declarations in the guarded body are of scalar
// or pointer type with a spelled type, and the launches can be rewritten.
// The launch: block (32, lanes), the same threads along x (declared
// `block=32,lanes,1 scale=1/1,lanes/1`).
#include <algorithm>
#include <set>

#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"
#include "agent/rewrites/row_loops.h"
#include "agent/rewrites/sum_terms.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

std::string column_helper(const std::string& name, Combine op) {
  const std::string fold = op == Combine::Add     ? "r += o;"
                           : op == Combine::Max   ? "r = max(r, o);"
                           : op == Combine::Min   ? "r = min(r, o);"
                           : op == Combine::MaxIf ? "if (o > r) r = o;"
                                                  : "if (o < r) r = o;";
  const char* what = op == Combine::Add ? "sum" : op == Combine::Max || op == Combine::MaxIf ? "maximum" : "minimum";
  return std::string("// Added by warplens (column-block): ") + what +
         " over the threadIdx.y lanes of this thread's column, in each of them; every thread of the block calls it.\n"
         "template <typename T>\n__device__ __forceinline__ T " + name +
         "(T v) {\n  __shared__ T wl_part[1024];\n  __syncthreads();  // the previous call's reads are done\n"
         "  wl_part[threadIdx.y * blockDim.x + threadIdx.x] = v;\n  __syncthreads();\n"
         "  T r = wl_part[threadIdx.x];\n  for (unsigned y = 1; y < blockDim.y; ++y) {\n"
         "    const T o = wl_part[y * blockDim.x + threadIdx.x];\n    " + fold + "\n  }\n  return r;\n}\n\n";
}

struct Plan {
  Match m;
  std::string example;
};

std::optional<Plan> plan(const KernelContext& ctx, std::string& why) {
  if (!launches_rewritable(ctx, why)) return std::nullopt;
  auto m = match_row_loops(ctx, why);
  if (!m) return std::nullopt;
  for (const RowLoop& l : m->loops)
    if (l.scan) {
      why = "a running sum read inside its loop is written by warp-per-row only";
      return std::nullopt;
    }
  for (const RowLoop& l : m->loops)
    for (const Accumulator& a : l.accumulators)
      if (a.op == Combine::OnlineMax || a.op == Combine::OnlineSum || a.op == Combine::ArgValue || is_arg_index(a.op)) {
        why = "an online softmax or arg-max pair is combined by warp-per-row only";
        return std::nullopt;
      }
  Plan p{*m, column_walk(ctx, *m)};
  if (p.example.empty()) {
    why = "no loop walks down columns (consecutive threads at consecutive elements, the counter stepping rows)";
    return std::nullopt;
  }
  if (m->region.bounds.size() != 1) {
    why = "the guard checks more than the column";
    return std::nullopt;
  }
  for (const Stmt* s : m->region.body)
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls()) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (!v || !(v->getType()->isScalarType()) || v->getType()->isReferenceType() ||
            v->getType()->getContainedAutoType()) {
          why = "a declaration in the guarded body is not of a spelled scalar or pointer type";
          return std::nullopt;
        }
      }
  return p;
}

class ColumnBlock final : public Rewrite {
 public:
  const char* name() const override { return "column-block"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t lanes : find_rewrite(name())->params[0].values) {
      if (!launch_bounds_admit(ctx, 32 * lanes, why)) continue;
      Proposal pr;
      pr.step = {name(), {{"lanes", lanes}}};
      pr.motivation = "each column `" + p->example + "` walks gets " + std::to_string(lanes) +
                      " threads along y, 32 columns per warp (128 contiguous bytes per row and step); the column's "
                      "reductions meet in shared memory";
      // On warp-per-row's scale (2.0 for a coalesced walk, x1.6 for its
      // interleaved 8 lanes, measured 3.5-3.8x): a little above it, for full
      // lines and up to 32 threads per column. Not yet measured.
      pr.predicted_gain = lanes == 32 ? 3.4 : lanes == 16 ? 3.3 : 3.25;
      r.proposals.push_back(pr);
    }
    if (r.proposals.empty()) return CheckResult::refuse(why);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const Match& m = p->m;
    const std::int64_t lanes = param(step, "lanes");
    if (lanes < 2 || lanes > 32 || (lanes & (lanes - 1)) != 0) {
      error = "lanes must be a power of two from 2 to 32";
      return false;
    }
    const std::string L = std::to_string(lanes);
    const std::string lane = fresh_name(ctx.file, "lane"), active = fresh_name(ctx.file, "active");
    std::map<Combine, std::string> helpers;
    for (const RowLoop& l : m.loops)
      for (const Accumulator& a : l.accumulators)
        if (!helpers.count(a.op))
          helpers[a.op] = fresh_name(ctx.file, std::string("column_") + combine_stem(a.op) +
                                                   (a.op == Combine::MaxIf || a.op == Combine::MinIf ? "_if" : ""));
    auto bound = ctx.text(m.region.bounds.begin()->second);
    if (!bound) {
      error = "the column bound is spelled in a macro";
      return false;
    }
    std::string body = "{\n  // Rewritten by warplens (column-block): " + L +
                       " lanes along y share each column's walk; the guard is a flag so that every thread reaches "
                       "the combines.\n";
    for (const Stmt* s : m.region.prologue) {
      auto t = statement_text(ctx, s);
      if (!t) {
        error = "a declaration before the guard is spelled in a macro";
        return false;
      }
      body += "  " + *t + "\n";
    }
    body += "  const int " + lane + " = static_cast<int>(threadIdx.y);\n";
    body += "  const bool " + active + " = " + m.row.var->getNameAsString() + " < (" + *bound + ");\n";
    std::set<const Stmt*> lane0(m.lane0.begin(), m.lane0.end()), uniform(m.uniform.begin(), m.uniform.end());
    const Stmt* last = m.region.body.back();
    for (const Stmt* s : m.region.body) {
      if (const auto* ds = dyn_cast<DeclStmt>(s)) {
        for (const Decl* d : ds->decls()) {
          const auto* v = cast<VarDecl>(d);
          const std::string type = declared_type_spelling(ctx, v, false);
          const std::string bare = declared_type_spelling(ctx, v, true);
          if (!v->getInit()) {
            body += "  " + type + " " + v->getNameAsString() + ";\n";
            continue;
          }
          auto init = ctx.text(v->getInit());
          if (!init) {
            error = "a declaration's initialiser is spelled in a macro";
            return false;
          }
          body += "  " + type + " " + v->getNameAsString() + " = " + active + " ? static_cast<" + bare + ">(" + *init +
                  ") : static_cast<" + bare + ">(0);\n";
        }
        continue;
      }
      const auto loop = std::find_if(m.loops.begin(), m.loops.end(), [&](const RowLoop& l) { return l.loop == s; });
      if (loop != m.loops.end()) {
        for (const Accumulator& a : loop->accumulators)
          if (a.op == Combine::Add) body += "  if (" + lane + " != 0) " + a.var->getNameAsString() + " = 0;\n";
        auto start = ctx.text(loop->counter.init);
        if (!start) {
          error = "a loop header is spelled in a macro";
          return false;
        }
        std::map<const Stmt*, std::string> nodes = {
            {loop->counter.init, "(" + *start + ") + " + lane},
            {loop->loop->getInc(), loop->counter.var->getNameAsString() + " += " + L}};
        auto t = statement_text(ctx, loop->loop, nodes);
        if (!t) {
          error = "a loop is spelled in a macro";
          return false;
        }
        body += "  if (" + active + ") {\n    " + *t + "\n  }\n";
        for (const Accumulator& a : loop->accumulators)
          body += "  " + a.var->getNameAsString() + " = " + helpers[a.op] + "(" + a.var->getNameAsString() + ");\n";
        if (loop->writes && s != last) body += "  __syncthreads();\n";
        continue;
      }
      auto t = statement_text(ctx, s);
      if (!t) {
        error = "a statement is spelled in a macro";
        return false;
      }
      if (lane0.count(s)) {
        body += "  if (" + active + " && " + lane + " == 0) {\n    " + *t + "\n  }\n";
        if (s != last) body += "  __syncthreads();\n";
      } else if (uniform.count(s)) {
        body += "  if (" + active + ") {\n    " + *t + "\n  }\n";
      } else {
        error = "a statement of the column's work is neither a loop, a declaration, nor classified";
        return false;
      }
    }
    body += "}";
    if (!out.edits.replace(ctx.body, body)) {
      error = out.edits.error();
      return false;
    }
    std::string helper_text;
    for (const auto& [op, n] : helpers) helper_text += column_helper(n, op);
    if (!helper_text.empty() && !insert_before_kernel(ctx, out.edits, helper_text)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{32, lanes, 1};
    change.thread_scale[1] = {lanes, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("blocks of 32 columns x " + L + " lanes; the column index keeps its spelling (blockDim.x is "
                        "32 now), lane y takes every " + L + "th row of the column's loops");
    out.notes.push_back("the guard became a flag: every statement of the column's work runs under it (declarations "
                        "take 0 for a column that does not exist, reading nothing), and the combines and barriers run "
                        "in every thread at the kernel's top level, the same number of times");
    out.notes.push_back("reductions combine by sum, max or min through one shared slot per thread, read in lane "
                        "order, so every lane holds the column's total; stores outside loops run in lane 0; a "
                        "barrier follows every storing statement that is not the last");
    for (const RowLoop& l : m.loops)
      for (const Accumulator& a : l.accumulators)
        if (a.op == Combine::Add && reorders_rounding(a.var->getType()))
          out.reassociation = combine_reassociations(out.reassociation, sum_terms(ctx, l.end));
    return true;
  }
};

}  // namespace

const Rewrite& column_block_rewrite() {
  static const ColumnBlock r;
  return r;
}

}  // namespace warplens::agent::rw
