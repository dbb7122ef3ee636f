#include <cstdio>

#include "agent/verifier/verdict.h"
#include "agent/verifier/verifier_json.h"

namespace warplens::verifier {

const char* to_string(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::Verified: return "verified";
    case VerdictStatus::Error: return "error";
    case VerdictStatus::Cancelled: return "cancelled";
  }
  return "error";
}

NLOHMANN_JSON_SERIALIZE_ENUM(VerdictStatus, {{VerdictStatus::Verified, "verified"},
                                             {VerdictStatus::Error, "error"},
                                             {VerdictStatus::Cancelled, "cancelled"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CompileEvidence, attempted, ok, relocatable, command, log, ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(InputSetEvidence, index, origin, shape, skipped, skip_reason, checked,
                                                passed, deterministic, failure, buffers, original_launches,
                                                candidate_launches)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SanitizerEvidence, ran, clean, errors, report, command, note, runs, ms,
                                                phase_ms)

void to_json(json& j, const TimingEvidence& v) {
  j = json{{"method", v.method},
           {"basis", v.basis},
           {"original", v.original},
           {"candidate", v.candidate},
           {"original_stream", v.original_stream},
           {"candidate_stream", v.candidate_stream},
           {"original_device", v.original_device},
           {"candidate_device", v.candidate_device},
           {"warmup", v.warmup},
           {"l2_flush_bytes", v.l2_flush_bytes},
           {"outputs_checked", v.outputs_checked},
           {"fresh_sets", v.fresh_sets},
           {"seed", v.seed},
           {"module_reloaded", v.module_reloaded},
           {"pytorch_note", v.pytorch_note}};
  put_optional(j, "eager", v.eager);
  put_optional(j, "compiled", v.compiled);
}

void from_json(const json& j, TimingEvidence& v) {
  v.method = j.value("method", std::string());
  v.basis = j.value("basis", std::string());
  v.original = j.value("original", TimingSummary{});
  v.candidate = j.value("candidate", TimingSummary{});
  v.original_stream = j.value("original_stream", TimingSummary{});
  v.candidate_stream = j.value("candidate_stream", TimingSummary{});
  v.original_device = j.value("original_device", TimingSummary{});
  v.candidate_device = j.value("candidate_device", TimingSummary{});
  v.warmup = j.value("warmup", 0);
  v.l2_flush_bytes = j.value("l2_flush_bytes", std::uint64_t{0});
  v.outputs_checked = j.value("outputs_checked", 0);
  v.fresh_sets = j.value("fresh_sets", 0);
  v.seed = j.value("seed", std::uint64_t{0});
  v.module_reloaded = j.value("module_reloaded", false);
  v.pytorch_note = j.value("pytorch_note", std::string());
  get_optional(j, "eager", v.eager);
  get_optional(j, "compiled", v.compiled);
}

std::string to_json_text(const Verdict& v) {
  json j = {{"format", "warplens-verdict"},
            {"version", v.format_version},
            {"status", v.status},
            {"level", v.level},
            {"measured_level", v.measured_level},
            {"correct", v.correct},
            {"speedup", v.speedup},
            {"needs_review", v.needs_review},
            {"offerable", v.offerable()},
            {"reasons", v.reasons},
            {"flags", v.flags},
            {"source_findings", v.source_findings},
            {"error", v.error},
            {"kernel", v.kernel},
            {"symbol", v.symbol},
            {"capture_dir", v.capture_dir},
            {"original_source", v.original_source},
            {"candidate_source", v.candidate_source},
            {"pytorch_reference", v.pytorch_reference},
            {"timing_launch", v.timing_launch},
            {"device", v.device},
            {"tolerance", v.tolerance},
            {"original_launch", v.original_launch},
            {"candidate_launch", v.candidate_launch},
            {"original_function", v.original_function},
            {"candidate_function", v.candidate_function},
            {"original_compile", v.original_compile},
            {"candidate_compile", v.candidate_compile},
            {"reproduction", v.reproduction},
            {"reference_reused", v.reference_reused},
            {"pipeline", v.pipeline},
            {"shapes_note", v.shapes_note},
            {"input_sets", v.input_sets},
            {"notes", v.notes},
            {"reproduce", v.reproduce},
            {"wall_ms", v.wall_ms},
            {"stage_ms", v.stage_ms}};
  put_optional(j, "timing", v.timing);
  put_optional(j, "sanitizer", v.sanitizer);
  return j.dump(2) + "\n";
}

Verdict parse_verdict(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("verdict is not valid JSON: ") + e.what());
  }
  if (j.value("format", std::string()) != "warplens-verdict") throw std::runtime_error("not a warplens verdict");
  Verdict v;
  try {
    v.format_version = j.at("version").get<int>();
    v.status = j.at("status").get<VerdictStatus>();
    v.level = j.at("level").get<int>();
    v.measured_level = j.value("measured_level", v.level);
    v.correct = j.value("correct", false);
    v.speedup = j.value("speedup", 0.0);
    v.needs_review = j.value("needs_review", false);
    v.reasons = j.value("reasons", std::vector<std::string>{});
    v.flags = j.value("flags", std::vector<std::string>{});
    v.source_findings = j.value("source_findings", std::vector<SourceFinding>{});
    v.error = j.value("error", std::string());
    v.kernel = j.value("kernel", std::string());
    v.symbol = j.value("symbol", std::string());
    v.capture_dir = j.value("capture_dir", std::string());
    v.original_source = j.value("original_source", std::string());
    v.candidate_source = j.value("candidate_source", std::string());
    v.pytorch_reference = j.value("pytorch_reference", std::string());
    v.timing_launch = j.value("timing_launch", 0);
    v.device = j.value("device", DeviceSummary{});
    v.tolerance = j.value("tolerance", Tolerance{});
    v.original_launch = j.value("original_launch", LaunchGeometry{});
    v.candidate_launch = j.value("candidate_launch", LaunchGeometry{});
    v.original_function = j.value("original_function", FunctionInfo{});
    v.candidate_function = j.value("candidate_function", FunctionInfo{});
    v.original_compile = j.value("original_compile", CompileEvidence{});
    v.candidate_compile = j.value("candidate_compile", CompileEvidence{});
    v.reproduction = j.value("reproduction", std::vector<Reproduction>{});
    v.reference_reused = j.value("reference_reused", false);
    v.pipeline = j.value("pipeline", std::string());
    v.shapes_note = j.value("shapes_note", std::string());
    v.input_sets = j.value("input_sets", std::vector<InputSetEvidence>{});
    get_optional(j, "sanitizer", v.sanitizer);
    v.notes = j.value("notes", std::vector<std::string>{});
    v.reproduce = j.value("reproduce", std::string());
    v.wall_ms = j.value("wall_ms", 0.0);
    v.stage_ms = j.value("stage_ms", std::map<std::string, double>{});
    get_optional(j, "timing", v.timing);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("malformed verdict: ") + e.what());
  }
  return v;
}

