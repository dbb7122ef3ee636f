#include "tests/unit/agent/launch_case_captures.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "profiler/capture_format.h"

namespace warplens::verifier::test {

namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(const std::vector<float>& v) {
  Bytes b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
void put(Bytes& buf, std::size_t offset, T v) {
  if (buf.size() < offset + sizeof v) buf.resize(offset + sizeof v);
  std::memcpy(buf.data() + offset, &v, sizeof v);
}

// A device allocation of the "program": one address, contents that evolve
// launch by launch.
struct Allocation {
  std::uint64_t address;
  Bytes contents;
};

struct Writer {
  fs::path dir;
  capture::CaptureManifest m;
  // Module variables the next launch's module holds (name, before, after),
  // recorded with it; `record_globals` false: a capture that did not look.
  struct Global {
    std::string name;
    Bytes before, after;
  };
  std::vector<Global> globals;
  bool record_globals = true;

  // A launch whose parameters are `slots` (offset, size), with `pointers`
  // (param index -> allocation) and scalars already in `buffer`; `run`
  // updates the allocations as the kernel does.
  template <class Run>
  void launch(const std::string& symbol, std::array<std::uint32_t, 3> grid, std::array<std::uint32_t, 3> block,
              std::vector<capture::ParamSlot> slots, Bytes buffer,
              std::vector<std::pair<int, Allocation*>> pointers, Run&& run) {
    capture::LaunchRecord l;
    l.index = static_cast<int>(m.launches.size());
    l.sequence = static_cast<std::uint64_t>(l.index);
    l.kernel = symbol;
    l.api = "synthetic";
    l.grid = grid;
    l.block = block;
    l.params = std::move(slots);
    std::vector<Bytes> before;
    for (std::size_t a = 0; a < pointers.size(); ++a) {
      const auto [param, alloc] = pointers[a];
      put<std::uint64_t>(buffer, l.params.at(static_cast<std::size_t>(param)).offset, alloc->address);
      l.pointers.push_back({param, l.params[static_cast<std::size_t>(param)].offset, static_cast<int>(a), 0});
      before.push_back(alloc->contents);
    }
    buffer.resize(l.params.back().offset + l.params.back().size);
    l.param_buffer = buffer;
    run();
    for (std::size_t a = 0; a < pointers.size(); ++a) {
      const Allocation& alloc = *pointers[a].second;
      capture::AllocationRecord rec;
      rec.address = alloc.address;
      rec.bytes = alloc.contents.size();
      rec.before_blob = capture::blob_name(l.index, static_cast<int>(a), false);
      rec.after_blob = capture::blob_name(l.index, static_cast<int>(a), true);
      capture::write_blob(dir, rec.before_blob, before[a].data(), rec.bytes);
      capture::write_blob(dir, rec.after_blob, alloc.contents.data(), rec.bytes);
      rec.before_hash = capture::content_hash(before[a].data(), rec.bytes);
      rec.after_hash = capture::content_hash(alloc.contents.data(), rec.bytes);
      rec.modified = rec.before_hash != rec.after_hash;
      m.total_bytes += 2 * rec.bytes;
      l.allocations.push_back(rec);
    }
    l.globals_recorded = record_globals;
    for (std::size_t g = 0; record_globals && g < globals.size(); ++g) {
      capture::ModuleGlobalRecord rec;
      rec.name = globals[g].name;
      rec.address = 0x7f9000000000ULL + 0x1000 * g;
      rec.bytes = globals[g].before.size();
      rec.constant = true;
      rec.before_blob = capture::global_blob_name(l.index, static_cast<int>(g), false);
      rec.after_blob = capture::global_blob_name(l.index, static_cast<int>(g), true);
      capture::write_blob(dir, rec.before_blob, globals[g].before.data(), rec.bytes);
      capture::write_blob(dir, rec.after_blob, globals[g].after.data(), rec.bytes);
      rec.before_hash = capture::content_hash(globals[g].before.data(), rec.bytes);
      rec.after_hash = capture::content_hash(globals[g].after.data(), rec.bytes);
      rec.modified = rec.before_hash != rec.after_hash;
      m.total_bytes += 2 * rec.bytes;
      l.globals.push_back(rec);
    }
    m.launches.push_back(std::move(l));
  }
};

float* floats(Allocation& a) { return reinterpret_cast<float*>(a.contents.data()); }

std::uint64_t next_address = 0x7f4000000000ULL;
Allocation alloc_floats(const std::vector<float>& v) {
  Allocation a{next_address, bytes_of(v)};
  next_address += 1ULL << 28;
  return a;
}

void matvec_launch(Writer& w, int M, int N, unsigned block) {
  std::vector<float> hA(static_cast<std::size_t>(M) * N), hx(N);
  for (std::size_t i = 0; i < hA.size(); ++i) hA[i] = static_cast<float>(i % 17) * 0.125f - 1.0f;
  for (int k = 0; k < N; ++k) hx[k] = static_cast<float>(k % 5) * 0.25f - 0.5f;
  Allocation A = alloc_floats(hA), x = alloc_floats(hx), y = alloc_floats(std::vector<float>(M, 0.0f));
  Bytes params;
  put<int>(params, 24, M);
  put<int>(params, 28, N);
  w.launch("_Z11matvec_rowsPKfS0_Pfii", {(M + block - 1) / block, 1, 1}, {block, 1, 1},
           {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}, {4, 28, 4}}, params, {{0, &A}, {1, &x}, {2, &y}}, [&] {
             for (int r = 0; r < M; ++r) {
               float acc = 0.0f;
               for (int k = 0; k < N; ++k) acc = std::fma(hA[static_cast<std::size_t>(r) * N + k], hx[k], acc);
               floats(y)[r] = acc;
             }
           });
}

void pair(Writer& w, int n, float bias, bool tamper) {
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i % 9) * 0.25f - 1.0f;
    hy[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  }
  // cudaMalloc leaves garbage: the temporary starts as something the pair overwrites.
  Allocation x = alloc_floats(hx), y = alloc_floats(hy), tmp = alloc_floats(std::vector<float>(n, 7.0f)),
             out = alloc_floats(std::vector<float>(n, -3.0f));
  const std::uint32_t blocks = static_cast<std::uint32_t>((n + 255) / 256);
  Bytes p1;
  put<int>(p1, 24, n);
  w.launch("_Z3mulPKfS0_Pfi", {blocks, 1, 1}, {256, 1, 1}, {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}}, p1,
           {{0, &x}, {1, &y}, {2, &tmp}}, [&] {
             for (int i = 0; i < n; ++i) floats(tmp)[i] = hx[i] * hy[i];
           });
  if (tamper) floats(tmp)[5] = 1e6f;  // what a kernel the capture did not select would do
  Bytes p2;
  put<float>(p2, 8, bias);
  put<int>(p2, 24, n);
  w.launch("_Z9bias_reluPKffPfi", {blocks, 1, 1}, {256, 1, 1}, {{0, 0, 8}, {1, 8, 4}, {2, 16, 8}, {3, 24, 4}}, p2,
           {{0, &tmp}, {2, &out}}, [&] {
             for (int i = 0; i < n; ++i) {
               const float v = floats(tmp)[i] + bias;
               floats(out)[i] = v > 0.0f ? v : 0.0f;
             }
           });
}

