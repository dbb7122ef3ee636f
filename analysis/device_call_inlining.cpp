#include "analysis/device_call_inlining.h"

#include <algorithm>
#include <functional>

namespace warplens {

namespace {

// One function being walked, with its parameters bound in kernel terms.
struct Frame {
  const Function* fn = nullptr;
  std::map<std::string, ExprRef> param_values;  // callee parameter -> argument (kernel terms)
  std::map<int, ExprRef> pointer_offsets;       // pointer parameter -> byte offset of the argument
  std::map<int, std::pair<std::string, const Function*>> pointer_shared;  // -> __shared__ array
  std::map<int, MemorySpace> pointer_space;     // what a pointer parameter points into
  std::vector<BoundGuard> guards;               // guards of the call sites above
  std::vector<BoundLoop> loops;
  CallChain via;
  CallChainOwners via_in;
};

class Binder {
 public:
  Binder(const KernelModel& model, int max_depth) : model_(model), max_depth_(max_depth) {}

  void walk(const Frame& f, KernelView& out) {
    stack_.push_back(f.fn);
    bind_conditions(f, out);
    bind_accesses(f, out);
    bind_barriers(f, out);
    for (const auto& call : f.fn->calls) {
      const Function* callee = resolve(call);
      if (!callee || callee->kind == FunctionKind::Kernel) continue;
      if (std::find(stack_.begin(), stack_.end(), callee) != stack_.end() ||
          int(stack_.size()) > max_depth_) {
        out.call_depth_exceeded = true;
        continue;
      }
      walk(enter(f, call, *callee), out);
    }
    stack_.pop_back();
  }

 private:
  const Function* resolve(const CallSite& call) const {
    if (!call.callee_key.empty())
      if (const Function* fn = model_.find_callee(call.callee_key)) return fn;
    for (const auto* list : {&model_.functions, &model_.included_functions})
      for (const auto& fn : *list)
        if (fn.name == call.callee && fn.kind != FunctionKind::Kernel) return &fn;
    return nullptr;
  }

  static ExprRef subst(const Frame& f, const ExprRef& e) {
    if (!e || f.param_values.empty()) return e;
    return substitute(e, [&](const Symbol& s) -> ExprRef {
      if (s.kind != SymbolKind::Param) return nullptr;
      auto it = f.param_values.find(s.name);
      return it == f.param_values.end() ? nullptr : it->second;
    });
  }

  static int param_index(const Function& fn, const std::string& name) {
    for (std::size_t i = 0; i < fn.params.size(); ++i)
      if (fn.params[i].name == name) return int(i);
    return -1;
  }

  static const SharedArray* shared_named(const Function& fn, const std::string& name) {
    for (const auto& s : fn.shared_arrays)
      if (s.name == name) return &s;
    return nullptr;
  }

  // What a pointer-valued argument points at, relative to a root the warp
  // model treats as 256-byte aligned: a pointer parameter of the caller, or a
  // __shared__ array. Returns the byte offset (null: unknown).
  struct PointerArg {
    ExprRef byte_offset;
    std::string shared_array;
    const Function* shared_owner = nullptr;
    MemorySpace space = MemorySpace::Generic;
  };
  PointerArg pointer_argument(const Frame& f, const ExprRef& arg) const {
    PointerArg r;
    if (!arg) return r;
    // Root: a pointer parameter or a shared array of the caller.
    auto root = [&](const ExprRef& e, ExprRef& base, std::int64_t& pointee, PointerArg& out) {
      if (!e) return false;
      std::string name;
      if (e->op == ExprOp::Sym && (e->symbol.kind == SymbolKind::Param || e->symbol.kind == SymbolKind::Local))
        name = e->symbol.name;
      else if (e->op == ExprOp::Opaque)
        name = e->text;
      if (name.empty()) return false;
      int k = param_index(*f.fn, name);
      if (k >= 0 && f.fn->params[std::size_t(k)].is_pointer) {
        auto it = f.pointer_offsets.find(k);
        base = it != f.pointer_offsets.end() ? it->second : Expr::constant(0);
        pointee = f.fn->params[std::size_t(k)].pointee_bytes;
        out.space = space_of_pointer_param(f, k);
        if (auto sh = f.pointer_shared.find(k); sh != f.pointer_shared.end()) {
          out.shared_array = sh->second.first;
          out.shared_owner = sh->second.second;
        }
        return true;
      }
      for (const Function* owner : stack_)
        if (const SharedArray* s = shared_named(*owner, name)) {
          base = Expr::constant(0);
          pointee = s->element_bytes;
          out.shared_array = s->name;
          out.shared_owner = owner;
          out.space = MemorySpace::Shared;
          return true;
        }
      return false;
    };
    ExprRef base;
    std::int64_t pointee = 0;
    if (root(arg, base, pointee, r)) {
      r.byte_offset = base;
      return r;
    }
    if (arg->op == ExprOp::Add || arg->op == ExprOp::Sub) {
      for (int side = 0; side < 2; ++side) {
        if (arg->op == ExprOp::Sub && side == 1) break;
        const ExprRef& p = arg->operands[std::size_t(side)];
        const ExprRef& k = arg->operands[std::size_t(1 - side)];
        PointerArg tmp;
        if (!root(p, base, pointee, tmp)) continue;
        if (!base || pointee <= 0) return r;
        ExprRef scaled = Expr::binary(ExprOp::Mul, subst(f, k), Expr::constant(pointee));
        r = tmp;
        r.byte_offset = Expr::binary(arg->op, base, scaled);
        return r;
      }
    }
    // Anything else: a uniform pointer is as good as a root; a per-lane one
    // is unknown.
    if (!is_lane_varying(subst(f, arg))) r.byte_offset = Expr::constant(0);
    return r;
  }

