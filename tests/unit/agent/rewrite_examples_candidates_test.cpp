// `--candidates-only` on every example of examples/optimize/: the candidate
// directory the engine writes reads back to the same candidates, and every
// candidate compiles with the real nvcc (host and device code, -arch=sm_90).
// Which rewrites each example (and every other style of the same
// computations) must receive is the style corpus' check
// (tests/unit/agent/style_corpus/corpus.txt, one ctest per entry).
// Skipped (needs("build-nvcc"), tests/support/requirements.h) when the build
// found no nvcc.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "agent/candidate_store.h"
#include "agent/search.h"
#include "tests/support/requirements.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::agent;
using warplens::test::needs;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Example {
  const char* file;
  const char* kernel;
};

const Example kExamples[] = {
    {"transpose_naive", "transpose_naive"},     {"strided_copy", "scale_copy_chunked"},
    {"bank_conflict_tile", "transpose_tiled"},  {"interleaved_reduction", "reduce_interleaved"},
    {"matmul_naive_rowx", "matmul_naive_rowx"}, {"matmul_naive_colx", "matmul_naive_colx"},
    {"elementwise_chain", "bias_relu"},         {"aos_update", "update_particles"},
    {"register_heavy", "invert4x4"},            {"matvec_row_per_thread", "matvec_rows"},
};

// The nvcc the build found (CUDAToolkit_NVCC_EXECUTABLE): the compile check's compiler.
WARPLENS_REQUIREMENT("build-nvcc", [] {
  return std::string(WARPLENS_NVCC).empty() ? warplens::test::missing("the build found no nvcc (CUDAToolkit_NVCC_EXECUTABLE)")
                                            : warplens::test::met();
});

const Example& example(const std::string& file) {
  for (const Example& e : kExamples)
    if (file == e.file) return e;
  throw std::runtime_error("no example " + file);
}

// Each example gets candidates that compile with nvcc.
void check_example(const Example& e) {
  REQUIRE(rewrite_engine_available());
  const fs::path examples = fs::path(WARPLENS_SOURCE_DIR) / "examples" / "optimize";
  const std::string nvcc = WARPLENS_NVCC;
  const fs::path dir = fs::temp_directory_path() / "warplens-example-candidates";
  {
    INFO("example " << std::string(e.file));
    const fs::path file = examples / (std::string(e.file) + ".cu");
    SearchOptions opts;
    opts.max_candidates = 4;
    opts.max_expansions = 4;
    OfflineSearch s = generate_candidates({file.string(), read(file)}, e.kernel, {}, std::nullopt, opts);
    REQUIRE_MESSAGE(s.error.empty(), s.error);
    REQUIRE_FALSE(s.candidates.empty());
    CandidateSet set;
    set.dir = dir / e.file;
    fs::remove_all(set.dir);
    set.name = e.file;
    set.kernel = e.kernel;
    set.original_text = read(file);
    set.include_dirs = {examples.string()};
    set.candidates = s.candidates;
    std::string error;
    REQUIRE_MESSAGE(write_candidate_set(set, error), error);
    // Round trip: the directory reads back to the same sources and plans.
    auto back = read_candidate_set(set.dir, error);
    REQUIRE_MESSAGE(back, error);
    REQUIRE(back->candidates.size() == s.candidates.size());
    for (std::size_t i = 0; i < s.candidates.size(); ++i) {
      CHECK(back->candidates[i].source == s.candidates[i].source);
      CHECK(back->candidates[i].plan == s.candidates[i].plan);
      CHECK(back->candidates[i].launch_changes == s.candidates[i].launch_changes);
      CHECK(back->candidates[i].reassociation == s.candidates[i].reassociation);
    }
    for (const auto& c : s.candidates) {
      const fs::path src = set.dir / (c.id + ".cu");
      const fs::path log = set.dir / (c.id + ".log");
      const std::string cmd = nvcc + " -std=c++17 -O1 -arch=sm_90 -c -o /dev/null -I" + examples.string() + " " +
                              src.string() + " > " + log.string() + " 2>&1";
      const int rc = std::system(cmd.c_str());
      CHECK_MESSAGE(rc == 0, c.id << " (" << to_string(c.plan) << ") does not compile:\n" << read(log));
    }
  }
}

}  // namespace

TEST_CASE("example candidates compile: transpose_naive" * needs("build-nvcc")) { check_example(example("transpose_naive")); }
TEST_CASE("example candidates compile: strided_copy" * needs("build-nvcc")) { check_example(example("strided_copy")); }
TEST_CASE("example candidates compile: bank_conflict_tile" * needs("build-nvcc")) { check_example(example("bank_conflict_tile")); }
TEST_CASE("example candidates compile: interleaved_reduction" * needs("build-nvcc")) { check_example(example("interleaved_reduction")); }
TEST_CASE("example candidates compile: matmul_naive_rowx" * needs("build-nvcc")) { check_example(example("matmul_naive_rowx")); }
TEST_CASE("example candidates compile: matmul_naive_colx" * needs("build-nvcc")) { check_example(example("matmul_naive_colx")); }
TEST_CASE("example candidates compile: elementwise_chain" * needs("build-nvcc")) { check_example(example("elementwise_chain")); }
TEST_CASE("example candidates compile: aos_update" * needs("build-nvcc")) { check_example(example("aos_update")); }
TEST_CASE("example candidates compile: register_heavy" * needs("build-nvcc")) { check_example(example("register_heavy")); }
TEST_CASE("example candidates compile: matvec_row_per_thread" * needs("build-nvcc")) { check_example(example("matvec_row_per_thread")); }
