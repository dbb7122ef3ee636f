// `verify`: the agent submits a candidate source for a kernel; the verifier
// (agent/verifier/verifier.h, the function `warplens verify` calls) replays
// the captured launches with the original and the candidate, checks the
// candidate on every input set, times both, and returns the verdict with its
// evidence. The candidate is recorded (candidate_registry.h) so that
// apply_rewrite can later write it, and only if the verdict allows it.
//
// What the agent controls: the candidate text, and the candidate's launch
// shape (block, coarsen, dynamic shared memory), which is part of the
// candidate: the same override `warplens verify --block/--coarsen` takes and
// the verdict records. What it does not: the captured inputs, the number of
// input sets, tolerances, timed runs and time limits, which the server was
// started with (ToolOptions) and which every verdict reports.
#include <algorithm>
#include <atomic>
#include <fstream>

#include "agent/verifier/verdict.h"
#include "mcp/tool_env.h"
#include "mcp/tool_support.h"

namespace warplens::mcp {

namespace fs = std::filesystem;

namespace {

json dim3_schema(const char* what) {
  return {{"type", "array"},
          {"items", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1024}}},
          {"minItems", 1},
          {"maxItems", 3},
          {"description", what}};
}

verifier::Dim3 to_dim3(const json& a) {
  verifier::Dim3 d{1, 1, 1};
  for (std::size_t i = 0; i < a.size() && i < 3; ++i) d[i] = a[i].get<std::uint32_t>();
  return d;
}

// A verification that could not run: its kind for the agent.
std::string error_kind(const verifier::Verdict& v) {
  const std::string& e = v.error;
  if (v.original_compile.attempted && !v.original_compile.ok) return "build-failed";
  if (v.candidate_compile.attempted && !v.candidate_compile.ok) return "build-failed";
  for (const char* gpu : {"no NVIDIA driver", "no usable CUDA GPU", "no CUDA", "CUDA_ERROR_NO_DEVICE"})
    if (e.find(gpu) != std::string::npos) return "no-gpu";
  if (e.find("capture") != std::string::npos || e.find("manifest") != std::string::npos) return "no-capture";
  return "failed";
}

}  // namespace

