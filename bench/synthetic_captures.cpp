#include "bench/synthetic_captures.h"

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "profiler/capture_format.h"

namespace warplens::verifier::gpu {

namespace fs = std::filesystem;

namespace {

struct Buffer {
  std::vector<std::uint8_t> before, after;
};

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
void put(std::vector<std::uint8_t>& buf, std::size_t offset, T v) {
  std::memcpy(buf.data() + offset, &v, sizeof v);
}

// One launch whose pointer parameters are `pointer_params` (8 bytes each;
// default: the first `buffers.size()` parameters, at 0, 8, ...), the other
// parameters' bytes already placed in `param_buffer`.
void write_launch(const fs::path& dir, capture::CaptureManifest& m, const std::string& symbol,
                  std::array<std::uint32_t, 3> grid, std::array<std::uint32_t, 3> block,
                  std::vector<capture::ParamSlot> params, std::vector<std::uint8_t> param_buffer,
                  const std::vector<Buffer>& buffers, std::vector<int> pointer_params = {}) {
  if (pointer_params.empty())
    for (std::size_t a = 0; a < buffers.size(); ++a) pointer_params.push_back(static_cast<int>(a));
  capture::LaunchRecord l;
  l.index = static_cast<int>(m.launches.size());
  l.sequence = static_cast<std::uint64_t>(l.index);
  l.kernel = symbol;
  l.api = "synthetic";
  l.grid = grid;
  l.block = block;
  l.params = std::move(params);
  l.param_buffer = std::move(param_buffer);
  for (std::size_t a = 0; a < buffers.size(); ++a) {
    const std::uint64_t address = 0x7f0000000000ULL + (static_cast<std::uint64_t>(l.index) << 32) + (a << 28);
    const int param = pointer_params[a];
    const std::uint64_t offset = l.params[static_cast<std::size_t>(param)].offset;
    put<std::uint64_t>(l.param_buffer, offset, address);
    capture::AllocationRecord rec;
    rec.address = address;
    rec.bytes = buffers[a].before.size();
    rec.before_blob = capture::blob_name(l.index, static_cast<int>(a), false);
    rec.after_blob = capture::blob_name(l.index, static_cast<int>(a), true);
    capture::write_blob(dir, rec.before_blob, buffers[a].before.data(), rec.bytes);
    capture::write_blob(dir, rec.after_blob, buffers[a].after.data(), rec.bytes);
    rec.before_hash = capture::content_hash(buffers[a].before.data(), rec.bytes);
    rec.after_hash = capture::content_hash(buffers[a].after.data(), rec.bytes);
    rec.modified = buffers[a].before != buffers[a].after;
    m.total_bytes += 2 * rec.bytes;
    l.allocations.push_back(rec);
    l.pointers.push_back({param, offset, static_cast<int>(a), 0});
  }
  m.launches.push_back(std::move(l));
}

// The fp64 row sum in the kernel's order: strided partials, then the tree.
template <class T>
T tree_row_sum(const T* r, int cols) {
  T partial[256];
  for (int t = 0; t < 256; ++t) {
    T acc = 0;
    for (int c = t; c < cols; c += 256) acc += r[c];
    partial[t] = acc;
  }
  for (int s = 128; s > 0; s >>= 1)
    for (int t = 0; t < s; ++t) partial[t] += partial[t + s];
  return partial[0];
}

void scale_add_launch(const fs::path& dir, capture::CaptureManifest& m, int n, float alpha,
                      const std::vector<float>& x, const std::vector<float>& y) {
  const int slack = 256;
  std::vector<float> out(static_cast<std::size_t>(n) + slack, 0.0f), after = out;
  for (int i = 0; i < n; ++i) after[i] = std::fma(alpha, x[i], y[i]);  // nvcc contracts to FFMA
  std::vector<std::uint8_t> params(32, 0);
  put<float>(params, 24, alpha);
  put<int>(params, 28, n);
  write_launch(dir, m, "_Z9scale_addPKfS0_Pffi", {static_cast<std::uint32_t>((n + 127) / 128), 1, 1}, {128, 1, 1},
               {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}, {4, 28, 4}}, params,
               {{bytes_of(x), bytes_of(x)}, {bytes_of(y), bytes_of(y)}, {bytes_of(out), bytes_of(after)}});
}

}  // namespace

