// vectorize-struct: in a one-element-per-thread kernel over an array of
// structures, read the thread's whole element with 16-byte (or 8-byte) loads
// into a local copy, let the element's code work on the copy, and write it
// back with the same wide stores, instead of one 4-byte access per field
// (each of which spans 32 elements across the warp).
//
// Applies when the element type is trivially copyable with a size that is a
// multiple of 8 bytes, every access to the array is `p[i]` or `p[i].field`,
// and the launches pass distinct variables for the kernel's pointers (so no
// other pointer reaches the element while the copy is live). Unchanged
// fields are written back with the bits they had. A runtime alignment check
// falls back to the original code.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

const char* kStructHelpers = R"(// Added by warplens (vectorize-struct): whole-element copies with 16/8-byte accesses.
template <typename T>
__device__ __forceinline__ T wl_struct_load(const T* p) {
  static_assert(sizeof(T) % 8 == 0, "element size must be a multiple of 8 bytes");
  union {
    T value;
    uint4 q[sizeof(T) % 16 == 0 ? sizeof(T) / 16 : 1];
    uint2 d[sizeof(T) / 8];
  } u;
  if constexpr (sizeof(T) % 16 == 0) {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 16); ++k) u.q[k] = reinterpret_cast<const uint4*>(p)[k];
  } else {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 8); ++k) u.d[k] = reinterpret_cast<const uint2*>(p)[k];
  }
  return u.value;
}
template <typename T>
__device__ __forceinline__ void wl_struct_store(T* p, const T& v) {
  union {
    T value;
    uint4 q[sizeof(T) % 16 == 0 ? sizeof(T) / 16 : 1];
    uint2 d[sizeof(T) / 8];
  } u;
  u.value = v;
  if constexpr (sizeof(T) % 16 == 0) {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 16); ++k) reinterpret_cast<uint4*>(p)[k] = u.q[k];
  } else {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 8); ++k) reinterpret_cast<uint2*>(p)[k] = u.d[k];
  }
}
)";

struct Plan {
  Elementwise m;
  const Elementwise::Array* array = nullptr;
  std::int64_t bytes = 0;
  std::string type;
};

std::optional<Plan> plan(const KernelContext& ctx, std::string& why) {
  auto m = match_elementwise(ctx, why);
  if (!m) return std::nullopt;
  Plan p;
  p.m = std::move(*m);
  for (const auto& a : p.m.arrays) {
    QualType e = a.param->getType()->getPointeeType();
    if (!e->isRecordType()) continue;
    if (!e.isTriviallyCopyableType(ctx.ctx())) {
      why = "`" + a.param->getNameAsString() + "` elements are not trivially copyable";
      continue;
    }
    const auto bytes = static_cast<std::int64_t>(ctx.ctx().getTypeSize(e) / 8);
    if (bytes % 8 != 0 || bytes > 256) {
      why = "`" + a.param->getNameAsString() + "` elements are " + std::to_string(bytes) +
            " bytes: not a multiple of 8 (or too large)";
      continue;
    }
    p.array = &a;
    p.bytes = bytes;
    PrintingPolicy pp(ctx.ctx().getLangOpts());
    pp.SuppressTagKeyword = true;
    p.type = e.getUnqualifiedType().getAsString(pp);
    break;
  }
  if (!p.array) {
    if (why.empty() || why.find("elements") == std::string::npos) why = "no array of structures accessed per thread";
    return std::nullopt;
  }
  std::vector<const ParmVarDecl*> pointers;
  for (unsigned k = 0; k < ctx.kernel->getNumParams(); ++k)
    if (ctx.kernel->getParamDecl(k)->getType()->isPointerType()) pointers.push_back(ctx.kernel->getParamDecl(k));
  if (pointers.size() > 1 && !launches_pass_distinct_pointers(ctx, pointers, why)) return std::nullopt;
  return p;
}

class VectorizeStruct final : public Rewrite {
 public:
  const char* name() const override { return "vectorize-struct"; }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    CheckResult r;
    Proposal prop;
    prop.step = {name(), {}};
    prop.motivation = std::to_string(p->array->uses.size()) + " field access(es) to `" +
                      p->array->param->getNameAsString() + "` (" + std::to_string(p->bytes) +
                      "-byte elements): one wide copy in and out instead";
    prop.predicted_gain = 1.25;
    r.proposals.push_back(prop);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    const std::string local = fresh_name(ctx.file, "elem");
    const std::string arr = p->array->param->getNameAsString();
    const std::string iname = p->m.index.var->getNameAsString();
    std::map<const Stmt*, std::string> to_local;
    for (const ArraySubscriptExpr* u : p->array->uses) to_local[u] = local;
    std::string copy_body, original_body;
    for (const Stmt* st : p->m.region.body) {
      auto vb = text_with_replacements(ctx, st, {}, to_local);
      auto ob = ctx.text(st);
      if (!vb || !ob) {
        error = "the element's code crosses a macro";
        return false;
      }
      const std::string semi = statement_terminator(ctx, st).value_or("");
      copy_body += "      " + *vb + semi + "\n";
      original_body += "      " + *ob + semi + "\n";
    }
    const std::string align = std::to_string(p->bytes % 16 == 0 ? 16 : 8);
    std::string text = "{\n";
    text += "    // Rewritten by warplens (vectorize-struct): the element is copied in and out with " + align +
            "-byte accesses.\n";
    text += "    if (reinterpret_cast<unsigned long long>(" + arr + ") % " + align + " == 0) {\n";
    text += "      " + p->type + " " + local + " = wl_struct_load(" + arr + " + " + iname + ");\n";
    text += copy_body;
    if (p->array->written) text += "      wl_struct_store(" + arr + " + " + iname + ", " + local + ");\n";
    text += "    } else {\n" + original_body + "    }\n  }";
    // Replace the guarded statements (then-branch, or everything after the early exit).
    if (p->m.region.then_branch) {
      if (!out.edits.replace(p->m.region.then_branch, text)) {
        error = out.edits.error();
        return false;
      }
    } else {
      const unsigned b = ctx.offset(p->m.region.body.front()->getBeginLoc());
      const unsigned e = ctx.offset_after_statement(p->m.region.body.back());
      if (!out.edits.replace_offsets(b, e, text)) {
        error = out.edits.error();
        return false;
      }
    }
    if (ctx.file.text.find("wl_struct_load") == std::string::npos &&
        !insert_before_kernel(ctx, out.edits, kStructHelpers)) {
      error = out.edits.error();
      return false;
    }
    out.notes.push_back("the launches pass distinct pointers: nothing else reaches the element during the copy");
    out.notes.push_back("fields the code does not change are stored back with their own bits");
    return true;
  }
};

}  // namespace

const Rewrite& vectorize_struct_rewrite() {
  static const VectorizeStruct r;
  return r;
}

}  // namespace warplens::agent::rw
