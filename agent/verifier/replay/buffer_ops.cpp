#include "agent/verifier/replay/buffer_ops.h"

#include <algorithm>
#include <vector>

#include "agent/verifier/compare_units.h"
#include "agent/verifier/poison.h"
#include "agent/verifier/replay/cuda_driver.h"
#include "agent/verifier/replay/replay_kernel_args.h"

// The embedded fatbin (cmake/EmbedBinary.cmake).
extern const unsigned char warplens_replay_kernels_fatbin[];
extern const unsigned long long warplens_replay_kernels_fatbin_size;

namespace warplens::replay {

using namespace verifier;

namespace {

std::vector<std::uint8_t> fetch(CUdeviceptr p, std::uint64_t bytes, CUstream s) {
  std::vector<std::uint8_t> v(bytes);
  download(v.data(), p, bytes, s);
  return v;
}

class HostOps final : public BufferOps {
 public:
  std::string name() const override { return "host"; }
  void poison(CUdeviceptr dst, std::uint64_t bytes, BufferLayout layout, int which, CUstream s) override {
    if (which == 0) return fill_bytes(dst, 0xff, bytes, s);
    auto p = make_poison(bytes, layout, Poison::B);
    upload(dst, p.data(), bytes, s);
  }
  void redraw(CUdeviceptr dst, CUdeviceptr src, std::uint64_t bytes, BufferLayout layout, std::uint64_t seed,
              CUstream s) override {
    auto in = fetch(src, bytes, s);
    std::vector<std::uint8_t> out(bytes);
    redraw_floats(in.data(), out.data(), bytes, layout, seed);
    upload(dst, out.data(), bytes, s);
  }
  BufferComparison compare(CUdeviceptr expected, CUdeviceptr got, CUdeviceptr pref, std::uint64_t bytes,
                           BufferLayout layout, const Tolerance& tol, const CompareOptions& options,
                           CUstream s) override {
    auto e = fetch(expected, bytes, s), g = fetch(got, bytes, s);
    std::vector<std::uint8_t> p;
    if (pref) p = pref == got ? g : pref == expected ? e : fetch(pref, bytes, s);
    return compare_buffers(e.data(), g.data(), pref ? p.data() : nullptr, bytes, layout, tol, options);
  }
  std::uint64_t count_not(CUdeviceptr p, std::uint64_t bytes, std::uint8_t value, std::uint64_t* first,
                          CUstream s) override {
    auto v = fetch(p, bytes, s);
    std::uint64_t n = 0, at = ~0ULL;
    for (std::uint64_t b = 0; b < bytes; ++b)
      if (v[b] != value) {
        if (!n) at = b;
        ++n;
      }
    if (first) *first = at;
    return n;
  }
  std::uint64_t hash(CUdeviceptr p, std::uint64_t bytes, CUstream s) override {
    auto v = fetch(p, bytes, s);
    std::uint64_t h = 0;
    for (std::uint64_t w = 0; w < (bytes + 7) / 8; ++w) h += ops::hash_word(ops::word_at(v.data(), bytes, w), w);
    return h;
  }
};

class DeviceOps final : public BufferOps {
 public:
  explicit DeviceOps(const DeviceSummary& device)
      : module_(warplens_replay_kernels_fatbin, "the replay's buffer kernels"),
        fill_(module_.function(kernels::kFillPoisonB)),
        redraw_(module_.function(kernels::kRedraw)),
        compare_(module_.function(kernels::kCompare)),
        worst_(module_.function(kernels::kCompareWorst)),
        count_(module_.function(kernels::kCountNot)),
        hash_(module_.function(kernels::kHash)),
        result_(sizeof(ops::CompareStats)),
        max_blocks_(std::max(1, device.sm_count) * 8) {}

  std::string name() const override { return "device"; }

  void poison(CUdeviceptr dst, std::uint64_t bytes, BufferLayout layout, int which, CUstream s) override {
    if (which == 0 || !is_floating(layout.type)) return fill_bytes(dst, which == 0 ? 0xff : 0xa5, bytes, s);
    kernels::FillArgs a;
    a.dst = dst;
    a.bytes = bytes;
    a.phase = layout.phase;
    a.type = static_cast<std::uint8_t>(layout.type);
    launch(fill_, &a, (bytes + 7) / 8, s);
  }

  void redraw(CUdeviceptr dst, CUdeviceptr src, std::uint64_t bytes, BufferLayout layout, std::uint64_t seed,
              CUstream s) override {
    copy_dtod(dst, src, bytes, s);
    if (!is_floating(layout.type) || layout.phase >= bytes) return;
    const auto size = static_cast<std::uint64_t>(element_size(layout.type));
    kernels::RedrawArgs a;
    a.dst = dst + layout.phase;
    a.src = src + layout.phase;
    a.count = (bytes - layout.phase) / size;
    a.seed = seed;
    a.type = static_cast<std::uint8_t>(layout.type);
    if (a.count) launch(redraw_, &a, a.count, s);
  }