bool write_synthetic_capture(const std::string& key, const fs::path& dir, const SyntheticSizes& sizes) {
  capture::CaptureManifest m;
  m.producer = "verifier tests (synthetic capture)";
  m.device.name = "synthetic";
  m.max_launches = 2;
  m.max_bytes = capture::kDefaultMaxBytes;
  m.complete = true;
  m.notes.push_back("synthetic: written by the GPU suite because capture through the injection library failed");
  fs::create_directories(dir);
  if (key == "scale_add" || key == "scale_add_x2") {
    const int n = sizes.scale_n;
    std::vector<float> x(n, 1.0f), y(n, 0.5f);
    scale_add_launch(dir, m, n, 2.5f, x, y);
    if (key == "scale_add_x2") {
      for (int i = 0; i < n; ++i) {
        x[i] = 0.001f * static_cast<float>(i % 1000) - 0.5f;
        y[i] = 0.25f * static_cast<float>(i % 7);
      }
      scale_add_launch(dir, m, n - 3, 0.5f, x, y);
    }
  } else if (key == "transpose") {
    const int rows = sizes.transpose_dim, cols = sizes.transpose_dim;
    std::vector<float> in(static_cast<std::size_t>(rows) * cols), out(in.size(), 0.0f), after(in.size());
    for (int i = 0; i < rows * cols; ++i) in[i] = std::sin(0.001f * static_cast<float>(i));
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) after[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
    std::vector<std::uint8_t> params(24, 0);
    put<int>(params, 16, rows);
    put<int>(params, 20, cols);
    const auto tiles = static_cast<std::uint32_t>(cols / 32);
    write_launch(dir, m, "_Z15transpose_naivePKfPfii", {tiles, tiles, 1}, {32, 32, 1},
                 {{0, 0, 8}, {1, 8, 8}, {2, 16, 4}, {3, 20, 4}}, params,
                 {{bytes_of(in), bytes_of(in)}, {bytes_of(out), bytes_of(after)}});
  } else if (key == "row_sum") {
    const int rows = sizes.row_sum_rows, cols = 1024;
    std::vector<float> in(static_cast<std::size_t>(rows) * cols), out(rows, 0.0f), after(rows);
    unsigned state = 12345;
    for (auto& v : in) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
    }
    for (int row = 0; row < rows; ++row) {  // the kernel's order: strided partials, then the tree
      float partial[256];
      for (int t = 0; t < 256; ++t) {
        float acc = 0.0f;
        for (int c = t; c < cols; c += 256) acc += in[static_cast<std::size_t>(row) * cols + c];
        partial[t] = acc;
      }
      for (int s = 128; s > 0; s >>= 1)
        for (int t = 0; t < s; ++t) partial[t] += partial[t + s];
      after[row] = partial[0];
    }
    std::vector<std::uint8_t> params(20, 0);
    put<int>(params, 16, cols);
    write_launch(dir, m, "_Z7row_sumPKfPfi", {static_cast<std::uint32_t>(rows), 1, 1}, {256, 1, 1},
                 {{0, 0, 8}, {1, 8, 8}, {2, 16, 4}}, params,
                 {{bytes_of(in), bytes_of(in)}, {bytes_of(out), bytes_of(after)}});
  } else if (key == "memory_kinds") {
    // add_one on (what was) managed memory, then scale_span with the
    // pointer at byte 8 of its by-value struct.
    const int n = 1 << 16;
    std::vector<float> a(n), a_after(n);
    for (int i = 0; i < n; ++i) {
      a[i] = 0.5f * static_cast<float>(i % 10);
      a_after[i] = a[i] + 1.0f;
    }
    std::vector<std::uint8_t> add_params(12, 0);
    put<int>(add_params, 8, n);
    write_launch(dir, m, "_Z7add_onePfi", {static_cast<std::uint32_t>(n / 256), 1, 1}, {256, 1, 1},
                 {{0, 0, 8}, {1, 8, 4}}, add_params, {{bytes_of(a), bytes_of(a_after)}});
    m.launches.back().allocations[0].memory = capture::MemoryKind::Managed;
    std::vector<float> d_after(n);
    for (int i = 0; i < n; ++i) d_after[i] = a_after[i] * 3.0f;
    capture::LaunchRecord l;
    l.index = 1;
    l.sequence = 0;
    l.kernel = "_Z10scale_span4Spanf";
    l.api = "synthetic";
    l.grid = {static_cast<std::uint32_t>(n / 256), 1, 1};
    l.block = {256, 1, 1};
    l.params = {{0, 0, 16}, {1, 16, 4}};
    l.param_buffer.assign(20, 0);
    const std::uint64_t address = 0x7f2000000000ULL;
    put<int>(l.param_buffer, 0, n);
    put<std::uint64_t>(l.param_buffer, 8, address);
    put<float>(l.param_buffer, 16, 3.0f);
    capture::AllocationRecord rec;
    rec.address = address;
    rec.bytes = static_cast<std::uint64_t>(n) * 4;
    rec.before_blob = capture::blob_name(1, 0, false);
    rec.after_blob = capture::blob_name(1, 0, true);
    auto before = bytes_of(a_after), after = bytes_of(d_after);
    capture::write_blob(dir, rec.before_blob, before.data(), before.size());
    capture::write_blob(dir, rec.after_blob, after.data(), after.size());
    rec.before_hash = capture::content_hash(before.data(), before.size());
    rec.after_hash = capture::content_hash(after.data(), after.size());
    rec.modified = true;
    l.allocations.push_back(rec);
    l.pointers.push_back({0, 8, 0, 0});
    m.launches.push_back(std::move(l));
  } else if (key == "gemm_beta") {
    const int n = sizes.gemm_n;
    std::vector<float> a(static_cast<std::size_t>(n) * n), b(a.size()), c(a.size()), after(a.size());
    for (int i = 0; i < n * n; ++i) {
      a[i] = 0.01f * static_cast<float>(i % 97) - 0.4f;
      b[i] = 0.02f * static_cast<float>(i % 89) - 0.8f;
      c[i] = 1.0f + 0.001f * static_cast<float>(i % 1013);
    }
    const float alpha = 1.5f, beta = 0.5f;
    for (int r = 0; r < n; ++r)
      for (int col = 0; col < n; ++col) {
        float v = c[r * n + col] * beta;  // the kernel's order (nvcc contracts to FFMA)
        for (int k = 0; k < n; ++k) v = std::fma(alpha * a[r * n + k], b[k * n + col], v);
        after[r * n + col] = v;
      }
    std::vector<std::uint8_t> params(36, 0);
    put<float>(params, 24, alpha);
    put<float>(params, 28, beta);
    put<int>(params, 32, n);
    const auto tiles = static_cast<std::uint32_t>(n / 16);
    write_launch(dir, m, "_Z9gemm_betaPKfS0_Pfffi", {tiles, tiles, 1}, {16, 16, 1},
                 {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}, {4, 28, 4}, {5, 32, 4}}, params,
                 {{bytes_of(a), bytes_of(a)}, {bytes_of(b), bytes_of(b)}, {bytes_of(c), bytes_of(after)}});
  } else if (key == "axpy_inplace" || key == "axpy_small") {
    const int n = key == "axpy_small" ? 1 << 20 : sizes.axpy_n;
    std::vector<float> x(static_cast<std::size_t>(n)), y(x.size()), after(x.size());
    for (int i = 0; i < n; ++i) {
      x[i] = 0.001f * static_cast<float>(i % 1000) - 0.5f;
      y[i] = 0.25f * static_cast<float>(i % 7);
      after[i] = std::fma(1.25f, x[i], y[i]);
    }
    std::vector<std::uint8_t> params(28, 0);
    put<float>(params, 0, 1.25f);
    put<int>(params, 24, n);
    write_launch(dir, m, "_Z4axpyfPKfPfi", {static_cast<std::uint32_t>((n + 255) / 256), 1, 1}, {256, 1, 1},
                 {{0, 0, 4}, {1, 8, 8}, {2, 16, 8}, {3, 24, 4}}, params,
                 {{bytes_of(x), bytes_of(x)}, {bytes_of(y), bytes_of(after)}}, {1, 2});
  } else if (key == "fp64") {
    const int n = sizes.fp64_n, rows = sizes.fp64_rows, cols = 1024;
    std::vector<double> x(static_cast<std::size_t>(n)), y(x.size()), out(x.size(), 0.0), out_after(x.size());
    const double alpha = 1.0 / 3.0;
    for (int i = 0; i < n; ++i) {
      x[i] = 0.001 * (i % 1000) - 0.5;
      y[i] = 0.25 * (i % 7) + 1e-3;
      out_after[i] = std::fma(alpha, x[i], y[i]);
    }
    std::vector<std::uint8_t> params(36, 0);
    put<double>(params, 24, alpha);
    put<int>(params, 32, n);
    write_launch(dir, m, "_Z10dscale_addPKdS0_Pddi", {static_cast<std::uint32_t>((n + 255) / 256), 1, 1},
                 {256, 1, 1}, {{0, 0, 8}, {1, 8, 8}, {2, 16, 8}, {3, 24, 8}, {4, 32, 4}}, params,
                 {{bytes_of(x), bytes_of(x)}, {bytes_of(y), bytes_of(y)}, {bytes_of(out), bytes_of(out_after)}});
    std::vector<double> in(static_cast<std::size_t>(rows) * cols), sums(static_cast<std::size_t>(rows), 0.0),
        sums_after(sums.size());
    unsigned state = 12345;
    for (auto& v : in) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<double>(state >> 8) / static_cast<double>(1u << 24) * 2.0 - 1.0;
    }
    for (int r = 0; r < rows; ++r) sums_after[r] = tree_row_sum(in.data() + static_cast<std::size_t>(r) * cols, cols);
    std::vector<std::uint8_t> rparams(20, 0);
    put<int>(rparams, 16, cols);
    write_launch(dir, m, "_Z8drow_sumPKdPdi", {static_cast<std::uint32_t>(rows), 1, 1}, {256, 1, 1},
                 {{0, 0, 8}, {1, 8, 8}, {2, 16, 4}}, rparams,
                 {{bytes_of(in), bytes_of(in)}, {bytes_of(sums), bytes_of(sums_after)}});
  } else {
    return false;
  }
  m.kernel_regex = key;
  capture::save_manifest(dir, m);
  return true;
}

}  // namespace warplens::verifier::gpu