  // A kernel's pointer parameters point into global memory; a device
  // function's into whatever its caller passed.
  static MemorySpace space_of_pointer_param(const Frame& f, int k) {
    if (f.fn->kind == FunctionKind::Kernel) return MemorySpace::Global;
    auto it = f.pointer_space.find(k);
    return it == f.pointer_space.end() ? MemorySpace::Generic : it->second;
  }

  // The front end's description of a pointer argument: root (a caller
  // parameter or a shared array) and byte offset, in the caller's terms.
  PointerArg pointer_target(const Frame& f, const PointerTarget& t) const {
    PointerArg r;
    r.space = t.space;
    ExprRef base = Expr::constant(0);
    if (t.base_param >= 0 && std::size_t(t.base_param) < f.fn->params.size()) {
      auto it = f.pointer_offsets.find(t.base_param);
      if (it != f.pointer_offsets.end()) base = it->second;
      if (r.space == MemorySpace::Generic) r.space = space_of_pointer_param(f, t.base_param);
      if (auto sh = f.pointer_shared.find(t.base_param); sh != f.pointer_shared.end()) {
        r.space = MemorySpace::Shared;
        r.shared_array = sh->second.first;
        r.shared_owner = sh->second.second;
      }
    }
    if (!t.shared_array.empty()) {
      r.space = MemorySpace::Shared;
      r.shared_array = t.shared_array;
      for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
        if (shared_named(**it, t.shared_array)) {
          r.shared_owner = *it;
          break;
        }
    }
    if (base && t.byte_offset) r.byte_offset = Expr::binary(ExprOp::Add, base, subst(f, t.byte_offset));
    return r;
  }

  Frame enter(const Frame& caller, const CallSite& call, const Function& callee) const {
    Frame f;
    f.fn = &callee;
    f.via = caller.via;
    f.via.push_back(&call);
    f.via_in = caller.via_in;
    f.via_in.push_back(caller.fn);
    f.guards = caller.guards;
    for (const auto& g : call.guards) f.guards.push_back(bind_guard(caller, g));
    f.loops = caller.loops;
    for (int l : call.loops) f.loops.push_back(bind_loop(caller, l));
    for (std::size_t i = 0; i < callee.params.size(); ++i) {
      const Parameter& p = callee.params[i];
      ExprRef arg = i < call.args.size() ? call.args[i] : nullptr;
      f.param_values[p.name] = arg ? subst(caller, arg) : Expr::opaque(p.name, false);
      // A pointer, or a reference the front end bound to the caller's lvalue
      // (`Comparator(s_key[pos], ...)` with `uint& keyA`).
      if (p.is_pointer || p.is_reference) {
        const std::optional<PointerTarget>* target =
            i < call.pointer_args.size() ? &call.pointer_args[i] : nullptr;
        PointerArg pa = target && *target ? pointer_target(caller, **target) : pointer_argument(caller, arg);
        f.pointer_offsets[int(i)] = pa.byte_offset;
        f.pointer_space[int(i)] = pa.space;
        if (!pa.shared_array.empty()) f.pointer_shared[int(i)] = {pa.shared_array, pa.shared_owner};
      }
    }
    return f;
  }

  static BoundGuard bind_guard(const Frame& f, const Guard& g) {
    BoundGuard b;
    b.owner = f.fn;
    b.condition_id = g.condition;
    b.taken = g.taken;
    if (g.condition >= 0 && std::size_t(g.condition) < f.fn->conditions.size())
      b.condition = subst(f, f.fn->conditions[std::size_t(g.condition)].expr);
    return b;
  }

  static BoundLoop bind_loop(const Frame& f, int loop_id) {
    BoundLoop b;
    b.owner = f.fn;
    b.loop_id = loop_id;
    if (loop_id >= 0 && std::size_t(loop_id) < f.fn->loops.size()) {
      int c = f.fn->loops[std::size_t(loop_id)].condition;
      if (c >= 0 && std::size_t(c) < f.fn->conditions.size())
        b.exit_condition = subst(f, f.fn->conditions[std::size_t(c)].expr);
    }
    return b;
  }

