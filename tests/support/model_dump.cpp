#include "tests/support/model_dump.h"

#include <sstream>

namespace warplens::testing {

std::string dump_range(const Range& r) {
  std::ostringstream os;
  os << r.start.line << ":" << r.start.column << "-" << r.end.line << ":" << r.end.column;
  return os.str();
}

namespace {

std::string guards(const std::vector<Guard>& gs) {
  std::ostringstream os;
  for (size_t i = 0; i < gs.size(); ++i) os << (i ? "," : "") << (gs[i].taken ? "" : "!") << "c" << gs[i].condition;
  return os.str();
}

std::string loops(const std::vector<int>& ls) {
  std::ostringstream os;
  for (size_t i = 0; i < ls.size(); ++i) os << (i ? "," : "") << "L" << ls[i];
  return os.str();
}

const char* kind_name(ConditionKind k) {
  switch (k) {
    case ConditionKind::If: return "if";
    case ConditionKind::Ternary: return "ternary";
    case ConditionKind::LoopExit: return "loop";
    case ConditionKind::EarlyExit: return "early-exit";
    case ConditionKind::Switch: return "switch";
    case ConditionKind::ShortCircuit: return "short-circuit";
  }
  return "?";
}

const char* barrier_name(BarrierKind k) {
  switch (k) {
    case BarrierKind::SyncThreads: return "syncthreads";
    case BarrierKind::SyncWarp: return "syncwarp";
    case BarrierKind::CooperativeGroup: return "cg";
  }
  return "?";
}

}  // namespace

std::string dump_model(const KernelModel& model) {
  std::ostringstream os;
  for (const auto& f : model.functions) {
    os << (f.kind == FunctionKind::Kernel ? "kernel " : f.kind == FunctionKind::Device ? "device " : "host-device ")
       << f.key << (f.is_template ? " [template]" : "") << " @" << dump_range(f.range) << "\n";
    if (f.launch_bounds)
      os << "  launch_bounds " << f.launch_bounds->max_threads.value_or(-1) << ","
         << f.launch_bounds->min_blocks.value_or(-1) << " '" << f.launch_bounds->spelling << "'\n";
    for (const auto& p : f.params)
      os << "  param " << p.name << ": " << p.type << (p.is_pointer ? " ptr" : "") << (p.is_restrict ? " restrict" : "")
         << (p.pointee_const ? " const" : "") << (p.pointee_bytes ? " " : "") << (p.pointee_bytes ? std::to_string(p.pointee_bytes) + "B" : "") << "\n";
    for (const auto& s : f.shared_arrays) {
      os << "  shared " << s.element_type << " " << s.name;
      for (auto d : s.dims) os << "[" << d << "]";
      os << " " << s.element_bytes << "B" << (s.is_extern ? " extern" : "") << (s.address_escapes ? " escapes" : "")
         << " inner='" << s.innermost_dim_spelling << "'\n";
    }
    for (size_t i = 0; i < f.conditions.size(); ++i) {
      const auto& c = f.conditions[i];
      os << "  c" << i << " " << kind_name(c.kind) << " `" << c.spelling << "` = " << to_string(c.expr)
         << (c.expr && is_lane_varying(c.expr) ? " [varying]" : "") << (c.parent >= 0 ? " parent c" : "") << (c.parent >= 0 ? std::to_string(c.parent) : "")
         << "\n";
    }
    for (size_t i = 0; i < f.loops.size(); ++i) {
      const auto& l = f.loops[i];
      os << "  L" << i << " iv=" << l.induction_variable << " init=" << (l.init ? to_string(l.init) : "-")
         << " step=" << (l.step ? to_string(l.step) : "-") << " cond=c" << l.condition
         << (l.uniform_trip ? " uniform" : " divergent") << (l.parent >= 0 ? " parent L" : "") << (l.parent >= 0 ? std::to_string(l.parent) : "")
         << (l.unroll ? " unroll " : "") << (l.unroll ? std::to_string(*l.unroll) : "") << "\n";
    }
    for (const auto& a : f.accesses) {
      os << "  " << to_string(a.kind) << " " << to_string(a.space) << " " << a.spelling << " @" << dump_range(a.range)
         << " " << a.element_type << "/" << a.element_bytes << " base=" << a.base << (a.base_param >= 0 ? "#" : "") << (a.base_param >= 0 ? std::to_string(a.base_param) : "")
         << " idx=" << (a.index ? to_string(a.index) : "-") << " off=" << (a.byte_offset ? to_string(a.byte_offset) : "-")
         << (a.reinterpreted ? " reinterpreted" : "") << (a.through_pointer_arithmetic ? " ptr-arith" : "")
         << (a.in_macro ? " macro" : "");
      if (!a.guards.empty()) os << " guards=" << guards(a.guards);
      if (!a.loops.empty()) os << " loops=" << loops(a.loops);
      os << "\n";
    }
    for (const auto& b : f.barriers) {
      os << "  barrier " << barrier_name(b.kind) << " `" << b.spelling << "` @" << dump_range(b.range);
      if (!b.guards.empty()) os << " guards=" << guards(b.guards);
      if (!b.loops.empty()) os << " loops=" << loops(b.loops);
      os << "\n";
    }
    for (const auto& c : f.calls) {
      os << "  call " << c.callee_key << " (";
      for (size_t i = 0; i < c.args.size(); ++i) {
        os << (i ? ", " : "") << to_string(c.args[i]);
        if (i < c.pointer_args.size() && c.pointer_args[i])
          os << "{" << to_string(c.pointer_args[i]->space) << " " << c.pointer_args[i]->base << "+"
             << to_string(c.pointer_args[i]->byte_offset) << "}";
      }
      os << ")";
      if (!c.guards.empty()) os << " guards=" << guards(c.guards);
      os << "\n";
    }
  }
  for (const auto& l : model.launches) {
    auto dim = [](const Dim3Value& d) {
      std::string s = "'" + d.spelling + "'";
      if (d.value) s += "=(" + std::to_string((*d.value)[0]) + "," + std::to_string((*d.value)[1]) + "," + std::to_string((*d.value)[2]) + ")";
      return s;
    };
    os << "launch " << l.kernel_key << " in " << l.caller << " grid=" << dim(l.grid) << " block=" << dim(l.block)
       << " smem=" << (l.shared_bytes ? std::to_string(*l.shared_bytes) : "?") << " '" << l.shared_bytes_spelling << "'"
       << (l.stream_spelling.empty() ? "" : " stream=" + l.stream_spelling) << (l.in_loop ? " in-loop" : "")
       << (l.template_args.empty() ? "" : " targs=" + l.template_args) << " @" << dump_range(l.range) << "\n";
  }
  return os.str();
}

}  // namespace warplens::testing
