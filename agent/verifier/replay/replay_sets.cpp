#include "agent/verifier/replay/replay_sets.h"

namespace warplens::replay {

using namespace verifier;

Pristine::Pristine(const capture::LaunchRecord& launch, const Blobs& before, const Blobs& globals, CUstream s) {
  for (std::size_t a = 0; a < launch.allocations.size(); ++a) {
    buffers_.emplace_back(launch.allocations[a].bytes);
    bytes_.push_back(launch.allocations[a].bytes);
    upload(buffers_.back().ptr(), before.at(a).data(), bytes_.back(), s);
  }
  for (std::size_t g = 0; g < launch.globals.size(); ++g) {
    globals_.emplace_back(launch.globals[g].bytes);
    global_bytes_.push_back(launch.globals[g].bytes);
    upload(globals_.back().ptr(), globals.at(g).data(), global_bytes_.back(), s);
  }
}

std::uint64_t Pristine::hash(BufferOps& ops, CUstream s) const {
  std::uint64_t h = 0;
  for (std::size_t a = 0; a < buffers_.size(); ++a) h = h * 0x100000001b3ULL + ops.hash(ptr(a), bytes_[a], s);
  for (std::size_t g = 0; g < globals_.size(); ++g)
    h = h * 0x100000001b3ULL + ops.hash(global_ptr(g), global_bytes_[g], s);
  return h;
}

LaunchGeometry captured_geometry(const capture::LaunchRecord& launch) {
  return LaunchGeometry{launch.grid, launch.block, launch.dynamic_shared_bytes};
}

SetContext make_set(const InputSetSpec& spec, const capture::LaunchRecord& launch, const LaunchLayout& layout,
                    const Pristine& pristine) {
  SetContext set;
  set.spec = &spec;
  set.launch = &launch;
  set.layout = &layout;
  set.pristine = &pristine;
  set.params = make_param_buffer(launch, layout, jitters_scalars(spec), spec.seed, spec.scalars);
  set.original_geometry = spec.geometry.value_or(captured_geometry(launch));
  return set;
}

void starting_contents(BufferOps& ops, CUdeviceptr dst, const SetContext& set, std::size_t a, CUstream s) {
  const std::uint64_t bytes = set.pristine->bytes(a);
  if (set.spec->fresh && redraws(*set.layout, a))
    ops.redraw(dst, set.pristine->ptr(a), bytes, set.layout->allocations[a], allocation_seed(set.spec->seed, a), s);
  else
    copy_dtod(dst, set.pristine->ptr(a), bytes, s);
}

void prepare(BufferOps& ops, ReplaySide& side, const SetContext& set, const std::vector<BufferRole>& roles, int poison,
             CUstream s) {
  for (std::size_t a = 0; a < side.allocations(); ++a) {
    if (a < roles.size() && roles[a] == BufferRole::Output)
      ops.poison(side.ptr(a), side.bytes(a), set.layout->allocations[a], poison, s);
    else
      starting_contents(ops, side.ptr(a), set, a, s);
    if (side.guard_bytes()) {
      fill_bytes(side.guard_before(a), guard_byte(poison), side.guard_bytes(), s);
      fill_bytes(side.guard_after(a), guard_byte(poison), side.guard_bytes(), s);
    }
  }
  // A kernel reads its module's variables as well as its parameters
  // (a __constant__ filter): both sides see them as the program had them.
  for (const auto& g : side.module_globals()) copy_dtod(g.ptr, set.pristine->global_ptr(g.global), g.bytes, s);
  side.set_params(set.params);
}

void scrub(BufferOps& ops, ReplaySide& side, const SetContext& set, const std::vector<BufferRole>& roles, int poison,
           CUstream s) {
  for (std::size_t a = 0; a < side.allocations(); ++a) {
    const BufferRole role = a < roles.size() ? roles[a] : BufferRole::Input;
    if (role == BufferRole::Output) ops.poison(side.ptr(a), side.bytes(a), set.layout->allocations[a], poison, s);
    else if (role == BufferRole::InOut) starting_contents(ops, side.ptr(a), set, a, s);
  }
}

std::optional<GuardDamage> check_guards(BufferOps& ops, const ReplaySide& side, int poison, CUstream s,
                                        const std::vector<bool>* unchecked) {
  if (!side.guard_bytes()) return std::nullopt;
  for (std::size_t a = 0; a < side.allocations(); ++a) {
    if (unchecked && a < unchecked->size() && (*unchecked)[a]) continue;
    std::uint64_t first = 0;
    std::uint64_t n = ops.count_not(side.guard_after(a), side.guard_bytes(), guard_byte(poison), &first, s);
    if (n) return GuardDamage{a, true, n, first};
    n = ops.count_not(side.guard_before(a), side.guard_bytes(), guard_byte(poison), &first, s);
    if (n) return GuardDamage{a, false, n, side.guard_bytes() - first};
  }
  return std::nullopt;
}

std::string allocation_name(const LaunchLayout& layout, std::size_t a) {
  if (a < layout.allocation_names.size() && !layout.allocation_names[a].empty())
    return "allocation " + std::to_string(a) + " [" + layout.allocation_names[a] + "]";
  return "allocation " + std::to_string(a);
}

std::string describe(const GuardDamage& d, const LaunchLayout& layout) {
  return "wrote " + std::to_string(d.bytes) + " byte(s) " + (d.after ? "past the end of " : "before the start of ") +
         allocation_name(layout, d.allocation) + " (the first one " + std::to_string(d.first) + " byte(s) " +
         (d.after ? "after its last byte" : "before its first byte") + "), outside the allocation the program made";
}

namespace {
std::vector<IntegerArg> integer_args(const LaunchLayout& layout, const std::vector<std::uint8_t>& params,
                                     const std::vector<std::uint8_t>& captured) {
  std::vector<IntegerArg> out;
  for (std::size_t i = 0; i < layout.scalars.size(); ++i) {
    const ScalarSlot& s = layout.scalars[i];
    if (!is_integer_type(s.type)) continue;
    IntegerArg arg;
    arg.param = s.param;
    arg.name = i < layout.scalar_names.size() ? layout.scalar_names[i] : "param " + std::to_string(s.param);
    arg.value = read_integer(params, s.offset, s.type);
    arg.captured = read_integer(captured, s.offset, s.type);
    out.push_back(std::move(arg));
  }
  return out;
}
}  // namespace

SetShape set_shape(const SetContext& set, const LaunchGeometry& candidate) {
  SetShape shape;
  shape.recorded = true;
  shape.original = set.original_geometry;
  shape.candidate = candidate;
  shape.integer_args = integer_args(*set.layout, set.params, set.launch->param_buffer);
  shape.variation = set.spec->variation;
  return shape;
}

SetShape spec_shape(const InputSetSpec& spec, const capture::LaunchRecord& launch, const LaunchLayout& layout) {
  SetShape shape;
  shape.recorded = true;
  shape.original = spec.geometry.value_or(captured_geometry(launch));
  shape.integer_args =
      integer_args(layout, make_param_buffer(launch, layout, jitters_scalars(spec), spec.seed, spec.scalars),
                   launch.param_buffer);
  shape.variation = spec.variation;
  return shape;
}

}  // namespace warplens::replay
