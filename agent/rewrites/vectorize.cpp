// vectorize: a one-element-per-thread kernel (or a user grid-stride loop)
// processes `width` consecutive
// elements per thread with one 8/16-byte load per input array and one store
// per output array, in a grid-stride loop (correct for any grid), behind an
// alignment guard, with a scalar loop for the tail and for misaligned
// pointers.
//
// The element's code is kept as written: inside the vector loop the index
// variable is redeclared for each of the `width` elements and every `p[i]`
// becomes the matching element of a register array. Arrays that are written
// only conditionally are loaded first, so elements the original leaves alone
// are stored back unchanged.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;


struct Plan {
  Elementwise m;
  std::vector<std::int64_t> element_bytes;  // per array
};

std::optional<Plan> plan(const KernelContext& ctx, std::int64_t width, std::string& why) {
  auto m = match_elementwise(ctx, why, /*allow_gathers=*/true, /*allow_grid_stride_loop=*/true);
  if (!m) return std::nullopt;
  // Broadcast and gathered operands (`bias[i % cols]`) stay scalar reads in
  // the element's code. The vector path writes a group after reading it, so
  // nothing it writes may be one of them: distinct pointers at every launch.
  if (!m->gathered.empty()) {
    std::vector<const ParmVarDecl*> ptrs(m->gathered.begin(), m->gathered.end());
    for (const auto& a : m->arrays)
      if (a.written) ptrs.push_back(a.param);
    if (!launches_pass_distinct_pointers(ctx, ptrs, why)) {
      why = "a gathered operand may be an array the kernel writes: " + why;
      return std::nullopt;
    }
  }
  Plan p;
  p.m = std::move(*m);
  for (const auto& a : p.m.arrays) {
    QualType e = a.param->getType()->getPointeeType();
    if (!e->isArithmeticType() || e->isBooleanType()) {
      why = "`" + a.param->getNameAsString() + "` does not point to numbers";
      return std::nullopt;
    }
    const std::int64_t bytes = static_cast<std::int64_t>(ctx.ctx().getTypeSize(e) / 8);
    const std::int64_t v = bytes * width;
    if (v != 8 && v != 16 && v != 32) {
      why = "`" + a.param->getNameAsString() + "` has " + std::to_string(bytes) + "-byte elements: " +
            std::to_string(width) + " of them are not an 8/16/32-byte access";
      return std::nullopt;
    }
    for (const ArraySubscriptExpr* u : a.uses)
      if (u->getBeginLoc().isMacroID()) {
        why = "an access is written inside a macro";
        return std::nullopt;
      }
    p.element_bytes.push_back(bytes);
  }
  if (!p.m.index.var->getType()->isIntegerType()) {
    why = "the index is not an integer";
    return std::nullopt;
  }
  return p;
}

class Vectorize final : public Rewrite {
 public:
  const char* name() const override { return "vectorize"; }

