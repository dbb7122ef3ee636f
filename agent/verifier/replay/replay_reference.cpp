#include <algorithm>
#include <chrono>

#include "agent/verifier/poison.h"
#include "agent/verifier/replay/replay_capture.h"
#include "agent/verifier/replay/replay_modes.h"
#include "agent/verifier/replay/replay_side.h"
#include "agent/verifier/replay/replay_units.h"

namespace warplens::replay {

using namespace verifier;

LaunchGeometry captured_geometry(const capture::LaunchRecord& launch) {
  return LaunchGeometry{launch.grid, launch.block, launch.dynamic_shared_bytes};
}

namespace {

std::string name_of(const LaunchLayout& layout, std::size_t a) {
  if (a < layout.allocation_names.size() && !layout.allocation_names[a].empty())
    return "allocation " + std::to_string(a) + " [" + layout.allocation_names[a] + "]";
  return "allocation " + std::to_string(a);
}

struct Runner {
  CUfunction f;
  Stream stream;
  double deadline_s;
  ReferenceResult& result;
  const EmergencyExit& on_hang;

  void run(ReplaySide& side, const Blobs& contents, const std::vector<std::uint8_t>& params, Blobs& out) {
    side.upload(contents, params);
    side.launch(stream.get());
    double ms = 0;
    try {
      ms = side.wait(stream.get(), deadline_s);
    } catch (const KernelHang& h) {
      result.ok = false;
      result.error = std::string("the original kernel ") + h.what() + " while computing the reference";
      on_hang();
      throw;
    } catch (const CudaError& e) {
      throw std::runtime_error(std::string("the original kernel failed while computing the reference: ") + e.what());
    }
    result.max_run_ms = std::max(result.max_run_ms, ms);
    side.download(out);
  }
};

// Is allocation `a` a pure output: does the original's result not depend on
// its prior contents? Runs with `a` poisoned A and B (everything else as
// captured) must give the captured-input result `r0` on every byte the
// kernel writes, and must not change any other allocation.
BufferRole classify(Runner& runner, ReplaySide& side, const capture::LaunchRecord& rec, const LaunchLayout& layout,
                    const Blobs& before, const Blobs& r0, std::size_t a, const Tolerance& tol) {
  const auto bytes = rec.allocations[a].bytes;
  auto pa = make_poison(bytes, layout.allocations[a], Poison::A);
  auto pb = make_poison(bytes, layout.allocations[a], Poison::B);
  Blobs contents = before, ra, rb;
  contents[a] = pa;
  runner.run(side, contents, rec.param_buffer, ra);
  contents[a] = pb;
  runner.run(side, contents, rec.param_buffer, rb);
  auto same = [&](const std::vector<std::uint8_t>& x, const std::vector<std::uint8_t>& y, std::size_t b) {
    return x == y ||
           compare_with_tolerance(x.data(), y.data(), x.size(), layout.allocations[b], tol, {}, nullptr).ok;
  };
  for (std::size_t b = 0; b < rec.allocations.size(); ++b)
    if (b != a && (!same(r0[b], ra[b], b) || !same(r0[b], rb[b], b))) return BufferRole::InOut;
  ByteRanges unwritten = unwritten_ranges(ra[a].data(), pa.data(), rb[a].data(), pb.data(), bytes);
  bool same_a = compare_with_tolerance(r0[a].data(), ra[a].data(), bytes, layout.allocations[a], tol, unwritten, pa.data()).ok;
  bool same_b = compare_with_tolerance(r0[a].data(), rb[a].data(), bytes, layout.allocations[a], tol, unwritten, pb.data()).ok;
  return same_a && same_b ? BufferRole::Output : BufferRole::InOut;
}

}  // namespace

void compute_reference(const ReplayPlan& plan, ReferenceResult& result, const EmergencyExit& on_hang) {
  const auto t0 = std::chrono::steady_clock::now();
  CapturedLaunches capture(plan.capture_dir);
  capture.add_sequences(plan.sequences);
  Context ctx;
  result.device = ctx.summary();
  Module module(plan.original.cubin);
  std::string symbol;
  const std::vector<CUfunction> originals = find_original_kernels(module, plan, &symbol);
  CUfunction f = originals.front();
  result.function = function_info(f, symbol);
  const auto layout = param_layout(f);
  Runner runner{f, Stream(), plan.run_deadline_s, result, on_hang};

  // Roles and reproduction, per captured launch used.
  result.roles.assign(plan.layouts.size(), {});
  for (std::size_t li = 0; li < plan.layouts.size(); ++li) {
    const LaunchLayout& L = plan.layouts[li];
    const auto& rec = capture.launch(L.launch);
    // A sequence's steps check their own parameters (ReplaySide throws).
    std::string mismatch = capture.merged(L.launch) ? "" : param_layout_mismatch(layout, rec);
    if (!mismatch.empty())
      throw std::runtime_error("the original source, compiled, does not take the captured launch " +
                               std::to_string(L.launch) + "'s parameters: " + mismatch);
    const Blobs& before = capture.before(L.launch);
    const Blobs& after = capture.after(L.launch);
    std::unique_ptr<ReplaySide> side_ptr = make_original_side(capture, originals, L.launch);
    ReplaySide& side = *side_ptr;
    Blobs r0;
    runner.run(side, before, rec.param_buffer, r0);

    Reproduction rep{L.launch, true, ""};
    for (std::size_t a = 0; a < rec.allocations.size(); ++a) {
      if (r0[a] == after[a]) continue;
      auto cmp = compare_with_tolerance(after[a].data(), r0[a].data(), after[a].size(), L.allocations[a],
                                        plan.tolerance, {}, nullptr);
      if (!cmp.ok) {
        rep.reproduced = false;
        rep.detail += name_of(L, a) + ": " + (cmp.worst ? describe(*cmp.worst) : "differs") + "; ";
      } else {
        rep.detail += name_of(L, a) + " reproduced within tolerance (max abs error " +
                      std::to_string(cmp.max_abs_error) + "); ";
      }
    }
    result.reproduction.push_back(rep);

    std::vector<BufferRole> roles(rec.allocations.size(), BufferRole::Input);
    for (std::size_t a = 0; a < rec.allocations.size(); ++a) {
      if (!rec.allocations[a].modified && r0[a] == before[a]) continue;
      roles[a] = classify(runner, side, rec, L, before, r0, a, plan.tolerance);
    }
    result.roles[li] = roles;
  }

  // Expected outputs per input set: two runs, poison A and poison B.
  for (const auto& spec : plan.input_sets) {
    const LaunchLayout* L = plan.layout_for(spec.launch);
    if (!L) throw std::runtime_error("internal: no layout for launch " + std::to_string(spec.launch));
    const std::size_t li = static_cast<std::size_t>(L - plan.layouts.data());
    const auto& rec = capture.launch(spec.launch);
    InputSet in = make_input_set(rec, capture.before(spec.launch), *L, spec.fresh, spec.seed);
    std::unique_ptr<ReplaySide> side_ptr = make_original_side(capture, originals, spec.launch);
    ReplaySide& side = *side_ptr;
    const auto& roles = result.roles[li];
    Blobs ca = in.allocations, cb = in.allocations, pa(roles.size()), pb(roles.size());
    for (std::size_t a = 0; a < roles.size(); ++a) {
      if (roles[a] != BufferRole::Output) continue;
      pa[a] = make_poison(ca[a].size(), L->allocations[a], Poison::A);
      pb[a] = make_poison(cb[a].size(), L->allocations[a], Poison::B);
      ca[a] = pa[a];
      cb[a] = pb[a];
    }
    Blobs ra, rb;
    runner.run(side, ca, in.param_buffer, ra);
    runner.run(side, cb, in.param_buffer, rb);

    ReferenceSet rs;
    rs.index = spec.index;
    for (std::size_t a = 0; a < roles.size(); ++a) {
      ReferenceBuffer buf;
      BufferRole role = roles[a];
      if (role == BufferRole::Input) {
        if (ra[a] == in.allocations[a] && rb[a] == in.allocations[a]) {
          rs.buffers.push_back(buf);
          continue;
        }
        role = BufferRole::InOut;  // the original wrote it on this input set
      }
      buf.role = role;
      BufferComparison det;
      if (role == BufferRole::Output) {
        buf.unwritten = unwritten_ranges(ra[a].data(), pa[a].data(), rb[a].data(), pb[a].data(), ra[a].size());
        det = compare_exact(ra[a].data(), rb[a].data(), ra[a].size(), L->allocations[a], buf.unwritten);
      } else {
        det = compare_exact(ra[a].data(), rb[a].data(), ra[a].size(), L->allocations[a]);
      }
      if (!det.ok) {
        rs.deterministic = false;
        rs.nondeterminism += name_of(*L, a) + ": " + (det.worst ? describe(*det.worst) : "differs") + "; ";
      }
      buf.expected_blob = "ref/set" + std::to_string(spec.index) + "/alloc" + std::to_string(a) + ".bin";
      capture::write_blob(plan.work_dir, buf.expected_blob, ra[a].data(), ra[a].size());
      buf.expected_hash = capture::content_hash(ra[a].data(), ra[a].size());
      rs.buffers.push_back(std::move(buf));
    }
    result.deterministic = result.deterministic && rs.deterministic;
    result.sets.push_back(std::move(rs));
  }
  result.ok = true;
  result.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace warplens::replay
