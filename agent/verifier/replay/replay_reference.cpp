// `warplens-replay reference`: the original kernel alone, once per job and
// capture (the parent caches the result): does it reproduce the captured
// outputs, what role does each allocation play, is it deterministic on each
// input set, and which shape variations does it handle itself.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "agent/verifier/capture_writes.h"
#include "agent/verifier/replay/gpu_lock.h"
#include "agent/verifier/replay/replay_capture.h"
#include "agent/verifier/replay/replay_modes.h"
#include "agent/verifier/replay/replay_sets.h"
#include "agent/verifier/replay/replay_units.h"

namespace warplens::replay {

using namespace verifier;

namespace {

std::vector<DeviceBuffer> scratch_for(const capture::LaunchRecord& rec) {
  std::vector<DeviceBuffer> out;
  for (const auto& a : rec.allocations) out.emplace_back(a.bytes);
  return out;
}

class Reference {
 public:
  Reference(const ReplayPlan& plan, ReferenceResult& result, const EmergencyExit& on_hang)
      : plan_(plan), result_(result), on_hang_(on_hang) {}

  void run() {
    const auto t0 = std::chrono::steady_clock::now();
    CapturedLaunches capture(plan_.capture_dir);
    capture.add_sequences(plan_.sequences);
    Context ctx;
    result_.device = ctx.summary();
    GpuLock lock(ctx.device(), GpuLock::Mode::Shared);
    Stream stream;
    s_ = stream.get();
    std::string note;
    ops_ = make_buffer_ops(plan_.pipeline, result_.device, &note);
    result_.pipeline = ops_->name();
    if (!note.empty()) result_.notes.push_back(note);
    Module module(plan_.original.cubin);
    std::string symbol;
    originals_ = find_original_kernels(module, plan_, &symbol);
    f_ = originals_.front();
    result_.function = function_info(f_, symbol);
    const auto layout = param_layout(f_);

    result_.roles.assign(plan_.layouts.size(), {});
    result_.guards_unchecked.assign(plan_.layouts.size(), {});
    for (std::size_t li = 0; li < plan_.layouts.size(); ++li) {
      const LaunchLayout& L = plan_.layouts[li];
      const auto& rec = capture.launch(L.launch);
      // A sequence's steps check their own parameters (make_original_side).
      std::string mismatch = capture.merged(L.launch) ? "" : param_layout_mismatch(layout, rec);
      if (!mismatch.empty())
        throw std::runtime_error("the original source, compiled, does not take the captured launch " +
                                 std::to_string(L.launch) + "'s parameters: " + mismatch);
      pristine_.push_back(std::make_unique<Pristine>(rec, capture.before(L.launch), capture.globals_before(L.launch), s_));
      sides_.push_back(make_original_side(capture, originals_, L.launch, plan_.guard_bytes));
      scratch_.push_back(scratch_for(rec));
      result_.guards_unchecked[li].assign(rec.allocations.size(), false);
      roles_and_reproduction(li, rec, capture.after(L.launch), capture.manifest());
    }
    for (const auto& spec : plan_.input_sets) input_set(spec, capture);
    result_.ok = true;
    result_.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  void launch_and_wait(ReplaySide& side) {
    side.launch(s_);
    double ms = 0;
    try {
      ms = side.wait(s_, plan_.run_deadline_s);
    } catch (const KernelHang& h) {
      result_.ok = false;
      result_.error = std::string("the original kernel ") + h.what() +
                      (result_.failed_set >= 0 ? " on input set " + std::to_string(result_.failed_set) : "") +
                      " while computing the reference";
      on_hang_();
      throw;
    }
    result_.max_run_ms = std::max(result_.max_run_ms, ms);
  }

  // Guard damage the original itself does: noted once per allocation, and
  // those bands are not checked for the candidate. Returns the damage.
  std::optional<GuardDamage> guards(std::size_t li, int poison, bool tolerate) {
    const LaunchLayout& L = plan_.layouts[li];
    std::optional<GuardDamage> first;
    while (auto d = check_guards(*ops_, *sides_[li], poison, s_, &result_.guards_unchecked[li])) {
      if (!first) first = d;
      if (!tolerate) return first;
      result_.guards_unchecked[li][d->allocation] = true;
      result_.notes.push_back("the original itself " + describe(*d, L) +
                              ": the guard bands of that allocation are not checked for the candidate");
    }
    return first;
  }

  BufferComparison compare(CUdeviceptr expected, CUdeviceptr got, CUdeviceptr pref, std::uint64_t bytes,
                           BufferLayout layout, bool exact, int pref_poison) {
    CompareOptions o;
    o.exact = exact;
    o.pref_poison = pref_poison;
    return ops_->compare(expected, got, pref, bytes, layout, plan_.tolerance, o, s_);
  }

  void roles_and_reproduction(std::size_t li, const capture::LaunchRecord& rec, const Blobs& after,
                              const capture::CaptureManifest& manifest) {
    const LaunchLayout& L = plan_.layouts[li];
    ReplaySide& side = *sides_[li];
    const InputSetSpec captured_spec{0, L.launch, false, 0};
    const SetContext set = make_set(captured_spec, rec, L, *pristine_[li]);
    const std::size_t n = rec.allocations.size();
    const std::vector<BufferRole> all_inputs(n, BufferRole::Input);
    prepare(*ops_, side, set, all_inputs, 0, s_);
    launch_and_wait(side);
    guards(li, 0, true);
    std::vector<DeviceBuffer> r0 = scratch_for(rec);
    for (std::size_t a = 0; a < n; ++a) copy_dtod(r0[a].ptr(), side.ptr(a), rec.allocations[a].bytes, s_);

    Reproduction rep{L.launch, true, ""};
    {
      for (std::size_t a = 0; a < n; ++a) {
        const auto bytes = rec.allocations[a].bytes;
        DeviceBuffer t(bytes);
        upload(t.ptr(), after[a].data(), bytes, s_);
        if (compare(t.ptr(), r0[a].ptr(), 0, bytes, L.allocations[a], true, -1).ok) continue;
        auto cmp = compare(t.ptr(), r0[a].ptr(), 0, bytes, L.allocations[a], false, -1);
        if (!cmp.ok) {
          rep.reproduced = false;
          rep.detail += allocation_name(L, a) + ": " + (cmp.worst ? describe(*cmp.worst) : "differs") + "; ";
        } else {
          rep.detail += allocation_name(L, a) + " reproduced within tolerance (max abs error " +
                        std::to_string(cmp.max_abs_error) + "); ";
        }
      }
    }
    result_.reproduction.push_back(rep);

    // Is allocation a a pure output: does the original's result not depend
    // on its prior contents? Runs with it poisoned A and B (everything else
    // as captured) must give r0 on every byte the kernel writes, and must
    // not change any other allocation.
    std::vector<BufferRole> roles(n, BufferRole::Input);
    for (std::size_t a = 0; a < n; ++a) {
      bool written = rec.allocations[a].modified ||
                     ops_->hash(r0[a].ptr(), rec.allocations[a].bytes, s_) !=
                         ops_->hash(pristine_[li]->ptr(a), rec.allocations[a].bytes, s_);
      if (!written && verifier::written_by_another_launch(manifest, rec, a)) {
        written = true;
        result_.notes.push_back(allocation_name(L, a) + " of launch " + std::to_string(L.launch) +
                                " is left unchanged by it but written by another captured launch of the kernel "
                                "through the same parameter: checked as written (values within tolerance, no "
                                "stray bytes), not as an input");
      }
      if (!written) continue;
      roles[a] = BufferRole::Output;
      std::vector<BufferRole> probe(n, BufferRole::Input);
      probe[a] = BufferRole::Output;
      for (int poison = 0; poison < 2 && roles[a] == BufferRole::Output; ++poison) {
        prepare(*ops_, side, set, probe, poison, s_);
        launch_and_wait(side);
        guards(li, poison, true);
        for (std::size_t b = 0; b < n && roles[a] == BufferRole::Output; ++b) {
          const auto bytes = rec.allocations[b].bytes;
          const bool same = b == a ? compare(r0[a].ptr(), side.ptr(a), side.ptr(a), bytes, L.allocations[a], false,
                                             poison)
                                         .ok
                                   : compare(r0[b].ptr(), side.ptr(b), 0, bytes, L.allocations[b], false, -1).ok;
          if (!same) roles[a] = BufferRole::InOut;
        }
      }
    }
    result_.roles[li] = roles;
  }

  void skip(ReferenceSet& rs, const std::string& why) {
    rs.skipped = true;
    rs.skip_reason = why;
  }

  void input_set(const InputSetSpec& spec, CapturedLaunches& capture) {
    const LaunchLayout* L = plan_.layout_for(spec.launch);
    if (!L) throw std::runtime_error("internal: no layout for launch " + std::to_string(spec.launch));
    const std::size_t li = static_cast<std::size_t>(L - plan_.layouts.data());
    const auto& rec = capture.launch(spec.launch);
    ReplaySide& side = *sides_[li];
    std::vector<DeviceBuffer>& sa = scratch_[li];
    const std::vector<BufferRole>& launch_roles = result_.roles[li];
    const std::size_t n = rec.allocations.size();
    const bool variation = !spec.variation.empty();
    // A shape variation is checked against itself bit for bit, unless the
    // original already gave different bits run to run on an earlier set
    // (float atomics): then with the tolerance, as its candidates are, or
    // no variation of such a kernel could ever be checked.
    const bool exact_self = !variation || result_.deterministic;

    ReferenceSet rs;
    rs.index = spec.index;
    rs.buffers.resize(n);
    for (std::size_t a = 0; a < n; ++a) rs.buffers[a].role = launch_roles[a];
    const SetContext set = make_set(spec, rec, *L, *pristine_[li]);
    rs.geometry = set.original_geometry;
    if (!exact_self) {
      rs.deterministic = false;  // so its candidates' two runs are compared with the tolerance too
      rs.nondeterminism = "the original is not deterministic on the earlier sets";
    }
    if (spec.skipped) {
      skip(rs, spec.skip_reason);
      result_.sets.push_back(std::move(rs));
      return;
    }
    result_.failed_set = spec.index;
    try {
      side.set_geometry(set.original_geometry);
      // Run A; inputs must stay as they were.
      prepare(*ops_, side, set, launch_roles, 0, s_);
      std::vector<std::uint64_t> before(n, 0);
      for (std::size_t a = 0; a < n; ++a)
        if (launch_roles[a] == BufferRole::Input) before[a] = ops_->hash(side.ptr(a), rec.allocations[a].bytes, s_);
      launch_and_wait(side);
      if (auto d = guards(li, 0, !variation)) {
        if (variation) return finish_skipped(rs, "the original itself " + describe(*d, *L) + " at this shape");
      }
      for (std::size_t a = 0; a < n; ++a)
        if (launch_roles[a] == BufferRole::Input && ops_->hash(side.ptr(a), rec.allocations[a].bytes, s_) != before[a])
          rs.buffers[a].role = BufferRole::InOut;  // the original wrote it on this input set
      for (std::size_t a = 0; a < n; ++a) copy_dtod(sa[a].ptr(), side.ptr(a), rec.allocations[a].bytes, s_);
      // Run B, from the other poison.
      prepare(*ops_, side, set, launch_roles, 1, s_);
      launch_and_wait(side);
      if (auto d = guards(li, 1, !variation)) {
        if (variation) return finish_skipped(rs, "the original itself " + describe(*d, *L) + " at this shape");
      }
      for (std::size_t a = 0; a < n; ++a) {
        ReferenceBuffer& buf = rs.buffers[a];
        if (buf.role == BufferRole::Input) continue;
        const auto bytes = rec.allocations[a].bytes;
        const bool output = buf.role == BufferRole::Output;
        // Bytes the original left as poison B were never written: skipped.
        BufferComparison det = compare(sa[a].ptr(), side.ptr(a), output ? side.ptr(a) : 0, bytes, L->allocations[a],
                                       exact_self, output ? 1 : -1);
        if (!det.ok) {
          if (variation)
            return finish_skipped(rs, "the original's result at this shape depends on the poison in " +
                                          allocation_name(*L, a) +
                                          " (it reads memory it does not write, past its sizes) or is not deterministic");
          rs.deterministic = false;
          rs.nondeterminism += allocation_name(*L, a) + ": " + (det.worst ? describe(*det.worst) : "differs") + "; ";
        }
        buf.device_hash = ops_->hash(sa[a].ptr(), bytes, s_);
      }
      // Re-drawn floats can leave the kernel's domain (adamw's second moment
      // drawn negative: sqrtf gives NaN). NaN never compares equal, so on such
      // a set even the original fails against itself and every candidate is
      // refused for it: the set cannot tell a correct candidate from a wrong
      // one. Skipped, with the reason; the captured sets still decide.
      if (spec.fresh && !plan_.tolerance.nan_equal)
        for (std::size_t a = 0; a < n; ++a) {
          if (rs.buffers[a].role == BufferRole::Input) continue;
          const bool output = rs.buffers[a].role == BufferRole::Output;
          BufferComparison self = compare(sa[a].ptr(), sa[a].ptr(), output ? sa[a].ptr() : 0, rec.allocations[a].bytes,
                                          L->allocations[a], false, output ? 0 : -1);
          if (!self.ok && self.worst && self.worst->problem == Problem::NaN)
            return finish_skipped(rs, "the original itself writes NaN into " + allocation_name(*L, a) +
                                          " on these re-drawn inputs (outside its domain), and NaN never "
                                          "compares equal");
        }
      // A shrunk grid must not change what the original computes: the
      // captured grid (more threads) gives the same bytes when the kernel
      // guards its bounds and the grid covers the shrunk sizes.
      if (variation && !(set.original_geometry == captured_geometry(rec))) {
        side.set_geometry(captured_geometry(rec));
        prepare(*ops_, side, set, launch_roles, 0, s_);
        launch_and_wait(side);
        const bool guard_damage = guards(li, 0, false).has_value();
        for (std::size_t a = 0; a < n; ++a) {
          if (!guard_damage &&
              compare(sa[a].ptr(), side.ptr(a), 0, rec.allocations[a].bytes, L->allocations[a], exact_self, -1).ok)
            continue;
          return finish_skipped(rs, "the original's result at this shape changes when it is launched with the "
                                    "captured grid " + to_string(rec.grid) + " instead of " +
                                    to_string(set.original_geometry.grid) +
                                    " (it does not guard its bounds for these sizes, or its grid does not derive "
                                    "from them): not a shape it handles");
        }
      }
    } catch (const CudaError& e) {
      // On a captured set the original's own failure ends the replay; on a
      // shape variation or a fresh set (its floating-point scalars
      // re-drawn) the parent runs again without that set's change.
      if (!variation && !spec.fresh)
        throw std::runtime_error("the original kernel failed on input set " + std::to_string(spec.index) + " (" +
                                 describe(spec) + "): " + e.what());
      result_.error = "the original failed on input set " + std::to_string(spec.index) + " (" + describe(spec) +
                      "): " + e.what();
      throw SetFailed(result_.error);
    }
    result_.failed_set = -1;
    result_.deterministic = result_.deterministic && rs.deterministic;
    result_.sets.push_back(std::move(rs));
  }

  void finish_skipped(ReferenceSet& rs, const std::string& why) {
    skip(rs, why);
    result_.failed_set = -1;
    result_.sets.push_back(std::move(rs));
  }

  const ReplayPlan& plan_;
  ReferenceResult& result_;
  const EmergencyExit& on_hang_;
  CUstream s_ = nullptr;
  std::unique_ptr<BufferOps> ops_;
  CUfunction f_ = nullptr;
  std::vector<CUfunction> originals_;  // one per part of a launch sequence; f_ is the first
  std::vector<std::unique_ptr<Pristine>> pristine_;
  std::vector<std::unique_ptr<ReplaySide>> sides_;
  std::vector<std::vector<DeviceBuffer>> scratch_;
};

}  // namespace

void compute_reference(const ReplayPlan& plan, ReferenceResult& result, const EmergencyExit& on_hang) {
  Reference(plan, result, on_hang).run();
}

}  // namespace warplens::replay
