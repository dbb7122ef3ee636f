// Synthetic captures of the verifier case programs' launches, written with
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
};

// Keys: scale_add, scale_add_x2, transpose, row_sum, memory_kinds. False
// for any other key.
bool write_synthetic_capture(const std::string& key, const std::filesystem::path& dir,
                             const SyntheticSizes& sizes = {});

}  // namespace warplens::verifier::gpu
