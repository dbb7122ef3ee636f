// nlohmann/json conversions for the verifier's own file formats (the replay
// protocol and the verdict evidence). Included only by the verifier's .cpp
// files; the public headers stay free of nlohmann.
//
// Missing keys take the struct's default (the *_WITH_DEFAULT macros), so a
// reader tolerates fields added later; std::optional members are written by
// hand (absent = nullopt) to stay independent of the library's version.
#pragma once

#include <nlohmann/json.hpp>

#include "agent/verifier/replay_protocol.h"
#include "agent/verifier/source_comparison.h"
#include "agent/verifier/timing_stats.h"

namespace warplens::verifier {

using nlohmann::json;

// Declared first: the macro-generated functions below call them.
inline void to_json(json& j, const BufferComparison& v);
inline void from_json(const json& j, BufferComparison& v);
inline void to_json(json& j, const BufferCheck& v);
inline void from_json(const json& j, BufferCheck& v);
inline void to_json(json& j, const CandidateSet& v);
inline void from_json(const json& j, CandidateSet& v);
inline void to_json(json& j, const LaunchOverride& v);
inline void from_json(const json& j, LaunchOverride& v);
inline void to_json(json& j, const InputSetSpec& v);
inline void from_json(const json& j, InputSetSpec& v);
inline void to_json(json& j, const LaunchReshape& v);
inline void from_json(const json& j, LaunchReshape& v);

inline void to_json(json& j, const ElementType& t) { j = to_string(t); }
inline void from_json(const json& j, ElementType& t) {
  auto v = element_type_from_string(j.get<std::string>());
  if (!v) throw std::runtime_error("unknown element type '" + j.get<std::string>() + "'");
  t = *v;
}

NLOHMANN_JSON_SERIALIZE_ENUM(Problem, {{Problem::None, "none"},
                                       {Problem::OutOfTolerance, "out-of-tolerance"},
                                       {Problem::NaN, "nan"},
                                       {Problem::StrayWrite, "stray-write"},
                                       {Problem::ChangedBits, "changed-bits"}})
NLOHMANN_JSON_SERIALIZE_ENUM(BufferRole, {{BufferRole::Input, "input"},
                                          {BufferRole::Output, "output"},
                                          {BufferRole::InOut, "inout"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Tolerance, rtol_f32, atol_f32, rtol_half, atol_half, nan_equal,
                                                rtol_f64, atol_f64)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ByteRange, begin, end)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BufferLayout, type, phase)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ElementReport, index, byte_offset, expected, got, abs_error,
                                                rel_error, problem)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ScalarSlot, param, offset, type)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LaunchLayout, launch, allocations, allocation_names, scalars,
                                                scalar_names)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ScalarValue, param, offset, type, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LaunchGeometry, grid, block, dynamic_shared_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Ratio, num, den)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelRef, cubin, symbol, name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ReferenceBuffer, role, expected_blob, expected_hash, unwritten,
                                                device_hash)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ReferenceSet, index, buffers, deterministic, nondeterminism, skipped,
                                                skip_reason, geometry)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LaunchSequence, id, launches)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ParamSource, part, index)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Reproduction, launch, reproduced, detail)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FunctionInfo, symbol, num_regs, static_shared_bytes, local_bytes,
                                                max_threads_per_block)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceSummary, name, arch, cc_major, cc_minor, l2_bytes, sm_count,
                                                driver_version)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ReferenceResult, ok, error, device, function, reproduction, roles,
                                                sets, deterministic, max_run_ms, wall_ms, guards_unchecked, notes,
                                                failed_set, pipeline)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(IntegerArg, param, name, value, captured)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SetShape, recorded, original, candidate, integer_args, variation)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SanitizeResult, ok, error, runs, fault, failure, wall_ms, load_ms,
                                                prepare_ms, upload_ms, kernel_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RunCheck, run, passed, buffers)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingSamples, original_us, candidate_us, original_device_us,
                                                candidate_device_us, warmup, l2_flush_bytes, outputs_checked,
                                                output_failure, fresh_sets, seed, module_reloaded)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceProbe, ok, error, device)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingSummary, runs, median_us, p25_us, p75_us, min_us, max_us,
                                                mean_us)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SourceFinding, rule, demotes, message, param, line, needs_review)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NumericLiteral, value, is_integer, spelling, line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelSourceFacts, found, kernel, param_names, param_uses, literals,
                                                device_side_launch, half_precision)

// --- hand-written: structs with std::optional members -----------------------

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
template <class T>
void get_optional(const json& j, const char* key, std::optional<T>& v) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) v = it->template get<T>();
  else v.reset();
}

