// Synthetic captures (benchmark and test inputs) of the verifier case programs' launches, written with
// the capture_format API from the same data the programs use (smaller sizes
// on request). The GPU suite falls back to them when capturing through the
// injection library fails (reported, never silent); the CI tests on the
// fake driver use them at small sizes.
#pragma once

#include <filesystem>
#include <string>

namespace warplens::verifier::gpu {

struct SyntheticSizes {
  int scale_n = 1 << 20;       // scale_add elements (the programs' size)
  int transpose_dim = 2048;    // multiple of 32
  int row_sum_rows = 4096;
  int gemm_n = 512;            // multiple of 16
  int axpy_n = 1 << 25;        // 128 MB per buffer
  int fp64_n = 1 << 20;
  int fp64_rows = 2048;
};

// Keys: scale_add, scale_add_x2, transpose, row_sum, memory_kinds,
// gemm_beta, axpy_inplace (axpy_small: 1M elements), fp64 (dscale_add, then
// drow_sum). False for any other key.
bool write_synthetic_capture(const std::string& key, const std::filesystem::path& dir,
                             const SyntheticSizes& sizes = {});

}  // namespace warplens::verifier::gpu
