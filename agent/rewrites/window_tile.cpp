// window-tile: a 2-D kernel whose thread (x, y) reads one input array over
// a window of loops with constant bounds, a convolution's
//   for (ky = 0; ky < K; ++ky) { int iy = y + ky - R; if (iy < 0 || iy >= H) continue;
//     for (kx = 0; kx < K; ++kx) { ...; acc += in[iy * W + ix] * w[ky * K + kx]; } }
// (zero padding spelled as `continue`, or no check at all on a padded
// input), stages the block's neighbourhood, halo included, in shared memory
// once: each input element is read from global memory once per block
// instead of once per window position that covers it (K * K times). The
// fixed-offset form (no loops) is stencil-tile's; this is its loop form.
//
// Applies when plan_window() matches (window_plan.h lists the rules).
// Then the thread at (X, Y) reads S at window iteration (k...) exactly when
// the guard holds at (X, Y) and no skip condition holds there, and what it
// reads is the cell (Y + dy, X + dx). A tile cell is loaded exactly when
// some thread of the block reads it: for each window iteration the thread
// it maps to is (cell - offset), and the guard and the skip conditions are
// evaluated for that thread and iteration (they read no memory). So no
// element the original leaves alone is read, each read finds the value
// the original read, and a barrier orders the loads before the work. The
// block becomes 32 x `rows` (the grid recomputed; the extra threads fail
// the guard).
#include "agent/rewrites/rewrite.h"
#include "agent/rewrites/window_plan.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

std::string offset_text(const VarDecl* counter, std::int64_t coef, std::int64_t off) {
  std::string t = counter ? "(" + std::to_string(coef) + ") * " + counter->getNameAsString() : "0";
  return t + " + (" + std::to_string(off) + ")";
}

// A clamped coordinate is loaded clamped, as the read would have it.
std::optional<std::string> clamp_text(const std::optional<Clamp>& c, const std::string& v) {
  if (!c) return v;
  auto lo = render_index(c->lo, "", ""), hi = render_index(c->hi, "", "");
  if (!lo || !hi) return std::nullopt;
  const std::string L = "(long long)(" + *lo + ")", H = "(long long)(" + *hi + ")", V = "(long long)" + v;
  switch (c->form) {
    case Clamp::Form::MinOfMax:
      return "min(max(" + V + ", " + L + "), " + H + ")";
    case Clamp::Form::MaxOfMin:
      return "max(min(" + V + ", " + H + "), " + L + ")";
    case Clamp::Form::Chain: {
      const std::string& first = c->lo_first ? L : H;
      const std::string& second = c->lo_first ? H : L;
      return "(" + V + " " + c->first_op + " " + first + " ? " + first + " : (" + V + " " + c->second_op + " " +
             second + " ? " + second + " : " + V + "))";
    }
  }
  return std::nullopt;
}

Polynomial global_index(int d) {
  return Polynomial::symbol(builtin_symbol(SymbolKind::BlockIdx, d)) *
             Polynomial::symbol(builtin_symbol(SymbolKind::BlockDim, d)) +
         Polynomial::symbol(builtin_symbol(SymbolKind::ThreadIdx, d));
}

// The loops deciding whether the cell (gy, gx) is needed: per window
// iteration, the thread it maps the cell to, its guard and the checks
// before the read, as the work has them. `gy` empty for a line.
std::optional<std::string> need_check(const KernelContext& ctx, const WindowPlan& p, const std::string& gx,
                                      const std::string& gy, const std::string& need, std::string indent) {
  const VarDecl* x = p.sg.grid.x.var;
  const VarDecl* y = p.sg.grid.y.var;
  std::string b = indent + "bool " + need + " = false;\n";
  for (const WindowLoop& l : p.loops) {
    const std::string k = l.counter->getNameAsString();
    b += indent + "for (" + l.counter->getType().getUnqualifiedType().getAsString() + " " + k + " = " +
         std::to_string(l.first) + "; " + k + " <= " + std::to_string(l.last) + " && !" + need + "; ++" + k +
         ") {\n";
    indent += "  ";
  }
  b += indent + "const " + x->getType().getUnqualifiedType().getAsString() + " " + x->getNameAsString() + " = " + gx +
       " - (" + offset_text(p.col_counter, p.col_coef, p.ox) + ");\n";
  if (y)
    b += indent + "const " + y->getType().getUnqualifiedType().getAsString() + " " + y->getNameAsString() + " = " +
         gy + " - (" + offset_text(p.row_counter, p.row_coef, p.oy) + ");\n";
  b += indent + "if (!(" + p.sg.guard + ")) continue;\n";
  for (const WindowPlan::Check& check : p.checks) {
    auto t = check.stmt ? statement_text(ctx, check.stmt) : ctx.text(check.required);
    if (!t) return std::nullopt;
    b += indent + (check.stmt ? *t : "if (!(" + *t + ")) continue;") + "\n";
  }
  b += indent + need + " = true;\n";
  for (std::size_t i = 0; i < p.loops.size(); ++i) {
    indent.resize(indent.size() - 2);
    b += indent + "}\n";
  }
  return b;
}