  CheckResult check(KernelContext& ctx) const override {
    CheckResult r;
    std::string why;
    std::string can_shrink_why;
    const bool can_shrink = launches_rewritable(ctx, can_shrink_why);
    for (std::int64_t width : find_rewrite(name())->params[0].values) {
      auto p = plan(ctx, width, why);
      if (!p) continue;
      for (std::int64_t shrink : {1, 0}) {
        if (shrink && !can_shrink) continue;
        Proposal prop;
        prop.step = {name(), {{"width", width}, {"shrink-grid", shrink}}};
        prop.motivation = std::to_string(p->m.arrays.size()) + " array(s) accessed one element per thread: " +
                          std::to_string(width) + " elements per access" +
                          (shrink ? ", " + std::to_string(width) + "x fewer threads" : ", same grid");
        prop.predicted_gain = shrink ? (width == 4 ? 1.15 : 1.1) : 1.05;
        r.proposals.push_back(prop);
      }
    }
    if (r.proposals.empty()) return CheckResult::refuse(why);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep& step, RewriteOutput& out, std::string& error) const override {
    const std::int64_t width = param(step, "width");
    const bool shrink = param(step, "shrink-grid") != 0;
    if (width != 2 && width != 4 && width != 8) {
      error = "width must be 2, 4 or 8";
      return false;
    }
    auto p = plan(ctx, width, error);
    if (!p) return false;
    const Elementwise& m = p->m;
    const std::string w = std::to_string(width);
    const std::string iname = m.index.var->getNameAsString();
    const std::string itype = m.index.var->getType().getUnqualifiedType().getAsString();
    auto bound = ctx.text(m.bound);
    if (!bound) {
      error = "the bound is not plain source text";
      return false;
    }
    const std::string n = fresh_name(ctx.file, "n"), stride = fresh_name(ctx.file, "stride"),
                      t = fresh_name(ctx.file, "t"), v = fresh_name(ctx.file, "v"), c = fresh_name(ctx.file, "c"),
                      vec_end = fresh_name(ctx.file, "vec_end"), s = fresh_name(ctx.file, "s");
    // Body text, once with p[i] -> wl_p[c] (vector path), once unchanged (tail).
    std::map<const Stmt*, std::string> to_lanes;
    std::vector<std::string> locals;
    for (const auto& a : m.arrays) {
      locals.push_back(fresh_name(ctx.file, a.param->getNameAsString()));
      for (const ArraySubscriptExpr* u : a.uses) to_lanes[u] = locals.back() + "[" + c + "]";
    }
    std::string vector_body, scalar_body;
    for (const Stmt* st : m.region.body) {
      auto vb = text_with_replacements(ctx, st, {}, to_lanes);
      auto sb = ctx.text(st);
      if (!vb || !sb) {
        error = "the element's code crosses a macro";
        return false;
      }
      const std::string semi = statement_terminator(ctx, st).value_or("");
      vector_body += "        " + *vb + semi + "\n";
      scalar_body += "      " + *sb + semi + "\n";
    }
    std::string prologue;
    for (const Stmt* st : m.region.prologue) {
      if (st == m.index.decl) continue;
      auto tx = ctx.text(st);
      if (!tx) {
        error = "a declaration crosses a macro";
        return false;
      }
      prologue += "  " + *tx + (tx->empty() || tx->back() != ';' ? ";" : "") + "\n";
    }
    std::string aligned = "true";
    for (std::size_t k = 0; k < m.arrays.size(); ++k)
      aligned += " && reinterpret_cast<unsigned long long>(" + m.arrays[k].param->getNameAsString() + ") % " +
                 std::to_string(p->element_bytes[k] * width) + " == 0";
    std::string body = "{\n";
    body += "  // Rewritten by warplens (vectorize, width " + w + "): grid-stride over groups of " + w +
            " elements,\n  // one vector access per array; scalar loop for the tail and misaligned pointers.\n";
    body += prologue;
    body += "  const long long " + n + " = static_cast<long long>(" + *bound + ");\n";
    body += "  const long long " + stride + " = static_cast<long long>(gridDim.x) * blockDim.x;\n";
    body += "  const long long " + t + " = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
    body += "  const long long " + vec_end + " = (" + aligned + ") ? " + n + " / " + w + " * " + w + " : 0;\n";
    body += "  for (long long " + v + " = " + t + " * " + w + "; " + v + " < " + vec_end + "; " + v + " += " + stride +
            " * " + w + ") {\n";
    for (std::size_t k = 0; k < m.arrays.size(); ++k) {
      const auto& a = m.arrays[k];
      const std::string type = pointee_spelling(a.param);
      body += "    " + type + " " + locals[k] + "[" + w + "];\n";
      if (a.read || !a.written_unconditionally)
        body += "    wl_vector_load<" + w + ">(" + locals[k] + ", " + a.param->getNameAsString() + " + " + v + ");\n";
    }
    body += "#pragma unroll\n";
    body += "    for (int " + c + " = 0; " + c + " < " + w + "; ++" + c + ") {\n";
    body += "      const " + itype + " " + iname + " = static_cast<" + itype + ">(" + v + " + " + c + ");\n";
    body += "      (void)" + iname + ";\n";
    body += "      {\n" + vector_body + "      }\n";
    body += "    }\n";
    for (std::size_t k = 0; k < m.arrays.size(); ++k)
      if (m.arrays[k].written)
        body += "    wl_vector_store<" + w + ">(" + m.arrays[k].param->getNameAsString() + " + " + v + ", " + locals[k] +
                ");\n";
    body += "  }\n";
    body += "  for (long long " + s + " = " + vec_end + " + " + t + "; " + s + " < " + n + "; " + s + " += " + stride +
            ") {\n";
    body += "    const " + itype + " " + iname + " = static_cast<" + itype + ">(" + s + ");\n";
    body += "    {\n" + scalar_body + "    }\n";
    body += "  }\n}";
    if (!out.edits.replace(ctx.body, body)) {
      error = out.edits.error();
      return false;
    }
    if (ctx.file.text.find("wl_vector_load") == std::string::npos && !insert_before_kernel(ctx, out.edits, vector_helpers_text())) {
      error = out.edits.error();
      return false;
    }
    if (shrink) {
      LaunchChange change;
      change.kernel = ctx.kernel->getNameAsString();
      change.thread_scale[0] = {1, width};
      if (!rewrite_launches(ctx, change, out.edits, error)) return false;
      out.launch_changes.push_back(change);
    }
    out.notes.push_back("grid-stride loop: every element below the bound is processed once, for any grid");
    out.notes.push_back("vector accesses only when every pointer is aligned to the access size; otherwise, and for "
                        "the tail, the original scalar code");
    for (const auto& a : m.arrays)
      if (a.written && !a.written_unconditionally)
        out.notes.push_back("`" + a.param->getNameAsString() + "` is written conditionally: loaded first so untouched "
                            "elements are stored back unchanged");
    return true;
  }
};

}  // namespace

const Rewrite& vectorize_rewrite() {
  static const Vectorize r;
  return r;
}

}  // namespace warplens::agent::rw