// conv_constant.cu: the program sets the filter, then convolves.
void conv_constant(Writer& w, bool writes_filter) {
  const int n = 1 << 16;
  const std::vector<float> filter = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
  std::vector<float> hx(n);
  for (int i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 11) * 0.5f - 2.0f;
  Allocation x = alloc_floats(hx), y = alloc_floats(std::vector<float>(n, 0.0f));
  std::vector<float> after = filter;
  if (writes_filter) after[0] = 1.0f;  // as if the kernel stored into its module variable
  w.globals = {{"c_filter", bytes_of(filter), bytes_of(after)}};
  Bytes params;
  put<int>(params, 16, n);
  w.launch("_Z5conv5PKfPfi", {static_cast<std::uint32_t>(n / 256), 1, 1}, {256, 1, 1},
           {{0, 0, 8}, {1, 8, 8}, {2, 16, 4}}, params, {{0, &x}, {1, &y}}, [&] {
             for (int i = 0; i < n; ++i) {
               float acc = 0.0f;
               for (int k = 0; k < 5; ++k) {
                 const int j = i + k - 2;
                 if (j >= 0 && j < n) acc = std::fma(filter[static_cast<std::size_t>(k)], hx[j], acc);
               }
               floats(y)[i] = acc;
             }
           });
  w.globals.clear();
}

}  // namespace