// The work under the original guard, the read replaced by `cell`.
std::optional<std::string> guarded_work(const KernelContext& ctx, const WindowPlan& p, const std::string& cell) {
  std::map<const Stmt*, std::string> nodes{{p.read, cell}};
  std::string work;
  for (const Stmt* s : p.sg.grid.region.body) {
    auto t = statement_text(ctx, s, nodes);
    if (!t) return std::nullopt;
    work += "    " + *t + "\n";
  }
  return "  if (" + p.sg.guard + ") {\n" + work + "  }\n}";
}

std::optional<std::string> prologue_text(const KernelContext& ctx, const WindowPlan& p) {
  std::string b;
  for (const Stmt* s : p.sg.grid.region.prologue) {
    auto t = ctx.text(s);
    if (!t) return std::nullopt;
    b += "  " + *t + "\n";
  }
  return b;
}

void add_notes(const WindowPlan& p, RewriteOutput& out) {
  out.notes.push_back("the only read of `" + p.array->getNameAsString() + "` in the window loops is at " +
                      (p.line ? "x + dx (x " : "(y + dy, x + dx) with one row pitch (x ") +
                      std::to_string(p.dx_min) + ".." + std::to_string(p.dx_max) +
                      (p.line ? "" : ", y " + std::to_string(p.dy_min) + ".." + std::to_string(p.dy_max)) +
                      "); the kernel never writes it and nothing it writes reaches it");
  out.notes.push_back("a tile cell is loaded only when, for some window iteration, the thread it maps the cell to "
                      "passes the guard and the checks before the read (they read no memory), so no element the "
                      "original leaves alone is read; a barrier orders the loads before the work");
  out.notes.push_back("the work runs under the original guard; the launches cover the bounds, and the new grid "
                      "starts at least the original threads");
}

