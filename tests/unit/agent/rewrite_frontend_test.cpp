// One front end: the rewrite engine parses a file exactly as the analysis
// does (the same compile_commands.json entry and its nvcc translation, the
// same toolkit, architecture and bundled headers). A file that needs -I and
// -D from its compile database parses for both, with the same command line,
// and without the database it parses for neither.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "agent/rewrite_engine.h"
#include "analysis/analyzer.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::agent;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// Needs -Iinclude (the header is not next to it) and -DSCALE (an #error otherwise).
const char* kKernel = R"(#include <wl_scale_params.h>
#ifndef SCALE
#error "build with -DSCALE"
#endif
__global__ void scale_rows(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * SCALE * kFactor;
}
void run(const float* in, float* out, int n) { scale_rows<<<(n + 127) / 128, 128>>>(in, out, n); }
)";

bool has_error(const std::vector<Finding>& findings) {
  for (const auto& f : findings)
    if (f.source == "clang" && f.severity == Severity::Error) return true;
  return false;
}

}  // namespace

TEST_CASE("rewrites and diagnostics parse with the same compile_commands.json entry: frontend") {
  REQUIRE(rewrite_engine_available());
  const fs::path root = fs::temp_directory_path() / "warplens-rewrite-frontend";
  fs::remove_all(root);
  const fs::path project = root / "project";
  write(project / "include" / "wl_scale_params.h", "#pragma once\nconstexpr float kFactor = 0.5f;\n");
  write(project / "src" / "scale.cu", kKernel);
  write(project / "compile_commands.json",
        R"([{"directory": ")" + project.string() +
            R"(", "command": "/usr/local/cuda/bin/nvcc -Iinclude -DSCALE=2 -arch=sm_90 -O3 -c src/scale.cu -o scale.o",
            "file": "src/scale.cu"}])");
  const SourceFile file{(project / "src" / "scale.cu").string(), kKernel};

  AnalysisOptions options;  // the database is found upward from the file, as clangd does
  AnalysisResult analysis = analyze(file, options);
  REQUIRE(analysis.parsed);
  CHECK_FALSE(has_error(analysis.findings));
  CHECK(analysis.toolchain.compile_command_source.find("compile_commands.json") != std::string::npos);

  EngineOptions engine;
  engine.analysis = options;
  KernelSurvey survey = survey_kernel(file, "scale_rows", engine, /*apply=*/true);
  REQUIRE_MESSAGE(survey.parsed, survey.error);
  CHECK(survey.error.empty());
  // The very same command line, flag for flag.
  CHECK(survey.toolchain.clang_args == analysis.toolchain.clang_args);
  CHECK(survey.toolchain.compile_command_source == analysis.toolchain.compile_command_source);
  bool translated_define = false, translated_include = false;
  for (const auto& a : survey.toolchain.clang_args) {
    translated_define |= a == "-DSCALE=2";
    translated_include |= a.find((project / "include").string()) != std::string::npos;
  }
  CHECK(translated_define);
  CHECK(translated_include);
  // And the rewrites work on it.
  bool block_size = false;
  for (const auto& o : survey.options) block_size |= o.step.rewrite == "block-size" && o.result && o.result->ok;
  CHECK(block_size);

  SUBCASE("the same file outside the project: neither parses it") {
    const fs::path alone = root / "alone" / "scale.cu";
    write(alone, kKernel);
    const SourceFile lonely{alone.string(), kKernel};
    AnalysisResult a = analyze(lonely, options);
    CHECK(has_error(a.findings));
    KernelSurvey s = survey_kernel(lonely, "scale_rows", engine, false);
    CHECK_FALSE(s.parsed);
    CHECK(s.error.find("does not compile") != std::string::npos);
  }
  SUBCASE("the workspace's settings reach the parse: compile_commands_dir") {
    // A database elsewhere, named explicitly (the editor's compile-commands setting).
    const fs::path elsewhere = root / "build-dir";
    fs::create_directories(elsewhere);
    fs::copy_file(project / "compile_commands.json", elsewhere / "compile_commands.json",
                  fs::copy_options::overwrite_existing);
    fs::remove(project / "compile_commands.json");
    EngineOptions e;
    e.analysis.compile_commands_dir = elsewhere.string();
    KernelSurvey s = survey_kernel(file, "scale_rows", e, false);
    CHECK_MESSAGE(s.parsed, s.error);
    AnalysisResult a = analyze(file, e.analysis);
    CHECK_FALSE(has_error(a.findings));
    CHECK(s.toolchain.clang_args == a.toolchain.clang_args);
  }
  fs::remove_all(root);
}

// Issue 21: the engine parses under the analysis' limits and walks on a
// stack as large as the parse's, so `optimize` does not die where the
// diagnostics did not (both died, or only it did, before).
TEST_CASE("the rewrite engine survives what the analysis survives: frontend") {
  REQUIRE(rewrite_engine_available());
  const std::string launch = "int main() { float* a; cudaMalloc(&a, 4); k<<<1, 1>>>(a); }\n";
  // A 100,000-term sum: Clang's parse is flat, the walks after it are not
  // (SIGSEGV on the 8 MiB of the optimize job's thread before).
  std::string sum = "__global__ void k(float* a) { a[threadIdx.x] = 1.0f";
  for (int i = 0; i < 100000; ++i) sum += " + 1.0f";
  sum += "; }\n" + launch;
  KernelSurvey big = survey_kernel({"/tmp/wl_engine_sum.cu", sum}, "k", {}, false);
  CHECK_MESSAGE(big.parsed, big.error);

  // 200,000 unary minus: refused with the analysis' own limit, not a crash.
  std::string unary = "__global__ void k(float* a) { a[0] = ";
  for (int i = 0; i < 200000; ++i) unary += "- ";
  unary += "1; }\n" + launch;
  KernelSurvey deep = survey_kernel({"/tmp/wl_engine_unary.cu", unary}, "k", {}, false);
  CHECK_FALSE(deep.parsed);
  CHECK_MESSAGE(deep.error.find("too large to analyse: nested too deeply for the parser") != std::string::npos,
                deep.error);
  ApplyResult applied = apply_rewrite({"/tmp/wl_engine_unary.cu", unary}, "k", {"restrict-const", {}}, {});
  CHECK_FALSE(applied.ok);
  CHECK_MESSAGE(applied.error.find("too large to analyse") != std::string::npos, applied.error);

  // Clang 19's endless typo correction (tests/fixtures/robustness/): an error, not a crash.
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/robustness/typo_launch_recursion.cu");
  std::string typo((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(typo.empty());
  KernelSurvey t = survey_kernel({"/tmp/wl_engine_typo.cu", typo}, "gather", {}, false);
  CHECK_FALSE(t.parsed);
  CHECK_MESSAGE(t.error.find("does not compile") != std::string::npos, t.error);

  // Clang crashing (its own trap): an error for this kernel, and the engine goes on.
  const std::string crash = "#pragma clang __debug crash\n__global__ void k(float* a) { a[0] = 1; }\n" + launch;
  KernelSurvey c = survey_kernel({"/tmp/wl_engine_crash.cu", crash}, "k", {}, false);
  CHECK_FALSE(c.parsed);
  CHECK_MESSAGE(c.error.find("crashed") != std::string::npos, c.error);
  KernelSurvey after = survey_kernel({"/tmp/wl_engine_after.cu", sum}, "k", {}, false);
  CHECK_MESSAGE(after.parsed, after.error);
}
