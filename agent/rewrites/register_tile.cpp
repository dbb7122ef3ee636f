// register-tile: the matrix-product shape of matmul_shape.h, computed by
// 16x16 blocks that each own a `tile` x `tile` piece of the output. Every
// thread keeps (tile/16) x (tile/16) outputs in registers; per step of 8 k
// values the block stages a tile x 8 slice of A and an 8 x tile slice of B in
// shared memory (16-byte vector loads where the operand is contiguous and
// aligned, checked at run time), and each thread combines tile/16 values of
// each from shared memory into its outputs: (tile/16)^2 multiply-adds per
// pair of shared loads instead of one per pair of global loads.
//
// Safety, all checked (matmul_shape.h) or by construction:
//   - the same (row, col) pairs are computed under the same guard: the
//     launches cover M and N, the grid is recomputed (scale 1/(tile/16) per
//     axis, block 16x16, declared) to cover them with tile x tile blocks, and
//     each output is stored only when `row < M && col < N`;
//   - each output accumulates the same terms E(A(row, k), B(k, col)) in the
//     same k order; out-of-range operand elements are never read (guarded
//     loads, zero-filled) and never accumulated (`k < K` on the last slice);
//   - declarations before the loop run per output, those that read memory
//     only under the guard; what follows the loop runs per output with the
//     accumulator's value, and may use only those declarations that do not
//     read memory (they are evaluated again there);
//   - E names only the two operands, parameters and constants; thread
//     identity only through row and col; no shared memory, barrier, warp
//     primitive or atomic in the original; no __launch_bounds__ (the block
//     becomes 256 threads).
#include "agent/rewrites/matmul_shape.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

const VarDecl* declared_var(const Stmt* s) {
  const auto* ds = dyn_cast<DeclStmt>(s);
  if (!ds || !ds->isSingleDecl()) return nullptr;
  return dyn_cast<VarDecl>(ds->getSingleDecl());
}

struct Plan {
  MatmulShape m;
  const Stmt* acc_decl = nullptr;
};

std::optional<Plan> plan(const KernelContext& ctx, std::string& why) {
  auto m = match_matmul(ctx, why);
  if (!m) return std::nullopt;
  Plan p;
  p.m = *m;
  if (ctx.kernel->hasAttr<CUDALaunchBoundsAttr>()) {
    why = "the kernel has __launch_bounds__ (the block becomes 16x16 threads)";
    return std::nullopt;
  }
  for (const Stmt* s : m->pre)
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (d == m->acc) p.acc_decl = s;
  if (!p.acc_decl || declared_var(p.acc_decl) != m->acc || !m->acc->getInit()) {
    why = "the accumulator is not declared (with its initial value) right before the loop";
    return std::nullopt;
  }
  // E: only the operands, parameters and constants.
  bool local = false;
  std::function<void(const Stmt*)> walk = [&](const Stmt* x) {
    if (!x || local) return;
    if (x == m->a.load || x == m->b.load) return;
    if (const auto* r = dyn_cast<DeclRefExpr>(x))
      if (const auto* v = dyn_cast<VarDecl>(r->getDecl()); v && v->hasLocalStorage() && !isa<ParmVarDecl>(v))
        local = true;
    for (const Stmt* c : x->children()) walk(c);
  };
  walk(m->temp ? m->temp->getInit() : m->value);  // (E itself names only the temporary: match_matmul)
  if (local) {
    why = "the accumulated expression uses locals besides the two operands";
    return std::nullopt;
  }
  // What follows the loop may use the declarations before it only when they
  // read no memory (they are evaluated again per output).
  for (const Stmt* s : m->pre_reads) {
    if (s == p.acc_decl) continue;
    for (const Decl* d : cast<DeclStmt>(s)->decls())
      if (const auto* v = dyn_cast<VarDecl>(d))
        for (const Stmt* post : m->post)
          if (refers_to(post, v)) {
            why = "what follows the loop uses `" + v->getNameAsString() + "`, declared from memory before it";
            return std::nullopt;
          }
  }
  return p;
}