inline void to_json(json& j, const BufferComparison& v) {
  j = json{{"ok", v.ok},
           {"elements", v.elements},
           {"mismatches", v.mismatches},
           {"stray_bytes", v.stray_bytes},
           {"max_abs_error", v.max_abs_error},
           {"max_rel_error", v.max_rel_error}};
  if (v.max_abs_expected > 0) j["max_abs_expected"] = v.max_abs_expected;
  put_optional(j, "worst", v.worst);
}
inline void from_json(const json& j, BufferComparison& v) {
  v.ok = j.value("ok", true);
  v.elements = j.value("elements", std::uint64_t{0});
  v.mismatches = j.value("mismatches", std::uint64_t{0});
  v.stray_bytes = j.value("stray_bytes", std::uint64_t{0});
  v.max_abs_error = j.value("max_abs_error", 0.0);
  v.max_rel_error = j.value("max_rel_error", 0.0);
  v.max_abs_expected = j.value("max_abs_expected", 0.0);
  get_optional(j, "worst", v.worst);
}

inline void to_json(json& j, const BufferCheck& v) {
  j = json{{"allocation", v.allocation}, {"name", v.name}, {"role", v.role}, {"check", v.check},
           {"comparison", v.comparison}};
  if (v.widened_atol > 0) {
    j["widened_atol"] = v.widened_atol;
    j["reassociated_terms"] = v.reassociated_terms;
  }
}
inline void from_json(const json& j, BufferCheck& v) {
  v.allocation = j.value("allocation", 0);
  v.name = j.value("name", std::string());
  v.role = j.value("role", BufferRole::Input);
  v.check = j.value("check", std::string());
  if (j.contains("comparison")) v.comparison = j.at("comparison").get<BufferComparison>();
  v.widened_atol = j.value("widened_atol", 0.0);
  v.reassociated_terms = j.value("reassociated_terms", std::uint64_t{0});
}

inline void to_json(json& j, const CandidateSet& v) {
  j = json{{"index", v.index}, {"passed", v.passed}, {"runs", v.runs}, {"deterministic", v.deterministic},
           {"failure", v.failure}, {"skipped", v.skipped}, {"skip_reason", v.skip_reason}, {"shape", v.shape}};
  put_optional(j, "determinism", v.determinism);
  if (!v.original_launches.empty()) j["original_launches"] = v.original_launches;
  if (!v.candidate_launches.empty()) j["candidate_launches"] = v.candidate_launches;
}
inline void from_json(const json& j, CandidateSet& v) {
  v.index = j.value("index", 0);
  v.skipped = j.value("skipped", false);
  v.skip_reason = j.value("skip_reason", std::string());
  v.shape = j.value("shape", SetShape{});
  v.passed = j.value("passed", true);
  v.runs = j.value("runs", std::vector<RunCheck>{});
  v.deterministic = j.value("deterministic", true);
  v.failure = j.value("failure", std::string());
  get_optional(j, "determinism", v.determinism);
  v.original_launches = j.value("original_launches", std::vector<LaunchGeometry>{});
  v.candidate_launches = j.value("candidate_launches", std::vector<LaunchGeometry>{});
}

inline void to_json(json& j, const Extent& v) { j = json{{"param", v.param}, {"constant", v.constant}}; }
inline void from_json(const json& j, Extent& v) {
  v.param = j.value("param", -1);
  v.constant = j.value("constant", std::int64_t{0});
}

inline void to_json(json& j, const LaunchReshape& v) {
  j = json{{"swap_xy", v.swap_xy}, {"scale", v.scale}, {"persistent_blocks_per_sm", v.persistent_blocks_per_sm}};
  put_optional(j, "block", v.block);
  put_optional(j, "cover", v.cover);
}
inline void from_json(const json& j, LaunchReshape& v) {
  v.swap_xy = j.value("swap_xy", false);
  v.scale = j.value("scale", std::array<Ratio, 3>{});
  v.persistent_blocks_per_sm = j.value("persistent_blocks_per_sm", std::uint32_t{0});
  get_optional(j, "block", v.block);
  get_optional(j, "cover", v.cover);
}

inline void to_json(json& j, const LaunchOverride& v) {
  j = json{{"coarsen", v.coarsen}};
  put_optional(j, "block", v.block);
  put_optional(j, "dynamic_shared_bytes", v.dynamic_shared_bytes);
  if (!v.reshapes.empty()) j["reshapes"] = v.reshapes;
}
inline void from_json(const json& j, LaunchOverride& v) {
  v.coarsen = j.value("coarsen", Dim3{1, 1, 1});
  get_optional(j, "block", v.block);
  get_optional(j, "dynamic_shared_bytes", v.dynamic_shared_bytes);
  v.reshapes = j.value("reshapes", std::vector<LaunchReshape>{});
}

inline void to_json(json& j, const InputSetSpec& v) {
  j = json{{"index", v.index}, {"launch", v.launch}, {"fresh", v.fresh}, {"seed", v.seed}, {"scalars", v.scalars},
           {"variation", v.variation}, {"skipped", v.skipped}, {"skip_reason", v.skip_reason}};
  if (v.captured_scalars) j["captured_scalars"] = true;
  put_optional(j, "geometry", v.geometry);
  if (!v.sequence.empty()) j["sequence"] = v.sequence;
}
inline void from_json(const json& j, InputSetSpec& v) {
  v.index = j.value("index", 0);
  v.launch = j.value("launch", 0);
  v.fresh = j.value("fresh", false);
  v.seed = j.value("seed", std::uint64_t{0});
  v.scalars = j.value("scalars", std::vector<ScalarValue>{});
  v.variation = j.value("variation", std::string());
  v.skipped = j.value("skipped", false);
  v.skip_reason = j.value("skip_reason", std::string());
  v.captured_scalars = j.value("captured_scalars", false);
  get_optional(j, "geometry", v.geometry);
  v.sequence = j.value("sequence", std::vector<int>{});
}