// window-tile (2-D) and window-tile-1d: the same analysis and tile, a
// 32 x rows block or a `block`-thread line.
class WindowTile final : public Rewrite {
 public:
  explicit WindowTile(bool line) : line_(line) {}
  const char* name() const override { return line_ ? "window-tile-1d" : "window-tile"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto p = plan_window(ctx, line_, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t v : find_rewrite(name())->params[0].values) {
      Proposal pr;
      pr.step = {name(), {{line_ ? "block" : "rows", v}}};
      pr.motivation = std::to_string(p->taps) + " window reads of `" + p->array->getNameAsString() +
                      "` per element (offsets x " + std::to_string(p->dx_min) + ".." + std::to_string(p->dx_max) +
                      (line_ ? "): a block of " + std::to_string(v) + " threads stages its stretch"
                             : ", y " + std::to_string(p->dy_min) + ".." + std::to_string(p->dy_max) + "): a 32x" +
                                   std::to_string(v) + " block stages its neighbourhood") +
                      " once in shared memory";
      // A line's neighbours share cache lines already (L1 serves most of
      // them): a smaller gain expected than for rows above and below.
      pr.predicted_gain = line_ ? 1.15 + 0.01 * static_cast<double>(std::min<std::int64_t>(p->taps, 25))
                                : 1.35 + 0.03 * static_cast<double>(std::min<std::int64_t>(p->taps, 25)) +
                                      (v == 8 ? 0.01 : 0.0);
      r.proposals.push_back(pr);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan_window(ctx, line_, error);
    if (!p) return false;
    const auto bytes = ctx.ctx().getTypeSizeInChars(p->array->getType()->getPointeeType()).getQuantity();
    const std::string tile = fresh_name(ctx.file, "tile"), c = fresh_name(ctx.file, "c"),
                      x0 = fresh_name(ctx.file, "x0"), gx = fresh_name(ctx.file, "gx"),
                      need = fresh_name(ctx.file, "needed");
    const std::string xt = p->sg.grid.x.var->getType().getUnqualifiedType().getAsString();
    const std::string dx = offset_text(p->col_counter, p->col_coef, p->ox),
                      dy = offset_text(p->row_counter, p->row_coef, p->oy);
    auto prologue = prologue_text(ctx, *p);
    if (!prologue) {
      error = "a declaration is spelled in a macro";
      return false;
    }
    std::string b;
    std::string cell;
    Dim3 block;
    if (line_) {
      const std::int64_t threads = param(step, "block");
      if (threads != 128 && threads != 256 && threads != 512) {
        error = "block must be 128, 256 or 512";
        return false;
      }
      const std::int64_t tw = threads + p->dx_max - p->dx_min;
      const std::string TW = std::to_string(tw), B = std::to_string(threads);
      auto gx_load = clamp_text(p->col_clamp, gx);
      auto load_index = gx_load ? render_index(p->base + global_index(0), "", *gx_load) : std::nullopt;
      if (!load_index) {
        error = "the window read's index cannot be spelled over the tile's cell";
        return false;
      }
      auto check = need_check(ctx, *p, gx, "", need, "      ");
      if (!check) {
        error = "a check before the window read is spelled in a macro";
        return false;
      }
      b = "{\n  // Rewritten by warplens (window-tile-1d): the block's " + TW + " elements of `" +
          p->array->getNameAsString() + "` in shared memory,\n  // each loaded when some thread's window reads it.\n";
      b += "  __shared__ " + p->type + " " + tile + "[" + TW + "];\n" + *prologue;
      b += "  {\n    const " + xt + " " + x0 + " = static_cast<" + xt + ">((long long)blockIdx.x * " + B + " + (" +
           std::to_string(p->dx_min) + "));\n";
      b += "    for (int " + c + " = threadIdx.x; " + c + " < " + TW + "; " + c + " += " + B + ") {\n";
      b += "      const " + xt + " " + gx + " = " + x0 + " + " + c + ";\n" + *check;
      b += "      if (" + need + ") " + tile + "[" + c + "] = " + p->array->getNameAsString() + "[" + *load_index +
           "];\n    }\n  }\n  __syncthreads();\n";
      cell = tile + "[(int)threadIdx.x + " + dx + " - (" + std::to_string(p->dx_min) + ")]";
      block = Dim3{threads, 1, 1};
      if (tw * bytes > 32 * 1024) {
        error = "the tile would take more than 32 KiB of shared memory";
        return false;
      }
    } else {
      const std::int64_t rows = param(step, "rows");
      if (rows != 4 && rows != 8 && rows != 16 && rows != 32) {
        error = "rows must be 4, 8, 16 or 32";
        return false;
      }
      const std::int64_t th = rows + p->dy_max - p->dy_min, tw = 32 + p->dx_max - p->dx_min;
      if (th * tw * bytes > 32 * 1024) {
        error = "the tile would take more than 32 KiB of shared memory";
        return false;
      }
      const std::string yt = p->sg.grid.y.var->getType().getUnqualifiedType().getAsString();
      const std::string tx = fresh_name(ctx.file, "tx"), ty = fresh_name(ctx.file, "ty"),
                        y0 = fresh_name(ctx.file, "y0"), gy = fresh_name(ctx.file, "gy");
      const std::string TW = std::to_string(tw), TH = std::to_string(th), R = std::to_string(rows);
      auto gy_load = clamp_text(p->row_clamp, gy), gx_load = clamp_text(p->col_clamp, gx);
      auto load_index = gy_load && gx_load
                            ? render_index(p->base + p->pitch * global_index(1) + global_index(0), *gy_load, *gx_load)
                            : std::nullopt;
      if (!load_index) {
        error = "the window read's index cannot be spelled over the tile's cell";
        return false;
      }
      auto check = need_check(ctx, *p, gx, gy, need, "      ");
      if (!check) {
        error = "a check before the window read is spelled in a macro";
        return false;
      }
      b = "{\n  // Rewritten by warplens (window-tile): the block's " + TH + "x" + TW + " neighbourhood of `" +
          p->array->getNameAsString() + "` in shared memory,\n  // each cell loaded when some thread's window reads it.\n";
      b += "  __shared__ " + p->type + " " + tile + "[" + TH + "][" + TW + "];\n" + *prologue;
      b += "  {\n    const " + xt + " " + x0 + " = static_cast<" + xt + ">((long long)blockIdx.x * 32 + (" +
           std::to_string(p->dx_min) + "));\n";
      b += "    const " + yt + " " + y0 + " = static_cast<" + yt + ">((long long)blockIdx.y * " + R + " + (" +
           std::to_string(p->dy_min) + "));\n";
      b += "    for (int " + c + " = threadIdx.y * 32 + threadIdx.x; " + c + " < " + TH + " * " + TW + "; " + c +
           " += 32 * " + R + ") {\n";
      b += "      const int " + ty + " = " + c + " / " + TW + ", " + tx + " = " + c + " % " + TW + ";\n";
      b += "      const " + yt + " " + gy + " = " + y0 + " + " + ty + ";\n      const " + xt + " " + gx + " = " + x0 +
           " + " + tx + ";\n" + *check;
      b += "      if (" + need + ") " + tile + "[" + ty + "][" + tx + "] = " + p->array->getNameAsString() + "[" +
           *load_index + "];\n    }\n  }\n  __syncthreads();\n";
      cell = tile + "[(int)threadIdx.y + " + dy + " - (" + std::to_string(p->dy_min) + ")][(int)threadIdx.x + " + dx +
             " - (" + std::to_string(p->dx_min) + ")]";
      block = Dim3{32, rows, 1};
    }
    auto work = guarded_work(ctx, *p, cell);
    if (!work) {
      error = "the work is spelled in a macro";
      return false;
    }
    if (!out.edits.replace(ctx.body, b + *work)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = block;
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    add_notes(*p, out);
    return true;
  }

 private:
  bool line_;
};

}  // namespace

const Rewrite& window_tile_rewrite() {
  static const WindowTile r(/*line=*/false);
  return r;
}

const Rewrite& window_tile_1d_rewrite() {
  static const WindowTile r(/*line=*/true);
  return r;
}

}  // namespace warplens::agent::rw
