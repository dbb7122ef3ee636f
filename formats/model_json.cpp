#include "formats/model_json.h"

namespace warplens::formats {

using nlohmann::json;

namespace {

const char* to_string(FunctionKind k) {
  switch (k) {
    case FunctionKind::Kernel: return "kernel";
    case FunctionKind::Device: return "device";
    case FunctionKind::HostDevice: return "host-device";
  }
  return "kernel";
}

const char* to_string(ConditionKind k) {
  switch (k) {
    case ConditionKind::If: return "if";
    case ConditionKind::Ternary: return "ternary";
    case ConditionKind::LoopExit: return "loop-exit";
    case ConditionKind::EarlyExit: return "early-exit";
    case ConditionKind::Switch: return "switch";
    case ConditionKind::ShortCircuit: return "short-circuit";
  }
  return "if";
}

const char* to_string(BarrierKind k) {
  switch (k) {
    case BarrierKind::SyncThreads: return "syncthreads";
    case BarrierKind::SyncWarp: return "syncwarp";
    case BarrierKind::CooperativeGroup: return "cooperative-group";
  }
  return "syncthreads";
}

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

json guards_json(const std::vector<Guard>& guards) {
  json out = json::array();
  for (const auto& g : guards) out.push_back({{"condition", g.condition}, {"taken", g.taken}});
  return out;
}

json dim3_json(const Dim3Value& d) {
  return {{"spelling", d.spelling}, {"value", d.value ? json(*d.value) : json()}};
}

struct ModelWriter {
  Converter& convert;
  const std::string& file;

  json range(const Range& r) { return convert.range(file, r); }

  json param(const Parameter& p) {
    return {{"name", p.name},           {"type", p.type},
            {"range", range(p.range)},  {"isPointer", p.is_pointer},
            {"pointeeType", p.pointee_type}, {"pointeeBytes", p.pointee_bytes},
            {"pointeeConst", p.pointee_const}, {"restrict", p.is_restrict},
            {"reference", p.is_reference}};
  }

  json shared(const SharedArray& s) {
    return {{"name", s.name},
            {"elementType", s.element_type},
            {"elementBytes", s.element_bytes},
            {"dims", s.dims},
            {"extern", s.is_extern},
            {"range", range(s.range)},
            {"innermostDimRange", range(s.innermost_dim_range)},
            {"innermostDimSpelling", s.innermost_dim_spelling},
            {"addressEscapes", s.address_escapes},
            {"alignment", s.alignment}};
  }

  json access(const MemoryAccess& a) {
    return {{"space", warplens::to_string(a.space)},
            {"kind", warplens::to_string(a.kind)},
            {"base", a.base},
            {"spelling", a.spelling},
            {"range", range(a.range)},
            {"elementType", a.element_type},
            {"elementBytes", a.element_bytes},
            {"index", expression_json(a.index)},
            {"byteOffset", expression_json(a.byte_offset)},
            {"reinterpreted", a.reinterpreted},
            {"throughPointerArithmetic", a.through_pointer_arithmetic},
            {"baseParam", a.base_param},
            {"sharedArray", a.shared_array},
            {"guards", guards_json(a.guards)},
            {"loops", a.loops},
            {"inMacro", a.in_macro}};
  }