namespace {
template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}
}  // namespace

std::string summary_text(const Verdict& v) {
  std::string s;
  if (v.status != VerdictStatus::Verified) {
    s += std::string("verification ") + to_string(v.status) + ": " + v.error + "\n";
    return s;
  }
  s += fmt("level %d", v.level);
  if (v.measured_level != v.level) s += fmt(" (measured %d, demoted)", v.measured_level);
  s += "\n";
  for (const auto& r : v.reasons) s += "  " + r + "\n";
  int passed = 0, checked = 0, skipped = 0;
  double max_abs = 0;
  std::string where;
  for (const auto& set : v.input_sets) {
    if (set.skipped) ++skipped;
    if (!set.checked) continue;
    ++checked;
    if (set.passed) ++passed;
    for (const auto& b : set.buffers)
      if (b.check == "value" && b.comparison.max_abs_error >= max_abs) {
        max_abs = b.comparison.max_abs_error;
        where = b.name;
      }
  }
  s += fmt("  correctness: %d/%d input sets passed (rtol/atol fp32 %g/%g, fp16/bf16 %g/%g, fp64 %g/%g)", passed,
           static_cast<int>(v.input_sets.size()) - skipped, v.tolerance.rtol_f32, v.tolerance.atol_f32,
           v.tolerance.rtol_half, v.tolerance.atol_half, v.tolerance.rtol_f64, v.tolerance.atol_f64);
  if (checked && !where.empty()) s += fmt("; max abs error %.3g in ", max_abs) + where;
  s += "\n";
  // Every shape exercised: per set, the original's grid and block and the
  // integer arguments.
  for (const auto& set : v.input_sets) {
    if (!set.checked && !set.skipped) continue;
    std::string args;
    for (const auto& a : set.shape.integer_args) args += " " + a.name + "=" + std::to_string(a.value);
    s += fmt("  set %d: grid ", set.index) + to_string(set.shape.original.grid) + " block " +
         to_string(set.shape.original.block) + (args.empty() ? "" : ";" + args) +
         (set.skipped ? " (skipped: " + set.skip_reason + ")" : "") + "\n";
  }
  if (!v.shapes_note.empty()) s += "  shapes: " + v.shapes_note + "\n";
  if (v.timing) {
    const auto& t = *v.timing;
    s += fmt("  timing: original %.2f us (spread %.1f%%), candidate %.2f us (spread %.1f%%), %d runs each, ",
             t.original.median_us, 100 * t.original.spread(), t.candidate.median_us, 100 * t.candidate.spread(),
             t.candidate.runs) +
         t.basis + "\n";
    if (t.eager) s += fmt("  PyTorch eager %.2f us", t.eager->median_us);
    if (t.compiled) s += fmt(", torch.compile %.2f us", t.compiled->median_us);
    if (t.eager || t.compiled) s += "\n";
    if (!t.pytorch_note.empty()) s += "  " + t.pytorch_note + "\n";
  }
  if (v.sanitizer) {
    const auto& z = *v.sanitizer;
    if (z.ran) s += fmt("  compute-sanitizer memcheck: %s (%d run(s), %.1f s)", z.clean ? "clean" : "ERRORS", z.runs, z.ms / 1000) +
                    (z.clean ? "" : ": " + z.report) + "\n";
    else s += "  compute-sanitizer memcheck not run: " + z.note + "\n";
  }
  for (const auto& f : v.source_findings)
    s += std::string("  source") + (f.demotes ? " (demotes)" : f.needs_review ? " (needs review)" : "") + ": " +
         f.message + "\n";
  if (!v.flags.empty()) {
    s += "  flags:";
    for (const auto& f : v.flags) s += " " + f;
    s += "\n";
  }
  for (const auto& n : v.notes) s += "  note: " + n + "\n";
  if (!v.reproduce.empty()) s += "  reproduce: " + v.reproduce + "\n";
  return s;
}

}  // namespace warplens::verifier
