#include "agent/verifier/input_generation.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "agent/verifier/element_ops.h"

namespace warplens::verifier {

namespace {

// splitmix64: tiny, fast and fully specified, so both processes (and any
// reader of the evidence) get the same stream from the same seed.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::uint64_t s_;
};

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  Rng r(seed * 0x100000001b3ULL + stream);
  return r.next();
}

}  // namespace

ParamValues integer_params(const LaunchLayout& layout, const std::vector<std::uint8_t>& param_buffer) {
  ParamValues out;
  for (const ScalarSlot& s : layout.scalars) {
    const int size = element_size(s.type);
    if (s.type == ElementType::Bytes || is_floating(s.type) || s.type == ElementType::Bool ||
        s.offset + static_cast<std::uint64_t>(size) > param_buffer.size())
      continue;
    const std::uint8_t* p = param_buffer.data() + s.offset;
    std::int64_t v = 0;
    switch (s.type) {
      case ElementType::I8: { std::int8_t x; std::memcpy(&x, p, 1); v = x; break; }
      case ElementType::U8: { std::uint8_t x; std::memcpy(&x, p, 1); v = x; break; }
      case ElementType::I16: { std::int16_t x; std::memcpy(&x, p, 2); v = x; break; }
      case ElementType::U16: { std::uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
      case ElementType::I32: { std::int32_t x; std::memcpy(&x, p, 4); v = x; break; }
      case ElementType::U32: { std::uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
      case ElementType::I64: { std::int64_t x; std::memcpy(&x, p, 8); v = x; break; }
      case ElementType::U64: {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        if (x > static_cast<std::uint64_t>(INT64_MAX)) continue;
        v = static_cast<std::int64_t>(x);
        break;
      }
      default: continue;
    }
    out[s.param] = v;
  }
  return out;
}

LaunchLayout make_launch_layout(const capture::LaunchRecord& launch, const KernelSignature* signature) {
  LaunchLayout layout;
  layout.launch = launch.index;
  const std::size_t n = launch.allocations.size();
  layout.allocations.assign(n, BufferLayout{});
  layout.allocation_names.assign(n, "");
  std::vector<bool> typed(n, false), conflict(n, false);
  const bool signature_fits = signature && signature->params.size() == launch.params.size();

  for (const auto& p : launch.pointers) {
    auto a = static_cast<std::size_t>(p.allocation);
    if (a >= n) continue;
    std::string pname = signature_fits && !signature->params[p.param].name.empty()
                            ? signature->params[p.param].name
                            : "param " + std::to_string(p.param);
    std::string label = pname + (signature_fits && !signature->params[p.param].name.empty()
                                     ? " (param " + std::to_string(p.param) + ")"
                                     : "");
    if (p.buffer_offset != launch.params[p.param].offset) label += " [inside struct]";
    layout.allocation_names[a] += (layout.allocation_names[a].empty() ? "" : ", ") + label;

    // Only a top-level pointer parameter with a known pointee type types the
    // allocation; a pointer found inside a struct parameter does not.
    ElementType t = ElementType::Bytes;
    if (signature_fits && p.buffer_offset == launch.params[p.param].offset && signature->params[p.param].is_pointer)
      t = signature->params[p.param].element;
    std::uint64_t size = static_cast<std::uint64_t>(element_size(t));
    BufferLayout candidate{t, t == ElementType::Bytes ? 0 : p.offset_in_allocation % size};
    if (!typed[a]) {
      layout.allocations[a] = candidate;
      typed[a] = true;
    } else if (!(layout.allocations[a] == candidate)) {
      conflict[a] = true;
    }
  }
  for (std::size_t a = 0; a < n; ++a)
    if (conflict[a]) layout.allocations[a] = BufferLayout{};

  if (signature_fits) {
    for (std::size_t i = 0; i < launch.params.size(); ++i) {
      const auto& info = signature->params[i];
      if (info.is_pointer || info.element == ElementType::Bytes) continue;
      if (static_cast<std::uint64_t>(element_size(info.element)) != launch.params[i].size) continue;
      layout.scalars.push_back({static_cast<int>(i), launch.params[i].offset, info.element});
      layout.scalar_names.push_back(info.name.empty() ? "param " + std::to_string(i) : info.name);
    }
  }
  return layout;
}

void redraw_floats(const std::uint8_t* captured, std::uint8_t* out, std::uint64_t bytes, BufferLayout layout,
                   std::uint64_t seed) {
  const std::uint64_t size = is_floating(layout.type) ? static_cast<std::uint64_t>(element_size(layout.type)) : 1;
  const std::uint64_t count = is_floating(layout.type) && layout.phase < bytes ? (bytes - layout.phase) / size : 0;
  if (count == 0) {
    std::memcpy(out, captured, bytes);
    return;
  }
  // Only the bytes around the whole elements keep their captured values.
  const std::uint64_t end = layout.phase + count * size;
  std::memcpy(out, captured, layout.phase);
  std::memcpy(out + end, captured + end, bytes - end);
  const auto t = static_cast<std::uint8_t>(layout.type);
  // Each element is a function of (seed, index) alone, so the work splits
  // across threads with the same result as one thread. It is the host side
  // of `warplens-replay sanitize` (no buffer kernels may run under
  // compute-sanitizer): one thread took ~10 s per GiB of floats, most of a
  // winner's memcheck on large captures.
  auto run = [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t i = first; i < last; ++i)
      ops::redraw_element(t, captured + layout.phase, out + layout.phase, count, seed, i);
  };
  constexpr std::uint64_t kPerThread = std::uint64_t{1} << 20;
  const std::uint64_t threads =
      std::min<std::uint64_t>({std::max(1u, std::thread::hardware_concurrency()), 16, (count + kPerThread - 1) / kPerThread});
  if (threads <= 1) return run(0, count);
  std::vector<std::thread> pool;
  const std::uint64_t chunk = (count + threads - 1) / threads;
  for (std::uint64_t k = 1; k < threads; ++k)
    pool.emplace_back(run, std::min(count, k * chunk), std::min(count, (k + 1) * chunk));
  run(0, std::min(count, chunk));
  for (auto& th : pool) th.join();
}

bool redraws(const LaunchLayout& layout, std::size_t a) {
  return a < layout.allocations.size() && is_floating(layout.allocations[a].type);
}

std::uint64_t allocation_seed(std::uint64_t set_seed, std::size_t a) { return derive_seed(set_seed, 1000 + a); }

bool is_integer_type(ElementType t) {
  switch (t) {
    case ElementType::I8: case ElementType::U8: case ElementType::I16: case ElementType::U16:
    case ElementType::I32: case ElementType::U32: case ElementType::I64: case ElementType::U64:
      return true;
    default:
      return false;
  }
}

std::int64_t read_integer(const std::vector<std::uint8_t>& params, std::uint64_t offset, ElementType type) {
  const auto size = static_cast<std::uint64_t>(element_size(type));
  if (!is_integer_type(type) || offset + size > params.size()) return 0;
  const std::uint8_t* p = params.data() + offset;
  switch (type) {
    case ElementType::I8: return ops::load_raw<std::int8_t>(p);
    case ElementType::U8: return ops::load_raw<std::uint8_t>(p);
    case ElementType::I16: return ops::load_raw<std::int16_t>(p);
    case ElementType::U16: return ops::load_raw<std::uint16_t>(p);
    case ElementType::I32: return ops::load_raw<std::int32_t>(p);
    case ElementType::U32: return ops::load_raw<std::uint32_t>(p);
    case ElementType::I64: return ops::load_raw<std::int64_t>(p);
    case ElementType::U64: return static_cast<std::int64_t>(ops::load_raw<std::uint64_t>(p));
    default: return 0;
  }
}

void write_integer(std::vector<std::uint8_t>& params, std::uint64_t offset, ElementType type, std::int64_t value) {
  const auto size = static_cast<std::uint64_t>(element_size(type));
  if (!is_integer_type(type) || offset + size > params.size()) return;
  // Little-endian: the low `size` bytes of the two's-complement value.
  const auto bits = static_cast<std::uint64_t>(value);
  std::memcpy(params.data() + offset, &bits, static_cast<std::size_t>(size));
}

std::vector<std::uint8_t> make_param_buffer(const capture::LaunchRecord& launch, const LaunchLayout& layout,
                                            bool fresh, std::uint64_t seed, const std::vector<ScalarValue>& scalars) {
  std::vector<std::uint8_t> params = launch.param_buffer;
  for (const auto& s : scalars) write_integer(params, s.offset, s.type, s.value);
  if (fresh) {
    Rng rng(derive_seed(seed, 7));
    for (const auto& s : layout.scalars) {
      if (!is_floating(s.type) || s.offset + static_cast<std::uint64_t>(element_size(s.type)) > params.size())
        continue;
      std::uint8_t* p = params.data() + s.offset;
      double v = load_as_double(s.type, p);
      store_from_double(s.type, p, v * (0.75 + 0.5 * rng.uniform()));
    }
  }
  return params;
}

InputSet make_input_set(const capture::LaunchRecord& launch, const std::vector<std::vector<std::uint8_t>>& captured,
                        const LaunchLayout& layout, bool fresh, std::uint64_t seed,
                        const std::vector<ScalarValue>& scalars) {
  InputSet set;
  set.param_buffer = make_param_buffer(launch, layout, fresh, seed, scalars);
  set.allocations.resize(captured.size());
  for (std::size_t a = 0; a < captured.size(); ++a) {
    const auto& src = captured[a];
    set.allocations[a].resize(src.size());
    if (fresh && redraws(layout, a)) {
      redraw_floats(src.data(), set.allocations[a].data(), src.size(), layout.allocations[a], allocation_seed(seed, a));
    } else if (!src.empty()) {
      std::memcpy(set.allocations[a].data(), src.data(), src.size());
    }
  }
  return set;
}

}  // namespace warplens::verifier
