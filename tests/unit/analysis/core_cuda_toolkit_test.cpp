// Toolkit discovery, architecture clamping, bundled data lookup.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "analysis/cuda_toolkit.h"

using namespace warplens;
namespace fs = std::filesystem;

namespace {
fs::path fake_toolkit(const std::string& name, int version) {
  fs::path root = fs::temp_directory_path() / ("warplens_tk_" + name);
  fs::remove_all(root);
  fs::create_directories(root / "include");
  fs::create_directories(root / "bin");
  std::ofstream(root / "include" / "cuda_runtime.h") << "\n";
  std::ofstream(root / "include" / "cuda.h") << "#pragma once\n#define CUDA_VERSION " << version << "\n";
  std::ofstream(root / "bin" / "nvcc") << "#!/bin/sh\n";
  return root;
}
}  // namespace

TEST_CASE("the toolkit is searched in a fixed order") {
  fs::path a = fake_toolkit("a", 12040), b = fake_toolkit("b", 13000);
  ToolkitSearchEnvironment env;
  env.default_roots = {b.string()};

  SUBCASE("default location") {
    auto tk = locate_cuda_toolkit("", env);
    REQUIRE(tk.found);
    CHECK(tk.path == b.string());
    CHECK(tk.version == "13.0");
    CHECK(tk.found_via == "default location");
  }
  SUBCASE("nvcc on PATH beats the default") {
    env.path_variable = "/nonexistent/bin:" + (a / "bin").string();
    auto tk = locate_cuda_toolkit("", env);
    CHECK(tk.path == a.string());
    CHECK(tk.version == "12.4");
    CHECK(tk.found_via == "nvcc on PATH");
  }
  SUBCASE("CUDA_PATH beats PATH") {
    env.path_variable = (a / "bin").string();
    env.cuda_path_variable = b.string();
    CHECK(locate_cuda_toolkit("", env).found_via == "CUDA_PATH");
  }
  SUBCASE("an explicit setting is the only candidate") {
    auto tk = locate_cuda_toolkit(a.string(), env);
    CHECK(tk.found_via == "setting");
    auto none = locate_cuda_toolkit("/nonexistent", env);
    CHECK_FALSE(none.found);
    REQUIRE(none.searched.size() == 1);
    CHECK(none.searched[0] == "/nonexistent (setting)");
  }
  SUBCASE("nothing anywhere") {
    env.default_roots = {"/nonexistent"};
    auto tk = locate_cuda_toolkit("", env);
    CHECK_FALSE(tk.found);
    CHECK(tk.searched.size() == 1);
  }
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST_CASE("clang's target SDK version is capped at 12.5") {
  CudaToolkit tk;
  CHECK(clang_target_sdk_version(tk) == "");
  tk.found = true;
  CHECK(clang_target_sdk_version(tk) == "12.5");  // unknown version
  tk.version = "13.0", tk.version_major = 13, tk.version_minor = 0;
  CHECK(clang_target_sdk_version(tk) == "12.5");
  tk.version = "11.8", tk.version_major = 11, tk.version_minor = 8;
  CHECK(clang_target_sdk_version(tk) == "11.8");
}

TEST_CASE("architectures are normalised and clamped to what clang 19 parses") {
  CHECK(normalize_gpu_arch("compute_80") == "sm_80");
  CHECK(normalize_gpu_arch("90a") == "sm_90a");
  CHECK(normalize_gpu_arch("lto_89") == "sm_89");
  CHECK(normalize_gpu_arch("native") == "");
  CHECK(gpu_arch_number("sm_100a") == 100);

  auto same = choose_parse_arch("sm_80");
  CHECK(same.parse == "sm_80");
  CHECK_FALSE(same.clamped);
  CHECK(choose_parse_arch("sm_90a").parse == "sm_90a");

  auto blackwell = choose_parse_arch("sm_100");
  CHECK(blackwell.parse == "sm_90");
  CHECK(blackwell.clamped);
  CHECK(blackwell.reason.find("Clang 19") != std::string::npos);
  CHECK(choose_parse_arch("sm_120a").parse == "sm_90");
  CHECK(choose_parse_arch("sm_88").parse == "sm_87");
  auto junk = choose_parse_arch("gfx90a");
  CHECK(junk.parse == "sm_90");
  CHECK(junk.clamped);
}

TEST_CASE("a multi-target build is analysed for the highest parseable architecture") {
  CHECK(pick_gpu_arch({"sm_70", "sm_90", "sm_80"}) == "sm_90");
  CHECK(pick_gpu_arch({"sm_90", "sm_90a"}) == "sm_90a");
  CHECK(pick_gpu_arch({"sm_80", "sm_100"}) == "sm_80");
  CHECK(pick_gpu_arch({"sm_100", "sm_120"}) == "sm_120");
  CHECK(pick_gpu_arch({}) == "");
}

TEST_CASE("bundled headers are found next to the binary, overridable") {
  std::string dir = find_data_dir();
  REQUIRE_FALSE(dir.empty());
  CHECK(fs::exists(fs::path(cuda13_shim_dir(dir)) / "texture_fetch_functions.h"));
  CHECK(fs::exists(no_toolkit_prelude(dir)));
  CHECK(fs::exists(fs::path(no_toolkit_include_dir(dir)) / "cuda_runtime.h"));
  CHECK(fs::exists(nvcc_compat_header(dir)));
  CHECK(dir == (fs::path(WARPLENS_BINARY_DIR) / "share" / "warplens").lexically_normal().string());
  ::setenv("WARPLENS_DATA_DIR", (fs::path(WARPLENS_SOURCE_DIR) / "analysis" / "prelude").c_str(), 1);
  CHECK(find_data_dir() == (fs::path(WARPLENS_SOURCE_DIR) / "analysis" / "prelude").lexically_normal().string());
  ::unsetenv("WARPLENS_DATA_DIR");
}