inline void to_json(json& j, const ReplayPlan& v) {
  j = json{{"format", "warplens-replay-plan"},
           {"version", v.version},
           {"capture_dir", v.capture_dir},
           {"work_dir", v.work_dir},
           {"original", v.original},
           {"candidate", v.candidate},
           {"candidate_launch", v.candidate_launch},
           {"layouts", v.layouts},
           {"input_sets", v.input_sets},
           {"tolerance", v.tolerance},
           {"warmup_runs", v.warmup_runs},
           {"timed_runs", v.timed_runs},
           {"timing_set", v.timing_set},
           {"run_deadline_s", v.run_deadline_s},
           {"l2_flush_bytes", v.l2_flush_bytes},
           {"guard_bytes", v.guard_bytes},
           {"pipeline", v.pipeline},
           {"timing_seed", v.timing_seed}};
  if (!v.sequences.empty()) j["sequences"] = v.sequences;
  if (!v.original_steps.empty()) j["original_steps"] = v.original_steps;
  if (!v.candidate_params.empty()) j["candidate_params"] = v.candidate_params;
  if (!v.elided.empty()) j["elided"] = v.elided;
  if (v.reassociation) j["reassociation"] = v.reassociation->terms;
}
inline void from_json(const json& j, ReplayPlan& v) {
  v.version = j.at("version").get<int>();
  v.capture_dir = j.at("capture_dir").get<std::string>();
  v.work_dir = j.at("work_dir").get<std::string>();
  v.original = j.at("original").get<KernelRef>();
  v.candidate = j.value("candidate", KernelRef{});
  v.candidate_launch = j.value("candidate_launch", LaunchOverride{});
  v.layouts = j.at("layouts").get<std::vector<LaunchLayout>>();
  v.input_sets = j.at("input_sets").get<std::vector<InputSetSpec>>();
  v.tolerance = j.value("tolerance", Tolerance{});
  v.warmup_runs = j.value("warmup_runs", 3);
  v.timed_runs = j.value("timed_runs", 30);
  v.timing_set = j.value("timing_set", 0);
  v.run_deadline_s = j.value("run_deadline_s", 10.0);
  v.l2_flush_bytes = j.value("l2_flush_bytes", std::uint64_t{0});
  v.guard_bytes = j.value("guard_bytes", std::uint64_t{1} << 20);
  v.pipeline = j.value("pipeline", std::string("device"));
  v.timing_seed = j.value("timing_seed", std::uint64_t{0});
  v.sequences = j.value("sequences", std::vector<LaunchSequence>{});
  v.original_steps = j.value("original_steps", std::vector<KernelRef>{});
  v.candidate_params = j.value("candidate_params", std::vector<ParamSource>{});
  v.elided = j.value("elided", std::vector<ParamSource>{});
  if (j.contains("reassociation")) v.reassociation = Reassociation{j.at("reassociation").get<std::vector<Extent>>()};
}

inline void to_json(json& j, const CandidateResult& v) {
  j = json{{"ok", v.ok},
           {"error", v.error},
           {"stage", v.stage},
           {"correct", v.correct},
           {"failure", v.failure},
           {"timed_out", v.timed_out},
           {"fault", v.fault},
           {"sets", v.sets},
           {"original_geometry", v.original_geometry},
           {"candidate_geometry", v.candidate_geometry},
           {"original_function", v.original_function},
           {"candidate_function", v.candidate_function},
           {"wall_ms", v.wall_ms},
           {"pipeline", v.pipeline}};
  put_optional(j, "timing", v.timing);
}
inline void from_json(const json& j, CandidateResult& v) {
  v.ok = j.value("ok", false);
  v.error = j.value("error", std::string());
  v.stage = j.value("stage", std::string());
  v.correct = j.value("correct", false);
  v.failure = j.value("failure", std::string());
  v.timed_out = j.value("timed_out", false);
  v.fault = j.value("fault", std::string());
  v.sets = j.value("sets", std::vector<CandidateSet>{});
  v.original_geometry = j.value("original_geometry", LaunchGeometry{});
  v.candidate_geometry = j.value("candidate_geometry", LaunchGeometry{});
  v.original_function = j.value("original_function", FunctionInfo{});
  v.candidate_function = j.value("candidate_function", FunctionInfo{});
  v.wall_ms = j.value("wall_ms", 0.0);
  v.pipeline = j.value("pipeline", std::string());
  get_optional(j, "timing", v.timing);
}

}  // namespace warplens::verifier
