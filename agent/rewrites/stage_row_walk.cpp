// stage-row-walk: a thread-per-row kernel whose thread walks its own row
// with a serial loop (a recurrence such as the Thomas algorithm's sweeps, an
// IIR filter, a running product: anything warp-per-row cannot split) reads
// and writes `p[t * S + i + c]`: at each step the 32 lanes of a warp touch
// addresses S elements apart, 32 sectors for 128 useful bytes. Here the
// loop runs in chunks of C iterations: the block first copies, for each
// array the loop touches, the chunk's stretch of every row of the block into
// shared memory with consecutive threads at consecutive elements (coalesced),
// then each thread runs the chunk's iterations on shared memory, and the
// stretches the loop wrote go back the same coalesced way.
//
// Applies when, all checked:
//   - one 1-D global index t (thread identity only through it), a plain
//     bounds guard `t < T` (or its early-exit form), no shared memory,
//     barrier, warp primitive or atomic, no return in the guarded body;
//   - the loops to stage are `for` statements at the top level of the
//     guarded body with a counter i stepped by one up or down in the header
//     only, uniform bounds over parameters, constants and declarations
//     before the guard; no nested loop, break, goto, pointer dereference
//     other than subscripts, or call with a pointer or reference argument;
//   - every global access in the kernel is `p[t * S + c]` outside those
//     loops and `p[t * S + i + c]` in them (followed through locals and row
//     pointers by the analysis' lowering), with one uniform S and small
//     constant c, p an unmodified pointer parameter; per loop and array the
//     offsets accessed on every iteration are contiguous and the others
//     within them, so every staged element is one the loop itself reads or
//     writes in that chunk (nothing outside the original's footprint is read
//     or written);
//   - every launch has a 1-D grid and block.
// Checked at run time, uniformly for the whole grid (else the original code
// runs unchanged): the block is the one declared, S > 0, each written
// array's per-row footprint is shorter than S (rows of different threads
// never share an element), and no written array's footprint over all rows
// overlaps any other array's (no aliasing). Then a staged element is read
// and written by its row's thread only, while the block holds it: the order
// of that thread's accesses is the original's, and the barriers between
// chunks make each flush visible before the next load.
#include <algorithm>
#include <functional>

#include "agent/rewrites/stage_row_plan.h"
#include "agent/rewrites/rewrite.h"
#include "agent/rewrites/row_loops.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

constexpr std::int64_t kStaticSharedBytes = 48 * 1024;

// Pitch of a staged row: the stretch's length made odd, so that both the
// coalesced copy (consecutive elements of a row) and the walk (one row per
// thread, the same element) spread over the banks.
std::int64_t pitch(std::int64_t width) { return width % 2 == 1 ? width : width + 1; }

// Bytes of shared memory the plan needs at (block, chunk): the largest loop.
std::int64_t shared_bytes(const StageRowPlan& p, std::int64_t block, std::int64_t chunk) {
  std::int64_t most = 0;
  for (const StagedLoop& w : p.loops) {
    std::int64_t bytes = 0;
    for (const auto& [arr, f] : footprints(w)) {
      const std::int64_t size = p.info(arr)->size;
      bytes = (bytes + 15) / 16 * 16 + block * pitch(chunk + f.hi - f.lo) * size;
    }
    most = std::max(most, bytes);
  }
  return most;
}

std::string ll(std::int64_t v) { return "(long long)(" + std::to_string(v) + ")"; }