  template <typename T>
  static void bind_context(const Frame& f, const T& item, std::vector<BoundGuard>& guards,
                           std::vector<BoundLoop>& loops) {
    guards = f.guards;
    for (const auto& g : item.guards)
      if (g.condition >= 0 && std::size_t(g.condition) < f.fn->conditions.size())
        guards.push_back(bind_guard(f, g));
    loops = f.loops;
    for (int l : item.loops)
      if (l >= 0 && std::size_t(l) < f.fn->loops.size()) loops.push_back(bind_loop(f, l));
  }

  void bind_accesses(const Frame& f, KernelView& out) const {
    for (const auto& a : f.fn->accesses) {
      BoundAccess b;
      b.owner = f.fn;
      b.access = &a;
      b.space = a.space;
      b.shared_array = a.shared_array;
      b.via = f.via;
      b.via_in = f.via_in;
      if (!a.shared_array.empty())
        for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
          if (shared_named(**it, a.shared_array)) {
            b.shared_array_owner = *it;
            break;
          }
      ExprRef offset = subst(f, access_byte_offset(a));
      if (offset && a.base_param >= 0 && std::size_t(a.base_param) < f.fn->params.size() &&
          (f.fn->params[std::size_t(a.base_param)].is_pointer || f.fn->params[std::size_t(a.base_param)].is_reference)) {
        if (auto it = f.pointer_offsets.find(a.base_param); it != f.pointer_offsets.end())
          offset = it->second ? Expr::binary(ExprOp::Add, it->second, offset) : nullptr;
        if (auto sh = f.pointer_shared.find(a.base_param); sh != f.pointer_shared.end()) {
          b.space = MemorySpace::Shared;
          b.shared_array = sh->second.first;
          b.shared_array_owner = sh->second.second;
        } else if (b.space == MemorySpace::Generic) {
          b.space = space_of_pointer_param(f, a.base_param);
        }
      }
      b.byte_offset = offset;
      b.indirect = is_indirect(offset) || (a.index && is_indirect(subst(f, a.index)));
      bind_context(f, a, b.guards, b.loops);
      out.accesses.push_back(std::move(b));
    }
  }

  void bind_barriers(const Frame& f, KernelView& out) const {
    for (const auto& bar : f.fn->barriers) {
      BoundBarrier b;
      b.owner = f.fn;
      b.barrier = &bar;
      b.via = f.via;
      b.via_in = f.via_in;
      bind_context(f, bar, b.guards, b.loops);
      out.barriers.push_back(std::move(b));
    }
  }

  void bind_conditions(const Frame& f, KernelView& out) const {
    for (std::size_t i = 0; i < f.fn->conditions.size(); ++i) {
      BoundCondition c;
      c.owner = f.fn;
      c.condition_id = int(i);
      c.expr = subst(f, f.fn->conditions[i].expr);
      c.outer_guards = f.guards;
      c.via = f.via;
      c.via_in = f.via_in;
      out.conditions.push_back(std::move(c));
    }
  }

  const KernelModel& model_;
  int max_depth_;
  std::vector<const Function*> stack_;
};

}  // namespace

ExprRef access_byte_offset(const MemoryAccess& a) {
  if (a.byte_offset) return a.byte_offset;
  if (a.index && a.element_bytes > 0)
    return Expr::binary(ExprOp::Mul, a.index, Expr::constant(a.element_bytes));
  return nullptr;
}

KernelView bind_kernel(const KernelModel& model, const Function& kernel, int max_depth) {
  KernelView view;
  view.kernel = &kernel;
  Frame root;
  root.fn = &kernel;
  Binder(model, max_depth).walk(root, view);
  return view;
}

std::vector<LaneGuard> lane_guards(const std::vector<BoundGuard>& guards) {
  std::vector<LaneGuard> out;
  out.reserve(guards.size());
  for (const auto& g : guards) out.push_back({g.condition, g.taken});
  return out;
}

std::string describe_chain(const CallChain& via) {
  if (via.empty()) return {};
  const CallSite* outer = via.front();
  std::string s = "through the call to `" + outer->callee + "` at line " +
                  std::to_string(outer->range.start.line + 1);
  if (via.size() > 1) s += " (then `" + via.back()->callee + "`)";
  return s;
}

}  // namespace warplens

namespace warplens {

const std::string& file_of(const Function& fn, const std::string& model_file) {
  return fn.file.empty() ? model_file : fn.file;
}

std::vector<RelatedInformation> call_chain_related(const CallChain& via, const CallChainOwners& via_in,
                                                   const std::string& model_file) {
  std::vector<RelatedInformation> out;
  for (std::size_t i = 0; i < via.size() && i < via_in.size(); ++i) {
    if (!via_in[i]) continue;
    out.push_back({{file_of(*via_in[i], model_file), via[i]->range},
                   "`" + via_in[i]->name + "` calls `" + via[i]->callee + "` here"});
  }
  return out;
}

}  // namespace warplens