class RegisterTile final : public Rewrite {
 public:
  const char* name() const override { return "register-tile"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    if (!launches_rewritable(ctx, why)) return CheckResult::refuse(why);
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    for (std::int64_t tile : find_rewrite(name())->params[0].values) {
      const std::int64_t per = tile / 16;
      Proposal pr;
      pr.step = {name(), {{"tile", tile}}};
      pr.motivation = "each thread reads a row of `" + p->m.a.param->getNameAsString() + "` and a column of `" +
                      p->m.b.param->getNameAsString() + "`: " + std::to_string(tile) + "x" + std::to_string(tile) +
                      " block tiles with " + std::to_string(per) + "x" + std::to_string(per) +
                      " outputs per thread in registers do " + std::to_string(per * per) +
                      " multiply-adds per pair of shared loads";
      pr.predicted_gain = tile == 128 ? 3.6 : 3.0;
      r.proposals.push_back(pr);
    }
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const MatmulShape& m = p->m;
    const std::int64_t tile = param(step, "tile");
    if (tile != 64 && tile != 128) {
      error = "tile must be 64 or 128";
      return false;
    }
    const std::int64_t per = tile / 16;  // outputs per thread along each axis
    const std::string T = std::to_string(tile), TM = std::to_string(per), half = std::to_string(tile / 2),
                      loads = std::to_string(tile * 8 / 256);
    auto fresh = [&](const char* stem) { return fresh_name(ctx.file, stem); };
    const std::string as = fresh("As"), bs = fresh("Bs"), acc = fresh("acc"), fa = fresh("a"), fb = fresh("b"),
                      tid = fresh("tid"), row0 = fresh("row0"), col0 = fresh("col0"), t = fresh("t"),
                      kk = fresh("kk"), i = fresh("i"), j = fresh("j"), l = fresh("l"), e = fresh("e"),
                      o = fresh("o"), q = fresh("q"), done = fresh("done"), ptr = fresh("p"), v = fresh("v");
    try {
      auto txt = [&](const Stmt* s) -> std::string {
        auto x = ctx.text(s);
        if (!x) throw std::runtime_error("source text inside a macro");
        return *x;
      };
      const std::string row = m.row.var->getNameAsString(), col = m.col.var->getNameAsString(),
                        k = m.k.var->getNameAsString();
      const std::string rt = m.row.var->getType().getUnqualifiedType().getAsString(),
                        ct = m.col.var->getType().getUnqualifiedType().getAsString(),
                        kt = m.k.var->getType().getUnqualifiedType().getAsString(),
                        acct = m.acc->getType().getUnqualifiedType().getAsString();
      const std::string K = txt(m.k_bound), Mb = txt(m.row_bound), Nb = txt(m.col_bound);
      const std::string row_ok = row + " < " + Mb, col_ok = col + " < " + Nb;
      // Output (i, j) of a thread: rows/cols in groups of 4, tile/2 apart.
      const std::string row_of = row0 + " + (" + i + " / 4) * " + half + " + threadIdx.y * 4 + " + i + " % 4";
      const std::string col_of = col0 + " + (" + j + " / 4) * " + half + " + threadIdx.x * 4 + " + j + " % 4";
      auto for_each_output = [&](const std::string& body) {
        return "  #pragma unroll\n  for (int " + i + " = 0; " + i + " < " + TM + "; ++" + i + ") {\n" +
               "    #pragma unroll\n    for (int " + j + " = 0; " + j + " < " + TM + "; ++" + j + ") {\n" +
               "      const " + rt + " " + row + " = " + row_of + ";\n      const " + ct + " " + col + " = " + col_of +
               ";\n" + body + "    }\n  }\n";
      };
      std::string prologue;
      for (const Stmt* s : m.region.prologue)
        if (s != m.row.decl && s != m.col.decl) prologue += "  " + txt(s) + "\n";
      std::string init_body, pre_again;
      for (const Stmt* s : m.pre) {
        const bool reads = std::find(m.pre_reads.begin(), m.pre_reads.end(), s) != m.pre_reads.end();
        init_body += "      " + (reads ? *guarded_declaration(ctx, s, row_ok + " && " + col_ok) : txt(s)) + "\n";
        if (s != p->acc_decl && !reads) pre_again += "        " + txt(s) + "\n";
      }
      init_body += "      " + acc + "[" + i + "][" + j + "] = " + m.acc->getNameAsString() + ";\n";
      std::string post;
      for (const Stmt* s : m.post) post += "        " + statement_with_semicolon(ctx, s) + "\n";
      // One operand's slice: [8][tile + 4] indexed [k][outer], loaded with the
      // lanes along the operand's contiguous axis.
      auto loader = [&](const std::string& sh, const MatmulOperand& op, const std::string& outer,
                        const std::string& outer_t, const std::string& outer0, const std::string& bound) {
        const bool kc = op.k_contiguous;
        const std::string guard = "(" + outer + " < " + bound + " && " + k + " < " + K + ")";
        const std::string zero = "static_cast<" + op.type + ">(0)";
        std::string s;
        const bool vector = op.type == "float" && tile == 128;
        if (vector) {
          // One 16-byte load per thread when the four elements are in bounds
          // and aligned; element by element otherwise.
          s += "    {\n";
          s += "      const int " + o + " = " + (kc ? tid + " / 2" : "(" + tid + " % 32) * 4") + ";\n";
          s += "      const int " + q + " = " + (kc ? "(" + tid + " % 2) * 4" : tid + " / 32") + ";\n";
          s += "      bool " + done + " = false;\n";
          s += "      {\n        const " + outer_t + " " + outer + " = " + outer0 + " + " + o + ";\n        const " + kt +
               " " + k + " = " + t + " + " + q + ";\n";
          s += "        if (" + (kc ? outer + " < " + bound + " && " + k + " + 3 < " + K
                                : outer + " + 3 < " + bound + " && " + k + " < " + K) +
               ") {\n";
          s += "          const float* " + ptr + " = &(" + op.spelling + ");\n";
          s += "          if ((reinterpret_cast<unsigned long long>(" + ptr + ") & 15) == 0) {\n";
          s += "            const float4 " + v + " = *reinterpret_cast<const float4*>(" + ptr + ");\n";
          if (kc)
            s += "            " + sh + "[" + q + "][" + o + "] = " + v + ".x;\n            " + sh + "[" + q + " + 1][" + o +
                 "] = " + v + ".y;\n            " + sh + "[" + q + " + 2][" + o + "] = " + v + ".z;\n            " + sh +
                 "[" + q + " + 3][" + o + "] = " + v + ".w;\n";
          else
            s += "            *reinterpret_cast<float4*>(&" + sh + "[" + q + "][" + o + "]) = " + v + ";\n";
          s += "            " + done + " = true;\n          }\n        }\n      }\n";
          s += "      if (!" + done + ") {\n        #pragma unroll\n        for (int " + l + " = 0; " + l + " < 4; ++" + l +
               ") {\n";
          s += "          const " + outer_t + " " + outer + " = " + outer0 + " + " + o + (kc ? "" : " + " + l) + ";\n";
          s += "          const " + kt + " " + k + " = " + t + " + " + q + (kc ? " + " + l : "") + ";\n";
          s += "          " + sh + "[" + q + (kc ? " + " + l : "") + "][" + o + (kc ? "" : " + " + l) + "] = " + guard +
               " ? " + op.spelling + " : " + zero + ";\n        }\n      }\n    }\n";
          return s;
        }
        s += "    #pragma unroll\n    for (int " + l + " = 0; " + l + " < " + loads + "; ++" + l + ") {\n";
        s += "      const int " + e + " = " + tid + " + " + l + " * 256;\n";
        s += "      const int " + o + " = " + (kc ? e + " / 8" : e + " % " + T) + ";\n";
        s += "      const int " + q + " = " + (kc ? e + " % 8" : e + " / " + T) + ";\n";
        s += "      const " + outer_t + " " + outer + " = " + outer0 + " + " + o + ";\n";
        s += "      const " + kt + " " + k + " = " + t + " + " + q + ";\n";
        s += "      " + sh + "[" + q + "][" + o + "] = " + guard + " ? " + op.spelling + " : " + zero + ";\n    }\n";
        return s;
      };
      auto update = accumulation_text(ctx, m, acc + "[" + i + "][" + j + "]",
                                      {{m.a.load, fa + "[" + i + "]"}, {m.b.load, fb + "[" + j + "]"}});
      if (!update) throw std::runtime_error("the accumulated expression crosses a macro");
      auto step_k = [&](const std::string& indent) {
        std::string s;
        s += indent + m.a.type + " " + fa + "[" + TM + "];\n" + indent + m.b.type + " " + fb + "[" + TM + "];\n";
        s += indent + "#pragma unroll\n" + indent + "for (int " + i + " = 0; " + i + " < " + TM + "; ++" + i + ") " + fa +
             "[" + i + "] = " + as + "[" + kk + "][(" + i + " / 4) * " + half + " + threadIdx.y * 4 + " + i + " % 4];\n";
        s += indent + "#pragma unroll\n" + indent + "for (int " + j + " = 0; " + j + " < " + TM + "; ++" + j + ") " + fb +
             "[" + j + "] = " + bs + "[" + kk + "][(" + j + " / 4) * " + half + " + threadIdx.x * 4 + " + j + " % 4];\n";
        s += indent + "#pragma unroll\n" + indent + "for (int " + i + " = 0; " + i + " < " + TM + "; ++" + i + ")\n";
        s += indent + "  #pragma unroll\n" + indent + "  for (int " + j + " = 0; " + j + " < " + TM + "; ++" + j + ") " +
             *update + "\n";
        return s;
      };
      std::string b = "{\n";
      b += "  // Rewritten by warplens (register-tile): each 16x16 block computes a " + T + "x" + T +
           " tile of the output,\n  // each thread " + TM + "x" + TM +
           " outputs in registers; the operands are staged through shared " + T + "x8 and 8x" + T +
           " slices.\n  // Loads are guarded (zero-filled); k beyond " + K + " is never accumulated.\n";
      b += "  __shared__ __align__(16) " + m.a.type + " " + as + "[8][" + T + " + 4];\n";
      b += "  __shared__ __align__(16) " + m.b.type + " " + bs + "[8][" + T + " + 4];\n";
      b += prologue;
      b += "  const int " + tid + " = threadIdx.y * 16 + threadIdx.x;\n";
      b += "  const " + rt + " " + row0 + " = blockIdx.y * " + T + ";\n";
      b += "  const " + ct + " " + col0 + " = blockIdx.x * " + T + ";\n";
      b += "  " + acct + " " + acc + "[" + TM + "][" + TM + "];\n";
      b += for_each_output(init_body);
      b += "  for (" + kt + " " + t + " = 0; " + t + " < " + K + "; " + t + " += 8) {\n";
      b += loader(as, m.a, row, rt, row0, Mb);
      b += loader(bs, m.b, col, ct, col0, Nb);
      b += "    __syncthreads();\n";
      b += "    if (" + t + " + 8 <= " + K + ") {\n      #pragma unroll\n      for (int " + kk + " = 0; " + kk + " < 8; ++" +
           kk + ") {\n" + step_k("        ") + "      }\n";
      b += "    } else {\n      for (int " + kk + " = 0; " + kk + " < 8 && " + t + " + " + kk + " < " + K + "; ++" + kk +
           ") {\n" + step_k("        ") + "      }\n    }\n";
      b += "    __syncthreads();\n  }\n";
      b += for_each_output("      if (" + row_ok + " && " + col_ok + ") {\n" + pre_again + "        " + acct + " " +
                           m.acc->getNameAsString() + " = " + acc + "[" + i + "][" + j + "];\n" + post + "      }\n");
      b += "}";
      if (!out.edits.replace(ctx.body, b)) {
        error = out.edits.error();
        return false;
      }
    } catch (const std::exception& ex) {
      error = ex.what();
      return false;
    }
    LaunchChange change;
    change.kernel = ctx.kernel->getNameAsString();
    change.block = Dim3{16, 16, 1};
    change.thread_scale[0] = {1, per};
    change.thread_scale[1] = {1, per};
    if (!rewrite_launches(ctx, change, out.edits, error)) return false;
    out.launch_changes.push_back(change);
    out.notes.push_back("the launches cover both bounds; the grid (16x16 blocks, 1/" + TM + " of the threads per axis) "
                        "covers them with " + T + "x" + T + " tiles, and each output is stored under the original guard");
    out.notes.push_back("each output accumulates the same terms in the same k order; operand elements outside the "
                        "bounds are never read and steps beyond K never accumulated");
    out.notes.push_back("declarations before the loop run per output (memory reads only under the guard); what follows "
                        "the loop runs per output with the accumulator's value");
    return true;
  }
};

}  // namespace

const Rewrite& register_tile_rewrite() {
  static const RegisterTile r;
  return r;
}

}  // namespace warplens::agent::rw
