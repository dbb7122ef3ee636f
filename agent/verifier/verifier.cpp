#include "agent/verifier/verifier.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <future>
#include <thread>

#include "agent/verifier/compile.h"
#include "agent/verifier/device_state.h"
#include "agent/verifier/kernel_signature.h"
#include "agent/verifier/module_variables.h"
#include "agent/verifier/plan_builder.h"
#include "agent/verifier/pytorch_reference.h"
#include "agent/verifier/reference_cache.h"
#include "agent/verifier/replay_process.h"
#include "agent/verifier/sanitizer.h"
#include "agent/verifier/shape_variation.h"
#include "agent/verifier/unit_plan.h"
#include "agent/verifier/verdict_builder.h"
#include "agent/verifier/verify_reference.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string absolute_string(const fs::path& p) {
  if (p.empty()) return "";
  std::error_code ec;
  auto a = fs::absolute(p, ec);
  return ec ? p.string() : a.lexically_normal().string();
}

std::string quote(const std::string& s) {
  if (s.find_first_of(" \t'\"$\\") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string shorten(const std::string& s, std::size_t n = 4000) {
  return s.size() <= n ? s : s.substr(0, n) + "\n[... truncated ...]";
}

// A temporary work directory removed at the end unless asked to keep it.
class WorkDir {
 public:
  WorkDir(const fs::path& requested, bool keep) : keep_(keep || !requested.empty()) {
    if (!requested.empty()) {
      path_ = requested;
      fs::create_directories(path_);
      return;
    }
    std::string tmpl = (fs::temp_directory_path() / "warplens-verify-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory in " + tmpl);
    path_ = tmpl;
  }
  ~WorkDir() {
    std::error_code ec;
    if (!keep_) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool keep_;
};

struct Sources {
  TokenizedSource original, candidate;
};

std::string read_source(const fs::path& p, const char* what) {
  std::error_code ec;
  if (!fs::exists(p, ec)) throw std::runtime_error(std::string(what) + " " + p.string() + " does not exist");
  return read_text_file(p);
}

void fail(Verdict& v, const std::string& error) {
  v.status = VerdictStatus::Error;
  v.error = error;
  v.level = -1;
  v.measured_level = -1;
}

}  // namespace

std::string reproduce_command(const VerifyRequest& r) {
  std::string c = "warplens verify --capture " + quote(absolute_string(r.capture_dir)) + " --original " +
                  quote(absolute_string(r.original_source)) + " --candidate " +
                  quote(absolute_string(r.candidate_source)) + " --kernel " + quote(r.kernel);
  c += " --inputs " + std::to_string(r.input_sets) + " --runs " + std::to_string(r.timed_runs) + " --seed " +
       std::to_string(r.seed);
  char buf[256];  // six %g (up to 13 characters each) and the option names
  std::snprintf(buf, sizeof buf, " --rtol %g --atol %g --rtol-half %g --atol-half %g --rtol-f64 %g --atol-f64 %g",
                r.tolerance.rtol_f32, r.tolerance.atol_f32, r.tolerance.rtol_half, r.tolerance.atol_half,
                r.tolerance.rtol_f64, r.tolerance.atol_f64);
  c += buf;
  if (r.tolerance.nan_equal) c += " --nan-equal";
  if (r.pipeline != "device") c += " --pipeline " + r.pipeline;
  if (!r.vary_shapes) c += " --no-shapes";
  if (!r.sanitize) c += " --no-sanitize";
  if (r.timing_launch >= 0) c += " --launch " + std::to_string(r.timing_launch);
  if (r.candidate_launch.block) c += " --block " + quote(to_string(*r.candidate_launch.block));
  if (!r.pytorch_reference.empty()) c += " --pytorch-ref " + quote(absolute_string(r.pytorch_reference));
  if (!r.arch.empty()) c += " --arch " + r.arch;
  if (r.reassociation) c += " --reassociates " + describe(*r.reassociation);
  for (const auto& i : r.include_dirs) c += " -I " + quote(absolute_string(i));
  return c + " --json";
}

Verdict verify(const VerifyRequest& req, std::stop_token stop, const ProgressCallback& progress) {
  const auto t0 = Clock::now();
  Verdict v;
  v.kernel = req.kernel;
  v.capture_dir = absolute_string(req.capture_dir);
  v.original_source = absolute_string(req.original_source);
  v.candidate_source = absolute_string(req.candidate_source);
  v.pytorch_reference = absolute_string(req.pytorch_reference);
  v.tolerance = req.tolerance;
  v.reproduce = reproduce_command(req);
  auto report = [&](const char* stage, double fraction) {
    if (progress) progress({stage, fraction});
  };
  auto cancelled = [&] {
    if (!stop.stop_requested()) return false;
    v.status = VerdictStatus::Cancelled;
    v.error = "cancelled";
    return true;
  };
  auto done = [&]() -> Verdict {
    v.wall_ms = ms_since(t0);
    report("done", 1.0);
    return v;
  };
  auto error_out = [&](const std::string& error) -> Verdict {
    fail(v, error);
    return done();
  };

  try {
    // --- what to verify ----------------------------------------------------
    report("prepare", 0.0);
    if (req.kernel.empty()) return error_out("no kernel name given");
    capture::CaptureManifest manifest = capture::load_capture(req.capture_dir);
    std::string error;
    Sources src;
    src.original = tokenize_source(read_source(req.original_source, "original source"));
    src.candidate = tokenize_source(read_source(req.candidate_source, "candidate source"));
    // Which launches (a kernel's, or a fused candidate's producer/consumer
    // pairs), the signature typing their memory, and the source comparison.
    UnitRequest unit_request{req.kernel, req.timing_launch, req.fusion, req.candidate_facts};
    auto units = plan_units(unit_request, manifest, src.original, src.candidate, &error);
    if (!units) return error_out(error);
    v.symbol = units->symbol;
    v.timing_launch = units->parts(units->launches.front()).front();
    for (const auto& n : units->notes) v.notes.push_back(n);
    if (std::string refusal = module_variable_refusal(units->records); !refusal.empty()) return error_out(refusal);
    if (std::string restored = module_variable_note(units->records); !restored.empty()) v.notes.push_back(restored);

    // Candidate launch geometry: the request's override, else directives.
    LaunchOverride launch_override = req.candidate_launch;
    if (launch_override.empty()) {
      DirectiveParse d = parse_launch_directives(src.candidate.directives);
      if (!d.errors.empty()) {
        v.status = VerdictStatus::Verified;
        v.reasons.push_back("incorrect: invalid `// warplens:` directive in the candidate: " + d.errors.front());
        return done();
      }
      launch_override = d.value;
    }

    // Reordered float sums, as the caller declares them (never the
    // candidate's own text: a candidate cannot loosen its own check).
    std::optional<Reassociation> reassociation = req.reassociation;
    if (reassociation && !units->sequences.empty()) {
      v.notes.push_back("the candidate's reassociation declaration is ignored for a fused launch sequence");
      reassociation.reset();
    }

    // Source comparison (token level unless the agent passed its own facts).
    v.source_findings = units->source_findings;
    for (auto& f : compare_device_state(device_state_facts(src.original), device_state_facts(src.candidate)))
      v.source_findings.push_back(std::move(f));
    if (cancelled()) return done();

    // --- the GPU -------------------------------------------------------------
    std::string replay = find_replay_binary(req.replay_binary, &error);
    if (replay.empty()) return error_out(error);
    WorkDir work(req.work_dir, req.keep_work_dir);
    if (req.keep_work_dir || !req.work_dir.empty()) v.notes.push_back("work directory kept: " + work.path().string());
    auto t_probe = Clock::now();
    DeviceProbe probe = probe_gpu(replay, work.path(), stop);
    v.stage_ms["device_probe"] = ms_since(t_probe);
    if (!probe.ok) return error_out(probe.error);
    v.device = probe.device;
    const std::string arch = req.arch.empty() ? probe.device.arch : req.arch;
    if (manifest.device.cc_major && manifest.device.arch() != probe.device.arch)
      v.notes.push_back("captured on " + manifest.device.name + " (" + manifest.device.arch() + "), replayed on " +
                        probe.device.name + " (" + probe.device.arch + ")");

    // --- the plan --------------------------------------------------------------
    ReplayPlan plan;
    plan.capture_dir = absolute_string(req.capture_dir);
    plan.work_dir = work.path().string();
    plan.original = {"", units->original_symbol, units->original_name};  // the cubin: the cached reference's
    plan.candidate = {(work.path() / "candidate.cubin").string(), units->candidate_symbol, units->candidate_name};
    plan.candidate_launch = launch_override;
    for (std::size_t i = 0; i < units->launches.size(); ++i)
      plan.layouts.push_back(make_launch_layout(units->records[i], &units->signature));
    plan.input_sets = plan_input_sets(units->launches, req.input_sets, req.seed);
    plan.sequences = units->sequences;
    for (auto& spec : plan.input_sets)
      if (is_sequence_launch(spec.launch)) spec.sequence = units->parts(spec.launch);
    plan.original_steps = units->original_steps;
    plan.candidate_params = units->candidate_params;
    plan.elided = units->elided;
    const capture::LaunchRecord& timed_launch = units->records.front();
    if (!plan.sequences.empty()) {
      // A variation would shrink each kernel's sizes on its own (the pair's
      // shared bound apart) and only the first launch's grid with them.
      v.shapes_note = "no shape variations for a fused launch sequence (captured and fresh sets only)";
    } else if (req.vary_shapes) {
      // Shapes beyond the captured ones, from the timed launch.
      ShapePlan shapes = plan_shape_variations(timed_launch, plan.layouts.front());
      v.shapes_note = shapes.note;
      for (std::size_t k = 0; k < shapes.variations.size(); ++k) {
        const int index = static_cast<int>(plan.input_sets.size());
        InputSetSpec spec(index, timed_launch.index, true, req.seed + 100 + k);
        spec.scalars = shapes.variations[k].scalars;
        spec.geometry = shapes.variations[k].geometry;
        spec.variation = shapes.variations[k].description;
        plan.input_sets.push_back(std::move(spec));
      }
    } else {
      v.shapes_note = "shape variations turned off";
    }
    plan.tolerance = req.tolerance;
    plan.reassociation = reassociation;
    plan.warmup_runs = req.warmup_runs;
    plan.timed_runs = req.timed_runs;
    plan.timing_set = 0;
    plan.run_deadline_s = std::max(10.0, req.timeout_s / 2);
    plan.guard_bytes = req.guard_bytes;
    plan.pipeline = req.pipeline;
    plan.timing_seed = req.timing_seed;

    // --- compile the candidate, in parallel with the original's side ---------
    report("compile", 0.1);
    auto compile_request = [&](const fs::path& source, const fs::path& out) {
      CompileRequest c;
      c.source = source;
      c.output = out;
      c.arch = arch;
      c.include_dirs = req.include_dirs;
      c.include_dirs.push_back(absolute_string(req.original_source.parent_path().empty() ? fs::path(".")
                                                                                          : req.original_source.parent_path()));
      c.extra_flags = req.nvcc_flags;
      c.nvcc = req.nvcc;
      return c;
    };
    CompileRequest candidate_compile_request = compile_request(req.candidate_source, work.path() / "candidate.cubin");
    auto candidate_compile = std::async(std::launch::async, [&] { return compile_to_cubin(candidate_compile_request, stop); });

    // --- the original's side: compile and reference, once per key ------------
    report("reference", 0.3);
    const CompileRequest original_compile_request = compile_request(req.original_source, "");
    std::string manifest_text;
    try {
      manifest_text = read_text_file(req.capture_dir / capture::kManifestFile);
    } catch (const std::exception&) {
    }
    const std::string key = reference_key(plan, original_compile_request, read_source(req.original_source, "original source"),
                                          manifest_text, replay);
    auto compute = [&](const fs::path& dir) {
      return compute_reference_entry(dir, plan, original_compile_request, replay, req.timeout_s, stop);
    };
    auto t_ref = Clock::now();
    std::shared_ptr<const CachedReference> cached =
        req.reuse_reference ? ReferenceCache::instance().get(key, req.reference_cache_dir, compute)
                            : std::make_shared<const CachedReference>([&] {
                                WorkDir own(work.path() / "reference", true);
                                return compute(own.path());
                              }());
    v.reference_reused = cached->reused;
    const CompileResult& original_compile = cached->original_compile;
    v.original_compile = {true, original_compile.ok, original_compile.relocatable, original_compile.command,
                          shorten(original_compile.log), original_compile.ms};
    if (!cached->reused) {
      v.stage_ms["compile_original"] = original_compile.ms;
      v.stage_ms["reference"] = std::max(0.0, ms_since(t_ref) - original_compile.ms);
    } else {
      v.stage_ms["reference_lookup"] = ms_since(t_ref);
      v.notes.push_back("the original's compile and reference were reused from an earlier verification (same "
                        "capture, source, settings)");
    }
    if (cancelled()) {
      candidate_compile.wait();
      return done();
    }
    if (!cached->ok) {
      candidate_compile.wait();
      if (cancelled()) return done();
      return error_out(cached->error);
    }
    const ReferenceResult& reference = cached->reference;
    plan.input_sets = cached->input_sets;
    plan.original.cubin = cached->cubin.string();
    for (auto& k : plan.original_steps) k.cubin = plan.original.cubin;
    v.pipeline = reference.pipeline;
    v.reproduction = reference.reproduction;
    v.original_function = reference.function;
    for (const auto& n : reference.notes) v.notes.push_back(n);
    for (const auto& r : reference.reproduction)
      if (!r.reproduced) {
        candidate_compile.wait();
        std::string which = "captured launch " + std::to_string(r.launch);
        if (is_sequence_launch(r.launch)) {
          which = "captured launches";
          for (int l : units->parts(r.launch)) which += " " + std::to_string(l);
        }
        return error_out("replaying " + which +
                           " with the original source does not reproduce the captured outputs (" + r.detail +
                           "): the kernel depends on state the capture does not hold (textures, surfaces, pointer "
                           "tables in device memory" +
                           std::string(module_variables_recorded(units->records)
                                           ? ""
                                           : "; __constant__ and __device__ variables, which this capture did not "
                                             "record: capture again with this warplens") +
                           "), or the source differs from the captured program's");
      }
    if (!reference.deterministic) {
      v.flags.push_back("original-nondeterministic");
      v.notes.push_back("the original itself gives different bits run to run; the candidate's two runs are compared "
                        "with the tolerance instead of bit for bit");
    }
    int skipped = 0;
    for (const auto& s : reference.sets) skipped += s.skipped ? 1 : 0;
    if (skipped)
      v.notes.push_back(std::to_string(skipped) + " shape variation(s) skipped: the original itself fails them (see "
                        "input_sets)");
    const fs::path plan_path = work.path() / "plan.json";

    // --- the candidate ---------------------------------------------------------
    CompileResult cc = candidate_compile.get();
    v.candidate_compile = {true, cc.ok, cc.relocatable, cc.command, shorten(cc.log), cc.ms};
    v.stage_ms["compile_candidate"] = cc.ms;
    if (cancelled()) return done();
    v.status = VerdictStatus::Verified;
    if (!cc.ok) {
      v.reasons.push_back("incorrect: the candidate does not compile: " + shorten(cc.log, 1500));
      decide_level(v);
      return done();
    }
    report("candidate", 0.55);
    plan.run_deadline_s = candidate_run_deadline(reference.max_run_ms, req.timeout_s);
    write_text_file(plan_path, to_json_text(plan));
    CandidateResult candidate;
    auto t_cand = Clock::now();
    ReplayRun cand_run = run_candidate_child(replay, plan_path, cached->reference_path, work.path() / "candidate.json",
                                             req.timeout_s, candidate, stop);
    v.stage_ms["candidate"] = ms_since(t_cand);
    if (cancelled()) return done();
    if (!cand_run.have_result) {
      // No result at all: the candidate crashed or hung the replay process.
      std::string why = cand_run.process.process.timed_out
                            ? "the candidate did not finish within " + std::to_string(static_cast<int>(req.timeout_s)) +
                                  " s and was killed"
                            : "the replay process ended without a result: " + explain_replay_failure(cand_run.process);
      if (cand_run.process.process.timed_out) v.flags.push_back("hung");
      v.reasons.push_back("incorrect: " + why);
      decide_level(v);
      return done();
    }
    if (!candidate.ok) return error_out("replaying the candidate failed: " + candidate.error);
    // The replay ends with kExitHung only after a run missed its deadline:
    // whatever the result file says, that candidate is not correct.
    const bool hung = candidate.timed_out || cand_run.process.process.exit_code == kReplayExitHung;
    if (hung) {
      v.flags.push_back("hung");
      candidate.correct = false;
      if (candidate.failure.empty()) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%.1f s", plan.run_deadline_s);
        candidate.failure = std::string("the candidate did not finish within ") + limit + " (the replay ended as hung)";
      }
    }
    record_candidate_checks(v, plan, candidate);
    if (candidate.timing && v.correct) {
      bool outside = false;
      v.timing = summarize_timing(*candidate.timing, &outside);
    }

    // --- PyTorch reference (level 3) ------------------------------------------
    if (v.correct && v.timing && !req.pytorch_reference.empty()) {
      report("pytorch", 0.8);
      PytorchRequest pr;
      pr.model = req.pytorch_reference;
      pr.python = req.python;
      pr.runs = req.timed_runs;
      pr.warmup = req.warmup_runs;
      pr.timeout_s = req.pytorch_timeout_s;
      pr.log_dir = work.path();
      PytorchTiming pt = time_pytorch_reference(pr, stop);
      v.stage_ms["pytorch"] = pt.wall_ms;
      if (cancelled()) return done();
      add_pytorch_timing(*v.timing, pt);
    }
    decide_level(v);

    // --- compute-sanitizer over a winner before it is offered ------------------
    if (req.sanitize && wants_sanitizer(v) && req.sanitize_min_speedup > 0 && v.speedup <= req.sanitize_min_speedup) {
      SanitizerEvidence z;
      char note[160];
      std::snprintf(note, sizeof note, "skipped: not faster than %.2fx, a winner of this kernel already checked clean",
                    req.sanitize_min_speedup);
      z.note = note;
      apply_sanitizer(v, z);
    } else if (req.sanitize && wants_sanitizer(v)) {
      report("sanitizer", 0.9);
      SanitizerEvidence z;
      const std::string sanitizer = find_compute_sanitizer(req.sanitizer, find_nvcc(req.nvcc));
      if (sanitizer.empty()) {
        z.note = "compute-sanitizer not found (set WARPLENS_COMPUTE_SANITIZER or install the CUDA toolkit's)";
      } else {
        SanitizerRun r = run_compute_sanitizer(sanitizer, replay, plan_path, cached->reference_path, work.path(),
                                               req.sanitizer_timeout_s, stop);
        v.stage_ms["sanitizer"] = r.ms;
        if (cancelled()) return done();
        z.ran = r.started;
        z.clean = r.clean;
        z.errors = r.errors;
        z.report = r.report;
        z.command = r.command;
        z.note = r.problem;
        z.runs = r.replay.runs;
        z.ms = r.ms;
        if (r.replay.wall_ms > 0)
          z.phase_ms = {{"load", r.replay.load_ms},     {"prepare", r.replay.prepare_ms},
                        {"upload", r.replay.upload_ms}, {"kernel", r.replay.kernel_ms},
                        {"replay", r.replay.wall_ms}};
      }
      apply_sanitizer(v, z);
    }
    require_complete_evidence(v);
  } catch (const std::exception& e) {
    fail(v, e.what());
  }
  return done();
}

std::vector<Verdict> verify_many(const std::vector<VerifyRequest>& requests, int max_parallel, std::stop_token stop) {
  std::vector<Verdict> out(requests.size());
  const std::size_t workers =
      std::min<std::size_t>(requests.size(), static_cast<std::size_t>(max_parallel > 0 ? max_parallel : 4));
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < requests.size(); i = next++) out[i] = verify(requests[i], stop);
    });
  for (auto& t : threads) t.join();
  return out;
}

}  // namespace warplens::verifier