bool write_launch_case_capture(const std::string& key, const fs::path& dir) {
  Writer w;
  w.dir = dir;
  w.m.producer = "launch-case tests (synthetic capture)";
  w.m.device = {0, "synthetic", 9, 0, 50u << 20, 13000};
  w.m.max_bytes = capture::kDefaultMaxBytes;
  w.m.complete = true;
  fs::create_directories(dir);
  if (key == "matvec") {
    matvec_launch(w, 1000, 96, 128);
    matvec_launch(w, 77, 33, 64);
  } else if (key == "matmul_rowx") {
    const int M = 48, N = 80, K = 24;
    std::vector<float> hA(M * K), hB(K * N);
    for (int i = 0; i < M * K; ++i) hA[i] = static_cast<float>(i % 7) * 0.5f - 1.0f;
    for (int i = 0; i < K * N; ++i) hB[i] = static_cast<float>(i % 11) * 0.25f - 1.0f;
    Allocation A = alloc_floats(hA), B = alloc_floats(hB), C = alloc_floats(std::vector<float>(M * N, 0.0f));
    Bytes params;
    put<int>(params, 24, M);
    put<int>(params, 28, N);
    put<int>(params, 32, K);
    w.launch("_Z17matmul_naive_rowxPKfS0_Pfiii", {3, 5, 1}, {16, 16, 1},
             {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}, {4, 28, 4}, {5, 32, 4}}, params,
             {{0, &A}, {1, &B}, {2, &C}}, [&] {
               for (int r = 0; r < M; ++r)
                 for (int c = 0; c < N; ++c) {
                   float acc = 0.0f;
                   for (int k = 0; k < K; ++k) acc = std::fma(hA[r * K + k], hB[k * N + c], acc);
                   floats(C)[r * N + c] = acc;
                 }
             });
  } else if (key == "saxpy") {
    const int n = 1 << 16;
    std::vector<float> hx(n), hy(n);
    for (int i = 0; i < n; ++i) {
      hx[i] = static_cast<float>(i % 13) * 0.5f;
      hy[i] = static_cast<float>(i % 3) - 1.0f;
    }
    Allocation x = alloc_floats(hx), y = alloc_floats(hy);
    Bytes params;
    put<float>(params, 0, 2.0f);
    put<int>(params, 24, n);
    w.launch("_Z13saxpy_inplacefPKfPfi", {256, 1, 1}, {256, 1, 1}, {{0, 0, 4}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}},
             params, {{1, &x}, {2, &y}}, [&] {
               for (int i = 0; i < n; ++i) floats(y)[i] = std::fma(2.0f, hx[i], floats(y)[i]);
             });
  } else if (key == "elementwise_chain" || key == "elementwise_chain_tampered" ||
             key == "elementwise_chain_consumer_only") {
    pair(w, 1 << 16, 0.1f, key == "elementwise_chain_tampered");
    pair(w, 1000, 0.25f, false);
    if (key == "elementwise_chain_consumer_only") {  // what a capture of `bias_relu` alone holds
      std::vector<capture::LaunchRecord> kept;
      for (auto& l : w.m.launches)
        if (l.kernel == "_Z9bias_reluPKffPfi") kept.push_back(std::move(l));
      for (std::size_t i = 0; i < kept.size(); ++i) kept[i].index = static_cast<int>(i);
      w.m.launches = std::move(kept);
    }
  } else if (key == "conv_constant" || key == "conv_constant_unrecorded" || key == "conv_constant_writes_filter") {
    w.record_globals = key != "conv_constant_unrecorded";
    conv_constant(w, key == "conv_constant_writes_filter");
  } else {
    return false;
  }
  w.m.kernel_regex = key;
  w.m.max_launches = static_cast<int>(w.m.launches.size());
  capture::save_manifest(dir, w.m);
  return true;
}

}  // namespace warplens::verifier::test