  json function(const Function& f) {
    json j = {{"name", f.name},
              {"key", f.key},
              {"signature", f.signature},
              {"kind", to_string(f.kind)},
              {"range", range(f.range)},
              {"nameRange", range(f.name_range)},
              {"bodyRange", range(f.body_range)},
              {"isTemplate", f.is_template},
              {"templateArgs", f.template_args},
              {"launchBounds", nullptr}};
    if (f.launch_bounds)
      j["launchBounds"] = {{"maxThreads", optional_json(f.launch_bounds->max_threads)},
                           {"minBlocks", optional_json(f.launch_bounds->min_blocks)},
                           {"spelling", f.launch_bounds->spelling},
                           {"range", range(f.launch_bounds->range)}};
    json params = json::array(), shared_arrays = json::array(), accesses = json::array();
    for (const auto& p : f.params) params.push_back(param(p));
    for (const auto& s : f.shared_arrays) shared_arrays.push_back(shared(s));
    for (const auto& a : f.accesses) accesses.push_back(access(a));
    json conditions = json::array();
    for (const auto& c : f.conditions)
      conditions.push_back({{"kind", to_string(c.kind)},
                            {"expr", expression_json(c.expr)},
                            {"spelling", c.spelling},
                            {"range", range(c.range)},
                            {"statementRange", range(c.statement_range)},
                            {"parent", c.parent}});
    json loops = json::array();
    for (const auto& l : f.loops)
      loops.push_back({{"inductionVariable", l.induction_variable},
                       {"init", expression_json(l.init)},
                       {"step", expression_json(l.step)},
                       {"bound", expression_json(l.bound)},
                       {"uniformTrip", l.uniform_trip},
                       {"range", range(l.range)},
                       {"parent", l.parent},
                       {"condition", l.condition},
                       {"unroll", optional_json(l.unroll)}});
    json barriers = json::array();
    for (const auto& b : f.barriers)
      barriers.push_back({{"kind", to_string(b.kind)},
                          {"spelling", b.spelling},
                          {"range", range(b.range)},
                          {"guards", guards_json(b.guards)},
                          {"loops", b.loops}});
    json calls = json::array();
    for (const auto& c : f.calls) {
      json args = json::array();
      for (const auto& a : c.args) args.push_back(expression_json(a));
      calls.push_back({{"callee", c.callee},
                       {"calleeKey", c.callee_key},
                       {"range", range(c.range)},
                       {"args", args},
                       {"guards", guards_json(c.guards)},
                       {"loops", c.loops}});
    }
    j["params"] = params;
    j["sharedArrays"] = shared_arrays;
    j["accesses"] = accesses;
    j["conditions"] = conditions;
    j["loops"] = loops;
    j["barriers"] = barriers;
    j["calls"] = calls;
    return j;
  }

  json launch(const LaunchSite& l) {
    return {{"kernel", l.kernel},
            {"kernelKey", l.kernel_key},
            {"caller", l.caller},
            {"range", range(l.range)},
            {"configRange", range(l.config_range)},
            {"grid", dim3_json(l.grid)},
            {"block", dim3_json(l.block)},
            {"sharedBytes", {{"spelling", l.shared_bytes_spelling}, {"value", optional_json(l.shared_bytes)}}},
            {"stream", l.stream_spelling},
            {"args", l.args},
            {"templateArgs", l.template_args},
            {"inLoop", l.in_loop}};
  }
};

}  // namespace

json expression_json(const ExprRef& e) {
  if (!e) return nullptr;
  auto poly = to_polynomial(e);
  return {{"tree", to_string(e)}, {"affine", poly ? poly->to_string() : std::string("not affine")}};
}

json model_json(const KernelModel& model, Converter& convert) {
  ModelWriter w{convert, model.file};
  json functions = json::array(), launches = json::array();
  for (const auto& f : model.functions) functions.push_back(w.function(f));
  for (const auto& l : model.launches) launches.push_back(w.launch(l));
  return {{"functions", functions}, {"launches", launches}};
}

json toolchain_json(const ToolchainStatus& t) {
  return {{"cudaFound", t.cuda_found},           {"cudaPath", t.cuda_path},
          {"cudaVersion", t.cuda_version},       {"degraded", t.degraded},
          {"requestedArch", t.requested_arch},   {"parseArch", t.parse_arch},
          {"compileCommandSource", t.compile_command_source}, {"clangArgs", t.clang_args}};
}

json finding_json(const Finding& f, Converter& convert) {
  const std::string& file = convert.file_of(f.location);
  return {{"file", file},
          {"range", convert.range(file, f.location.range)},
          {"severity", static_cast<int>(f.severity)},
          {"code", f.code},
          {"source", f.source.empty() ? std::string("warplens") : f.source},
          {"message", f.message},
          {"data", evidence_to_json(f.data)}};
}

}  // namespace warplens::formats
