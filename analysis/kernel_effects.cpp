#include "analysis/kernel_effects.h"

#include <algorithm>
#include <functional>

#include "analysis/device_call_inlining.h"

namespace warplens {

namespace {

const Function* resolve(const KernelModel& model, const CallSite& call) {
  if (!call.callee_key.empty())
    if (const Function* fn = model.find(call.callee_key)) return fn;
  for (const auto& fn : model.functions)
    if (fn.name == call.callee && fn.kind != FunctionKind::Kernel) return &fn;
  return nullptr;
}

// The kernel parameter an access's pointer comes from, through the call
// chain (outermost call first); -1 when some link is not a parameter.
int kernel_parameter(const BoundAccess& b) {
  int p = b.access->base_param;
  for (auto it = b.via.rbegin(); it != b.via.rend(); ++it) {
    if (p < 0) return -1;
    const CallSite* call = *it;
    if (std::size_t(p) >= call->pointer_args.size() || !call->pointer_args[std::size_t(p)]) return -1;
    p = call->pointer_args[std::size_t(p)]->base_param;
  }
  return p;
}

// Loop counters are named after their induction variable (`i#iter`); two
// kernels that both stride over a grid name theirs differently. Renamed by
// the loop's depth around the access (L0 outermost), they compare equal.
ExprRef canonical_loops(const ExprRef& e, const BoundAccess& b) {
  if (!e) return e;
  return substitute(e, [&](const Symbol& s) -> ExprRef {
    if (s.kind != SymbolKind::LoopCounter) return nullptr;
    for (std::size_t d = b.loops.size(); d-- > 0;) {
      const BoundLoop& l = b.loops[d];
      if (l.owner && l.source().induction_variable == s.name) {
        Symbol c = s;
        c.name = "L" + std::to_string(d);
        return Expr::sym(c);
      }
    }
    return nullptr;
  });
}

// Every pointer parameter of the kernel whose pointer escapes in the kernel
// or in a __device__ function it is passed to.
void mark_unknown(const KernelModel& model, const Function& fn, const std::vector<int>& to_kernel,
                  std::vector<ParameterEffect>& params, std::vector<const Function*>& stack, bool& truncated) {
  for (std::size_t j = 0; j < fn.params.size() && j < to_kernel.size(); ++j)
    if (fn.params[j].pointer_escapes && to_kernel[j] >= 0) params[std::size_t(to_kernel[j])].unknown = true;
  for (const CallSite& call : fn.calls) {
    const Function* callee = resolve(model, call);
    if (!callee || callee->kind == FunctionKind::Kernel) {
      // Not followed: every pointer it receives may be read or written.
      for (const auto& t : call.pointer_args)
        if (t && t->base_param >= 0 && std::size_t(t->base_param) < to_kernel.size() &&
            to_kernel[std::size_t(t->base_param)] >= 0)
          params[std::size_t(to_kernel[std::size_t(t->base_param)])].unknown = true;
      continue;
    }
    if (std::find(stack.begin(), stack.end(), callee) != stack.end() || stack.size() > 6) {
      truncated = true;
      continue;
    }
    std::vector<int> inner(callee->params.size(), -1);
    for (std::size_t k = 0; k < inner.size() && k < call.pointer_args.size(); ++k)
      if (const auto& t = call.pointer_args[k]; t && t->base_param >= 0 && std::size_t(t->base_param) < to_kernel.size())
        inner[k] = to_kernel[std::size_t(t->base_param)];
    stack.push_back(callee);
    mark_unknown(model, *callee, inner, params, stack, truncated);
    stack.pop_back();
  }
}

}  // namespace

bool is_global_thread_offset(const ExprRef& byte_offset, int element_bytes) {
  if (!byte_offset || element_bytes <= 0) return false;
  auto p = to_polynomial(byte_offset);
  if (!p) return false;
  auto sym = [](SymbolKind k, int dim = 0) { return Polynomial::symbol(Symbol{k, dim, "", true}); };
  Polynomial gid = sym(SymbolKind::BlockIdx) * sym(SymbolKind::BlockDim) + sym(SymbolKind::ThreadIdx);
  Polynomial rest = *p - gid.scaled(element_bytes);
  if (rest.terms.empty()) return true;
  // Grid-stride: + element_bytes * blockDim.x * gridDim.x * L (one loop counter).
  if (rest.terms.size() != 1) return false;
  const auto& [monomial, coefficient] = *rest.terms.begin();
  if (coefficient != element_bytes || monomial.size() != 3) return false;
  int block = 0, grid = 0, counter = 0;
  for (const Symbol& s : monomial) {
    block += s.kind == SymbolKind::BlockDim && s.dim == 0;
    grid += s.kind == SymbolKind::GridDim && s.dim == 0;
    counter += s.kind == SymbolKind::LoopCounter;
  }
  return block == 1 && grid == 1 && counter == 1;
}

KernelEffects kernel_effects(const KernelModel& model, const Function& kernel) {
  KernelEffects out;
  out.kernel = &kernel;
  out.params.resize(kernel.params.size());
  KernelView view = bind_kernel(model, kernel);
  out.truncated = view.call_depth_exceeded;
  out.barriers = !view.barriers.empty();

  bool unresolved = false;
  for (const BoundAccess& b : view.accesses) {
    if (b.space == MemorySpace::Shared) {
      out.shared_memory = true;
      continue;
    }
    if (b.space == MemorySpace::Local || b.space == MemorySpace::Constant) continue;
    int p = kernel_parameter(b);
    if (p < 0 || std::size_t(p) >= kernel.params.size() || !kernel.params[std::size_t(p)].is_pointer) {
      unresolved = true;  // a __device__ variable, a pointer loaded from memory, a struct member
      continue;
    }
    ParameterEffect& e = out.params[std::size_t(p)];
    ParameterAccess a;
    a.kind = b.access->kind;
    a.byte_offset = canonical_loops(b.byte_offset, b);
    a.element_bytes = b.access->element_bytes;
    a.indirect = b.indirect;
    a.spelling = b.access->spelling;
    a.range = b.access->range;
    a.function = b.owner ? b.owner->name : kernel.name;
    e.read |= a.kind == AccessKind::Load;
    e.written |= a.kind == AccessKind::Store;
    e.atomic |= a.kind == AccessKind::Atomic;
    e.accesses.push_back(std::move(a));
  }
  std::vector<int> identity(kernel.params.size());
  for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = int(i);
  std::vector<const Function*> stack{&kernel};
  mark_unknown(model, kernel, identity, out.params, stack, out.truncated);

  // Element-wise?
  auto why = [&]() -> std::string {
    if (out.truncated) return "its device calls are too deep to follow";
    if (out.shared_memory) return "it uses shared memory";
    if (out.barriers) return "it synchronises threads";
    if (unresolved) return "it accesses global memory not reached through a pointer parameter";
    bool any = false;
    for (std::size_t i = 0; i < out.params.size(); ++i) {
      const ParameterEffect& e = out.params[i];
      const std::string& name = kernel.params[i].name;
      if (e.unknown) return "`" + name + "` is used in ways the analysis does not follow";
      if (e.atomic) return "it updates `" + name + "` atomically";
      for (const ParameterAccess& a : e.accesses) {
        any = true;
        if (a.indirect || !is_global_thread_offset(a.byte_offset, a.element_bytes))
          return "`" + a.spelling + "` is not at the thread's own element";
      }
    }
    if (!any) return "it accesses no buffer";
    return "";
  };
  out.not_elementwise = why();
  out.elementwise = out.not_elementwise.empty();
  return out;
}

}  // namespace warplens