class StageRowWalk final : public Rewrite {
 public:
  const char* name() const override { return "stage-row-walk"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan_stage_row_walk(ctx, why);
    if (!p) return CheckResult::refuse(why);
    // Rows whose loops warp-per-row splits over lanes (reductions, scans,
    // element-wise passes) are walked in parallel there, which a staged
    // serial walk cannot match (H100, 2026-12-07: row_cdf 6.25x against
    // 1.45x at best staged, softmax_backward_rows 9.95x against 0.69x).
    // Staging is for recurrences no lane split can take.
    std::string row_why;
    if (match_row_loops(ctx, row_why))
      return CheckResult::refuse("warp-per-row splits these row loops over lanes (a parallel walk beats a staged "
                                 "serial one)");
    CheckResult r;
    const RewriteInfo* info = find_rewrite(name());
    for (std::int64_t block : info->params[0].values)
      for (std::int64_t chunk : info->params[1].values) {
        if (shared_bytes(*p, block, chunk) > kStaticSharedBytes) {
          why = "the staged stretches need more than 48 KB of shared memory";
          continue;
        }
        if (!launch_bounds_admit(ctx, block, why)) continue;
        Proposal pr;
        pr.step = {name(), {{"block", block}, {"chunk", chunk}}};
        const StagedAccess& ex = p->loops.front().accesses.front();
        pr.motivation = "each thread walks its own row (`" + ctx.text(ex.expr).value_or("?") +
                        "`): a warp's lanes are a row apart at every step; " + std::to_string(chunk) +
                        " steps of every row of the block go through shared memory, copied coalesced";
        // A strided walk uses one 4-byte word of each 32-byte sector; staged,
        // the copies are coalesced. Measured on the H100 for Thomas' sweeps
        // at 3% of copy bandwidth before; not yet measured after.
        pr.predicted_gain = 6.0 - (block == 64 ? 0 : 0.1) - (chunk == 32 ? 0 : 0.05);
        r.proposals.push_back(pr);
      }
    if (r.proposals.empty()) return CheckResult::refuse(why);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan_stage_row_walk(ctx, error);
    if (!p) return false;
    const std::int64_t block = param(step, "block"), chunk = param(step, "chunk");
    if (block < 32 || block > 1024 || block % 32 != 0 || chunk < 4 || chunk > 256) {
      error = "block must be a multiple of 32 up to 1024 and chunk 4 to 256";
      return false;
    }
    const std::int64_t bytes = shared_bytes(*p, block, chunk);
    if (bytes > kStaticSharedBytes) {
      error = "the staged stretches need " + std::to_string(bytes) + " bytes of shared memory (48 KB at most)";
      return false;
    }
    const std::string S = fresh_name(ctx.file, "S"), T = fresh_name(ctx.file, "T"), ok = fresh_name(ctx.file, "ok"),
                      active = fresh_name(ctx.file, "active"), stage = fresh_name(ctx.file, "stage"),
                      disjoint = fresh_name(ctx.file, "disjoint"), c0 = fresh_name(ctx.file, "c"),
                      clo = fresh_name(ctx.file, "clo"), chi = fresh_name(ctx.file, "chi"),
                      e = fresh_name(ctx.file, "e"), row = fresh_name(ctx.file, "row"), g = fresh_name(ctx.file, "g"),
                      it = fresh_name(ctx.file, "i"), lo = fresh_name(ctx.file, "lo"), hi = fresh_name(ctx.file, "hi"),
                      rr = fresh_name(ctx.file, "r"), jj = fresh_name(ctx.file, "j");
    const std::string B = std::to_string(block), C = std::to_string(chunk);

    // Per array, the footprint of a row's thread over the whole kernel:
    // [t*S + flo, t*S + fhi], as C expressions (min/max over the loops).
    std::map<const ParmVarDecl*, std::pair<std::vector<std::string>, std::vector<std::string>>> extent;
    for (const StagedAccess& r : p->outside) {
      extent[r.array].first.push_back(ll(r.offset));
      extent[r.array].second.push_back(ll(r.offset));
    }
    for (std::size_t k = 0; k < p->loops.size(); ++k)
      for (const auto& [arr, f] : footprints(p->loops[k])) {
        extent[arr].first.push_back("(" + p->loops[k].lo + ") + " + ll(f.lo));
        extent[arr].second.push_back("(" + p->loops[k].hi + ") + " + ll(f.hi));
      }
    auto fold = [](const std::vector<std::string>& v, const char* fn) {
      std::string s = v.front();
      for (std::size_t k = 1; k < v.size(); ++k) s = std::string(fn) + "(" + s + ", " + v[k] + ")";
      return s;
    };

    std::string body = "{\n  // Rewritten by warplens (stage-row-walk): each row loop runs in chunks of " + C +
                       " steps; the block copies the chunk's stretch of every row through shared memory, coalesced.\n";
    for (const Stmt* s : p->region.prologue) {
      auto t = statement_text(ctx, s);
      if (!t) {
        error = "a declaration before the guard is spelled in a macro";
        return false;
      }
      body += "  " + *t + "\n";
    }
    body += "  const long long " + S + " = " + p->stride + ";\n";
    body += "  const long long " + T + " = (long long)(" + p->bound + ");\n";
    // The run-time conditions: the same value in every thread of the grid.
    body += "  bool " + ok + " = blockDim.x == " + B + " && " + S + " > 0;\n";
    for (const StagedArray& a : p->arrays) {
      const auto& [los, his] = extent[a.param];
      body += "  const long long " + lo + "_" + a.param->getNameAsString() + " = " + fold(los, "min") + ";\n";
      body += "  const long long " + hi + "_" + a.param->getNameAsString() + " = " + fold(his, "max") + ";\n";
      if (a.written)
        body += "  " + ok + " = " + ok + " && " + hi + "_" + a.param->getNameAsString() + " - " + lo + "_" +
                a.param->getNameAsString() + " < " + S + ";  // rows never share an element\n";
    }
    for (std::size_t x = 0; x < p->arrays.size(); ++x)
      for (std::size_t y = x + 1; y < p->arrays.size(); ++y) {
        const StagedArray &a = p->arrays[x], &b = p->arrays[y];
        if (!a.written && !b.written) continue;
        const std::string an = a.param->getNameAsString(), bn = b.param->getNameAsString();
        body += "  " + ok + " = " + ok + " && " + disjoint + "(" + an + ", " + lo + "_" + an + ", (" + T + " - 1) * " + S +
                " + " + hi + "_" + an + ", sizeof(" + an + "[0]), " + bn + ", " + lo + "_" + bn + ", (" + T + " - 1) * " +
                S + " + " + hi + "_" + bn + ", sizeof(" + bn + "[0]));\n";
      }
    // The original, for launches the conditions do not hold for.
    std::string original;
    {
      std::vector<const Stmt*> rest{p->region.guard};
      if (p->region.early_exit) rest.insert(rest.end(), p->region.body.begin(), p->region.body.end());
      for (const Stmt* s : rest) {
        auto t = statement_text(ctx, s);
        if (!t) {
          error = "a statement is spelled in a macro";
          return false;
        }
        original += "    " + *t + "\n";
      }
    }
    body += "  if (!" + ok + ") {  // as written\n" + original + "    return;\n  }\n";
    const std::string cond = ctx.text(p->region.guard->getCond()).value_or("");
    if (cond.empty()) {
      error = "the guard is spelled in a macro";
      return false;
    }
    body += "  const bool " + active + " = " + (p->region.early_exit ? "!(" + cond + ")" : "(" + cond + ")") + ";\n";
    body += "  __shared__ __align__(16) unsigned char " + stage + "[" + std::to_string(std::max<std::int64_t>(bytes, 16)) +
            "];\n";
    for (const Stmt* s : p->region.body) {
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
      const auto w = std::find_if(p->loops.begin(), p->loops.end(), [&](const StagedLoop& l) { return l.loop == s; });
      if (w == p->loops.end()) {
        auto text = statement_text(ctx, s);
        if (!text) {
          error = "a statement is spelled in a macro";
          return false;
        }
        body += "  if (" + active + ") {\n    " + *text + "\n  }\n";
        continue;
      }
      // A staged loop.
      const auto fps = footprints(*w);
      std::map<const ParmVarDecl*, std::string> tile;
      std::string decls;
      std::int64_t at = 0;
      for (const auto& [arr, f] : fps) {
        const StagedArray* info = p->info(arr);
        at = (at + 15) / 16 * 16;
        tile[arr] = fresh_name(ctx.file, "s_" + arr->getNameAsString());
        decls += "    " + info->element + "* const " + tile[arr] + " = reinterpret_cast<" + info->element + "*>(" +
                 stage + " + " + std::to_string(at) + ");  // " + B + " rows x " +
                 std::to_string(pitch(chunk + f.hi - f.lo)) + "\n";
        at += block * pitch(chunk + f.hi - f.lo) * info->size;
      }
      std::map<const Stmt*, std::string> nodes;
      for (const StagedAccess& r : w->accesses) {
        const StagedFootprint& f = fps.at(r.array);
        nodes[r.expr] = tile[r.array] + "[threadIdx.x * " + std::to_string(pitch(chunk + f.hi - f.lo)) + " + (int)(" +
                        it + " - " + clo + ") + " + std::to_string(r.offset - f.lo) + "]";
      }
      auto loop_body = statement_text(ctx, w->loop->getBody(), nodes);
      if (!loop_body) {
        error = "a loop body is spelled in a macro";
        return false;
      }
      const std::string i = w->counter.var->getNameAsString();
      const std::string ctype = declared_type_spelling(ctx, w->counter.var, true);
      // A chunk copies in the whole stretch of every array, also of one the
      // loop writes before reading (`cp[k - 1]` beside `cp[k] = ...`):
      // copying in only the element behind the chunk was measured slower on
      // the H100 (thomas_batched 4.36x to 6.53x over six candidates against
      // 6.14x to 6.30x, 2026-12-07), the write-back's partial sectors then
      // missing in L2 instead of merging with lines the copy-in brought.
      auto copy_loop = [&](const ParmVarDecl* arr, const StagedFootprint& f, const std::string& first_g, std::int64_t width,
                           std::int64_t last_offset, bool load) {
        const std::int64_t P = pitch(chunk + f.hi - f.lo);
        const std::string W = std::to_string(width), a = arr->getNameAsString();
        std::string s = "      for (int " + e + " = threadIdx.x; " + e + " < " + B + " * " + W + "; " + e + " += " + B +
                        ") {\n";
        s += "        const int " + rr + " = " + e + " / " + W + ", " + jj + " = " + e + " % " + W + ";\n";
        s += "        const long long " + row + " = (long long)blockIdx.x * " + B + " + " + rr + ", " + g + " = " +
             first_g + " + " + jj + ";\n";
        s += "        if (" + row + " < " + T + " && " + g + " <= " + chi + " + " + ll(last_offset) + ") ";
        const std::string shared = tile.at(arr) + "[" + rr + " * " + std::to_string(P) + " + (int)(" + g + " - " + clo +
                                   ") + " + std::to_string(-f.lo) + "]";
        const std::string global = a + "[" + row + " * " + S + " + " + g + "]";
        s += load ? shared + " = " + global + ";\n" : global + " = " + shared + ";\n";
        s += "      }\n";
        return s;
      };
      auto copy = [&](bool load) {
        std::string s;
        for (const auto& [arr, f] : fps) {
          if (!load) {
            if (f.written) s += copy_loop(arr, f, clo + " + " + ll(f.wlo), chunk + f.whi - f.wlo, f.whi, false);
            continue;
          }
          s += copy_loop(arr, f, clo + " + " + ll(f.lo), chunk + f.hi - f.lo, f.hi, true);
        }
        return s;
      };
      body += "  {  // `" + i + "` in chunks of " + C + (w->down ? ", downwards" : "") + "\n";
      body += decls;
      body += "    const long long " + lo + " = " + w->lo + ", " + hi + " = " + w->hi + ";\n";
      if (!w->down) {
        body += "    for (long long " + c0 + " = " + lo + "; " + c0 + " <= " + hi + "; " + c0 + " += " + C + ") {\n";
        body += "      const long long " + clo + " = " + c0 + ", " + chi + " = min(" + c0 + " + " + C + " - 1, " + hi + ");\n";
      } else {
        body += "    for (long long " + c0 + " = " + hi + "; " + c0 + " >= " + lo + "; " + c0 + " -= " + C + ") {\n";
        body += "      const long long " + chi + " = " + c0 + ", " + clo + " = max(" + c0 + " - " + C + " + 1, " + lo + ");\n";
      }
      body += "      __syncthreads();  // earlier writes of the block are visible; the stage is free\n";
      body += copy(true);
      body += "      __syncthreads();\n";
      body += "      if (" + active + ") {\n";
      if (!w->down)
        body += "        for (long long " + it + " = " + clo + "; " + it + " <= " + chi + "; ++" + it + ") {\n";
      else
        body += "        for (long long " + it + " = " + chi + "; " + it + " >= " + clo + "; --" + it + ") {\n";
      body += "          " + std::string(w->counter.declared_in_header ? "const " + ctype + " " : "") + i +
              " = static_cast<" + ctype + ">(" + it + ");\n";
      body += "          " + *loop_body + "\n        }\n      }\n";
      body += "      __syncthreads();\n";
      body += copy(false);
      body += "    }\n    __syncthreads();  // the stretches written back are visible to what follows\n  }\n";
    }
    body += "}";
    if (!out.edits.replace(ctx.body, body)) {
      error = out.edits.error();
      return false;
    }
    const std::string helper =
        "// Added by warplens (stage-row-walk): whether two arrays' footprints [lo, hi] (elements) share no byte.\n"
        "__device__ __forceinline__ bool " + disjoint +
        "(const void* a, long long alo, long long ahi, unsigned long long asz,\n"
        "    const void* b, long long blo, long long bhi, unsigned long long bsz) {\n"
        "  const long long pa = (long long)a, pb = (long long)b;\n"
        "  return pa + (ahi + 1) * (long long)asz <= pb + blo * (long long)bsz ||\n"
        "         pb + (bhi + 1) * (long long)bsz <= pa + alo * (long long)asz;\n"
        "}\n\n";
    if (!insert_before_kernel(ctx, out.edits, helper)) {
      error = out.edits.error();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{block, 1, 1};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("blocks of " + B + " threads; each row loop runs in chunks of " + C +
                        " steps, the chunk's stretch of every row of the block copied into shared memory with "
                        "consecutive threads at consecutive elements, and the written stretches copied back the same way");
    out.notes.push_back("every staged element is one the loop reads or writes in that chunk (contiguous offsets on "
                        "every iteration), so nothing outside the original's footprint is touched");
    out.notes.push_back("checked at run time for the whole grid, else the original code runs: the block size, S > 0, "
                        "each written array's per-row footprint shorter than S, and no written array overlapping "
                        "another");
    out.notes.push_back("the guard became a flag: every thread reaches the barriers; inactive rows load and store "
                        "nothing");
    return true;
  }
};

}  // namespace

const Rewrite& stage_row_walk_rewrite() {
  static const StageRowWalk r;
  return r;
}

}  // namespace warplens::agent::rw
