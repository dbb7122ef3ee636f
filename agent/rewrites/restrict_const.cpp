// restrict-const: declare pointer parameters `const T* __restrict__` when the
// kernel only reads through them, and `T* __restrict__` when it writes, so
// the compiler may keep values in registers and use the read-only data path.
//
// `__restrict__` promises that no other pointer of the launch reaches the
// same memory. That is checked where it can be: every launch in the file must
// pass distinct variables for the pointer parameters (no argument twice, no
// pointer arithmetic). Without launches in the file only `const` is added to
// read-only pointers, which is always safe.
#include "agent/rewrites/kernel_shapes.h"
#include "agent/rewrites/rewrite.h"

namespace warplens::agent::rw {
namespace {

using namespace clang;
using clang::Expr;

struct ParamUse {
  const ParmVarDecl* param = nullptr;
  bool written = false;
  bool only_subscripted = true;  // every use is p[...] (or p[...].field)
};

std::vector<ParamUse> pointer_params(const KernelContext& ctx) {
  std::vector<ParamUse> out;
  const auto accesses = collect_accesses(ctx.body);
  for (unsigned i = 0; i < ctx.kernel->getNumParams(); ++i) {
    const ParmVarDecl* p = ctx.kernel->getParamDecl(i);
    if (!p->getType()->isPointerType()) continue;
    ParamUse use;
    use.param = p;
    std::size_t subscripted = 0;
    for (const Access& a : accesses)
      if (a.base && a.base->getCanonicalDecl() == p->getCanonicalDecl()) {
        ++subscripted;
        if (a.write) use.written = true;
      }
    const auto refs = references_to(ctx.body, p);
    if (refs.size() != subscripted) {
      use.only_subscripted = false;
      use.written = true;  // passed on, offset or dereferenced: assume it may be written
    }
    // &p[i] passed to an atomic or a function is a write path too.
    for (const Access& a : accesses)
      if (a.base && a.base->getCanonicalDecl() == p->getCanonicalDecl()) {
        DynTypedNodeList parents = ctx.ctx().getParents(*a.expr);
        for (const auto& parent : parents)
          if (const auto* uo = parent.get<UnaryOperator>(); uo && uo->getOpcode() == UO_AddrOf) use.written = true;
      }
    out.push_back(use);
  }
  return out;
}

bool is_const_pointee(const ParmVarDecl* p) { return p->getType()->getPointeeType().isConstQualified(); }
bool is_restrict(const ParmVarDecl* p) { return p->getType().isRestrictQualified(); }

class RestrictConst final : public Rewrite {
 public:
  const char* name() const override { return "restrict-const"; }

  struct Plan {
    std::vector<std::pair<const ParmVarDecl*, std::string>> new_decls;
    bool with_restrict = false;
    std::string why_no_restrict;
  };

  std::optional<Plan> plan(const KernelContext& ctx, std::string& why) const {
    for (const FunctionDecl* r : ctx.kernel->redecls())
      if (r != ctx.kernel && !is_main_file(ctx.file, r->getLocation())) {
        why = "the kernel is also declared in another file";
        return std::nullopt;
      }
    auto params = pointer_params(ctx);
    if (params.empty()) {
      why = "no pointer parameters";
      return std::nullopt;
    }
    Plan p;
    std::vector<const ParmVarDecl*> pointers;
    for (const ParamUse& u : params) pointers.push_back(u.param);
    p.with_restrict = launches_pass_distinct_pointers(ctx, pointers, p.why_no_restrict);
    for (const ParamUse& u : params) {
      const bool add_const = !u.written && !is_const_pointee(u.param);
      const bool add_restrict = p.with_restrict && !is_restrict(u.param) && u.only_subscripted;
      if (!add_const && !add_restrict) continue;
      const bool is_const = is_const_pointee(u.param) || add_const;
      const bool restrict = is_restrict(u.param) || add_restrict;
      std::string decl = (is_const ? "const " : "") + pointee_spelling(u.param) + "* " +
                         (restrict ? "__restrict__ " : "") + u.param->getNameAsString();
      p.new_decls.push_back({u.param, decl});
    }
    if (p.new_decls.empty()) {
      why = p.with_restrict ? "pointer parameters are already const/__restrict__ where possible"
                            : "read-only pointers are already const; " + p.why_no_restrict;
      return std::nullopt;
    }
    return p;
  }

  CheckResult check(KernelContext& ctx) const override {
    std::string why;
    auto p = plan(ctx, why);
    if (!p) return CheckResult::refuse(why);
    Proposal prop;
    prop.step = {name(), {}};
    prop.motivation = std::to_string(p->new_decls.size()) + " pointer parameter(s) gain const/__restrict__" +
                      (p->with_restrict ? "" : " (const only: " + p->why_no_restrict + ")");
    prop.predicted_gain = p->with_restrict ? 1.05 : 1.01;
    CheckResult r;
    r.proposals.push_back(prop);
    return r;
  }

  bool apply(KernelContext& ctx, const RewriteStep&, RewriteOutput& out, std::string& error) const override {
    auto p = plan(ctx, error);
    if (!p) return false;
    for (const auto& [param, decl] : p->new_decls) {
      const unsigned index = static_cast<unsigned>(ctx.param_index(param));
      // Every declaration of the kernel in the file gets the same parameter types.
      for (const FunctionDecl* r : ctx.kernel->redecls()) {
        const ParmVarDecl* q = r->getParamDecl(index);
        std::string text = decl;
        if (q->getName() != param->getName()) {
          // A prototype with another (or no) parameter name keeps its name.
          text = decl.substr(0, decl.size() - param->getName().size()) + q->getNameAsString();
        }
        if (!out.edits.replace(q->getSourceRange(), text)) {
          error = out.edits.error();
          return false;
        }
      }
    }
    out.notes.push_back(p->with_restrict
                            ? "every launch in the file passes distinct pointer variables (no aliasing)"
                            : "only const added: " + p->why_no_restrict);
    out.notes.push_back("const added only to pointers the kernel never writes through");
    return true;
  }
};

}  // namespace

const Rewrite& restrict_const_rewrite() {
  static const RestrictConst r;
  return r;
}

}  // namespace warplens::agent::rw