Tool make_verify_tool(ToolEnv& env) {
  Tool t;
  t.name = "verify";
  t.title = "Verify a candidate kernel on the captured launches";
  t.description =
      "Submit a candidate rewrite of a CUDA file (the whole new file text) for one kernel. The verifier "
      "compiles the original and the candidate with nvcc, replays the kernel's captured launches with both on "
      "this machine's GPU, checks the candidate on 5 input sets (captured, then fresh), times both, compares the "
      "sources for hard-coded values and ignored parameters, and returns the verdict: reward level -1 "
      "(incorrect or demoted), 1 (correct), 2 (correct and more than 5% faster), 3 (also faster than PyTorch), "
      "with its evidence. Inputs, tolerances and timing are fixed by the server, not by this call. The result's "
      "candidate_id and candidate_hash are what apply_rewrite needs. Needs a GPU and a capture of the kernel "
      "(the capture tool, or `warplens capture`).";
  t.input_schema = {
      {"type", "object"},
      {"properties",
       {{"file", {{"type", "string"}, {"description", "the original .cu file, relative to the workspace root"}}},
        {"kernel", {{"type", "string"}, {"description", "the kernel's name as written"}}},
        {"candidate_source",
         {{"type", "string"}, {"maxLength", 4 << 20}, {"description", "the whole candidate file text"}}},
        {"capture",
         {{"type", "string"},
          {"description", "the capture directory (default: the server's, usually .warplens/capture)"}}},
        {"block", dim3_schema("the candidate's block shape [x, y, z] when it differs from the original's")},
        {"coarsen", dim3_schema("original threads per candidate thread, per dimension")},
        {"dynamic_shared_bytes", {{"type", "integer"}, {"minimum", 0}, {"maximum", 1 << 30}}}}},
      {"required", {"file", "kernel", "candidate_source"}},
      {"additionalProperties", false}};
  t.output_schema = {
      {"type", "object"},
      {"properties",
       {{"candidate_id", {{"type", "string"}}},
        {"candidate_hash", {{"type", "string"}}},
        {"file", {{"type", "string"}}},
        {"kernel", {{"type", "string"}}},
        {"level", {{"type", "integer"}}},
        {"measured_level", {{"type", "integer"}}},
        {"correct", {{"type", "boolean"}}},
        {"speedup", {{"type", "number"}}},
        {"applicable", {{"type", "boolean"}, {"description", "apply_rewrite will accept it (level >= 2)"}}},
        {"reasons", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"flags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"device", {{"type", "string"}}},
        {"limits", {{"type", "object"}}},
        {"verdict", {{"type", "object"}, {"description", "the full verdict (warplens-verdict JSON)"}}}}},
      {"required", {"candidate_id", "candidate_hash", "level", "correct", "applicable", "reasons", "verdict"}}};
  t.annotations = {{"readOnlyHint", true}, {"openWorldHint", false}};
  auto counter = std::make_shared<std::atomic<int>>(0);
  t.run = [&env, counter](const json& args, const ToolContext& ctx) {
    const auto& ws = env.workspace();
    const auto file = ws.resolve(args["file"].get<std::string>(), "file");
    const std::string original = read_workspace_file(file, "file");
    const std::string kernel = args["kernel"].get<std::string>();
    const std::string candidate = args["candidate_source"].get<std::string>();
    fs::path capture = args.contains("capture") ? ws.resolve(args["capture"].get<std::string>(), "capture", false)
                                                : ws.resolve(ws.default_capture_dir().string(), "capture", false);
    std::error_code ec;
    if (!fs::is_regular_file(capture / "manifest.json", ec))
      throw ToolError("no-capture", "no capture at " + ws.relative(capture) + " (no manifest.json): record the kernel's "
                                    "launches first with the capture tool (needs the server's --profile-command) "
                                    "or `warplens capture --kernel " + kernel + " --out " + ws.relative(capture) +
                                    " -- PROGRAM ARGS`");

    // The candidate lives in the session's scratch directory, never in the
    // workspace: submitting one changes nothing the user owns.
    fs::path dir = env.scratch() / "candidates" / ("s" + std::to_string(++*counter));
    fs::create_directories(dir / "work", ec);
    fs::path candidate_path = dir / file.filename();
    {
      std::ofstream out(candidate_path, std::ios::binary);
      out << candidate;
      if (!out) throw ToolError("failed", "cannot write the candidate to " + candidate_path.string());
    }

    const ToolOptions& o = env.options();
    verifier::VerifyRequest req;
    req.capture_dir = capture;
    req.original_source = file;
    req.candidate_source = candidate_path;
    req.kernel = kernel;
    req.input_sets = o.input_sets;
    req.timed_runs = o.timed_runs;
    req.timeout_s = o.verify_timeout_s;
    // A winner's memcheck run stays within the server's verify limit too
    // (the verifier's own default is 300 s); reported in `limits`.
    req.sanitizer_timeout_s = std::min(req.sanitizer_timeout_s, o.verify_timeout_s);
    req.nvcc = o.nvcc;
    req.arch = o.arch;
    req.replay_binary = o.replay_binary;
    req.include_dirs = {file.parent_path().string()};  // the candidate's #includes resolve as the original's
    req.work_dir = dir / "work";
    if (args.contains("block")) req.candidate_launch.block = to_dim3(args["block"]);
    if (args.contains("coarsen")) req.candidate_launch.coarsen = to_dim3(args["coarsen"]);
    if (args.contains("dynamic_shared_bytes"))
      req.candidate_launch.dynamic_shared_bytes = args["dynamic_shared_bytes"].get<std::uint32_t>();

    ctx.progress(0, 100, "waiting for the GPU");
    std::unique_lock gpu(env.gpu());
    verifier::Verdict v = env.services().verify(req, ctx.stop(), [&](const verifier::VerifyProgress& p) {
      ctx.progress(1 + 98 * p.fraction, 100, p.stage);
    });
    gpu.unlock();
    json verdict = json::parse(verifier::to_json_text(v));
    if (v.status == verifier::VerdictStatus::Cancelled || ctx.cancelled()) throw ToolError("cancelled", "cancelled");
    if (v.status == verifier::VerdictStatus::Error) {
      // The verdict (stage, compiler output) goes with the error's details:
      // an error carries no structuredContent.
      ToolResult r = tool_error_result(error_kind(v), "verification could not run: " + v.error);
      r.meta[kErrorMetaKey]["verdict"] = verdict;
      return r;
    }

    CandidateRecord rec;
    rec.file = file;
    rec.kernel = kernel;
    rec.text = candidate;
    rec.text_hash = hash_text(candidate);
    rec.base_hash = hash_text(original);
    rec.level = v.level;
    rec.offerable = v.offerable();
    rec.origin = "verify";
    rec.summary = "level " + std::to_string(v.level) + (v.reasons.empty() ? "" : ": " + v.reasons.front());
    rec = env.candidates().add(rec);

    ToolResult r;
    r.structured = {{"candidate_id", rec.id},
                    {"candidate_hash", rec.text_hash},
                    {"file", ws.relative(file)},
                    {"kernel", kernel},
                    {"level", v.level},
                    {"measured_level", v.measured_level},
                    {"correct", v.correct},
                    {"speedup", v.speedup},
                    {"applicable", rec.offerable},
                    {"reasons", v.reasons},
                    {"flags", v.flags},
                    {"device", v.device.name},
                    {"limits",
                     {{"input_sets", req.input_sets},
                      {"timed_runs", req.timed_runs},
                      {"timeout_s", req.timeout_s},
                      {"sanitizer", req.sanitize},
                      {"sanitizer_timeout_s", req.sanitizer_timeout_s},
                      {"tolerance", verdict.value("tolerance", json::object())}}},
                    {"verdict", verdict}};
    r.text = verifier::summary_text(v) + "\ncandidate " + rec.id + " (hash " + rec.text_hash + "): " +
             (rec.offerable ? "apply_rewrite can apply it"
                            : "apply_rewrite will refuse it (it applies only candidates verified at level >= 2)") +
             "\n";
    return r;
  };
  return t;
}

}  // namespace warplens::mcp