  BufferComparison compare(CUdeviceptr expected, CUdeviceptr got, CUdeviceptr pref, std::uint64_t bytes,
                           BufferLayout layout, const Tolerance& tol, const CompareOptions& options,
                           CUstream s) override {
    kernels::CompareArgs a;
    a.expected = expected;
    a.got = got;
    a.pref = pref;
    a.stats = result_.ptr();
    a.spec = compare_spec(layout, bytes, tol, options);
    const ops::UnitGrid grid = ops::unit_grid(a.spec.type, a.spec.phase, bytes);
    // Zero totals, "no unit yet" for the worst one: written on the stream,
    // after whatever ran before (nothing a kernel left there survives).
    fill_bytes(result_.ptr(), 0, sizeof(ops::CompareStats), s);
    fill_bytes(result_.ptr() + offsetof(ops::CompareStats, worst_unit), 0xff, 8, s);
    const std::uint64_t units = grid.units();
    if (units) launch(compare_, &a, units, s);
    ops::CompareStats stats;
    download(&stats, result_.ptr(), sizeof stats, s);
    std::optional<ElementReport> worst;
    if (units && (stats.mismatches || stats.worst_pass_bits)) {
      launch(worst_, &a, units, s);
      download(&stats.worst_unit, result_.ptr() + offsetof(ops::CompareStats, worst_unit), 8, s);
      if (stats.worst_unit < units) {
        const ops::Unit unit = grid.unit(stats.worst_unit);
        std::uint8_t e[8] = {0}, g[8] = {0}, p[8] = {0};
        download(e, expected + unit.offset, unit.size, s);
        download(g, got + unit.offset, unit.size, s);
        if (pref) download(p, pref + unit.offset, unit.size, s);
        const ops::UnitResult r = ops::compare_unit_bytes(a.spec, unit, e, g, pref ? p : nullptr);
        worst = unit_report(a.spec, unit, e, g, r.problem);
      }
    }
    return finish_comparison(stats, std::move(worst));
  }

  std::uint64_t count_not(CUdeviceptr p, std::uint64_t bytes, std::uint8_t value, std::uint64_t* first,
                          CUstream s) override {
    if (!bytes) {
      if (first) *first = ~0ULL;
      return 0;
    }
    kernels::CountArgs a;
    a.p = p;
    a.bytes = bytes;
    a.out = result_.ptr();
    a.value = value;
    fill_bytes(result_.ptr(), 0, 8, s);
    fill_bytes(result_.ptr() + 8, 0xff, 8, s);
    launch(count_, &a, bytes, s);
    std::uint64_t out[2];
    download(out, result_.ptr(), sizeof out, s);
    if (first) *first = out[1];
    return out[0];
  }

  std::uint64_t hash(CUdeviceptr p, std::uint64_t bytes, CUstream s) override {
    kernels::HashArgs a;
    a.p = p;
    a.bytes = bytes;
    a.out = result_.ptr();
    fill_bytes(result_.ptr(), 0, 8, s);
    if (bytes) launch(hash_, &a, (bytes + 7) / 8, s);
    std::uint64_t h = 0;
    download(&h, result_.ptr(), 8, s);
    return h;
  }

 private:
  template <class Args>
  void launch(CUfunction f, Args* args, std::uint64_t work, CUstream s) {
    constexpr unsigned kThreads = 256;
    const std::uint64_t wanted = (work + kThreads - 1) / kThreads;
    const auto blocks = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(wanted, max_blocks_)));
    void* params[] = {args};
    check(cuLaunchKernel(f, blocks, 1, 1, kThreads, 1, 1, 0, s, params, nullptr), "cuLaunchKernel(buffer kernel)");
  }

  Module module_;
  CUfunction fill_, redraw_, compare_, worst_, count_, hash_;
  DeviceBuffer result_;
  std::uint64_t max_blocks_;
};

}  // namespace

std::unique_ptr<BufferOps> make_buffer_ops(const std::string& pipeline, const DeviceSummary& device,
                                           std::string* note) {
  if (pipeline == "host") return std::make_unique<HostOps>();
  if (warplens_replay_kernels_fatbin_size == 0) {
    if (note) *note = "the replay was built without its buffer kernels (no nvcc at build time): host loops used";
    return std::make_unique<HostOps>();
  }
  try {
    return std::make_unique<DeviceOps>(device);
  } catch (const std::exception& e) {
    if (note) *note = std::string("the replay's buffer kernels could not be loaded (") + e.what() + "): host loops used";
    return std::make_unique<HostOps>();
  }
}

}  // namespace warplens::replay
