#include "analysis/cuda_toolkit.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace warplens {

namespace {

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool is_toolkit_root(const fs::path& root) { return path_exists(root / "include" / "cuda_runtime.h"); }

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

CudaToolkit describe(const fs::path& root, std::string via, std::vector<std::string> searched) {
  CudaToolkit tk;
  tk.found = true;
  tk.path = root.lexically_normal().string();
  if (tk.path.size() > 1 && tk.path.back() == '/') tk.path.pop_back();
  tk.found_via = std::move(via);
  tk.searched = std::move(searched);
  if (auto v = read_cuda_version(tk.path)) {
    tk.version_major = v->first;
    tk.version_minor = v->second;
    tk.version = std::to_string(v->first) + "." + std::to_string(v->second);
  }
  tk.has_cccl_dir = path_exists(root / "include" / "cccl");
  tk.has_texture_fetch_header = path_exists(root / "include" / "texture_fetch_functions.h");
  return tk;
}

// Clang 19's OffloadArch list for NVPTX (clang/Basic/Cuda.h).
constexpr std::array<const char*, 21> kClang19Archs = {
    "sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61",
    "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};

bool clang_knows(const std::string& arch) {
  return std::find(kClang19Archs.begin(), kClang19Archs.end(), arch) != kClang19Archs.end();
}

fs::path executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path();
}

bool is_data_dir(const fs::path& dir) {
  return !dir.empty() && path_exists(dir / "cuda13-shim" / "texture_fetch_functions.h") &&
         path_exists(dir / "no-toolkit" / "cuda_prelude.h") && path_exists(dir / "nvcc-compat" / "nvcc_compat.h");
}

}  // namespace

ToolkitSearchEnvironment ToolkitSearchEnvironment::from_process() {
  ToolkitSearchEnvironment env;
  env.cuda_path_variable = env_or_empty("CUDA_PATH");
  env.path_variable = env_or_empty("PATH");
  env.default_roots = {"/usr/local/cuda"};
  return env;
}

CudaToolkit locate_cuda_toolkit(const std::string& setting) {
  return locate_cuda_toolkit(setting, ToolkitSearchEnvironment::from_process());
}

CudaToolkit locate_cuda_toolkit(const std::string& setting, const ToolkitSearchEnvironment& env) {
  std::vector<std::string> searched;
  auto try_root = [&](const fs::path& root, const char* via) -> std::optional<CudaToolkit> {
    searched.push_back(root.string() + " (" + via + ")");
    if (is_toolkit_root(root)) return describe(root, via, searched);
    return std::nullopt;
  };

  if (!setting.empty()) {
    if (auto tk = try_root(setting, "setting")) return *tk;
    CudaToolkit none;
    none.searched = searched;
    return none;
  }
  if (!env.cuda_path_variable.empty())
    if (auto tk = try_root(env.cuda_path_variable, "CUDA_PATH")) return *tk;

  std::stringstream path_list(env.path_variable);
  for (std::string dir; std::getline(path_list, dir, ':');) {
    if (dir.empty()) continue;
    fs::path nvcc = fs::path(dir) / "nvcc";
    if (!path_exists(nvcc)) continue;
    std::error_code ec;
    fs::path real = fs::canonical(nvcc, ec);
    if (ec) real = nvcc;
    if (auto tk = try_root(real.parent_path().parent_path(), "nvcc on PATH")) return *tk;
  }
  for (const auto& root : env.default_roots)
    if (auto tk = try_root(root, "default location")) return *tk;

  CudaToolkit none;
  none.searched = searched;
  return none;
}

std::optional<std::pair<int, int>> read_cuda_version(const std::string& root) {
  for (const char* header : {"include/cuda.h", "include/cuda_runtime_api.h"}) {
    std::ifstream in(fs::path(root) / header);
    if (!in) continue;
    static const std::regex define(R"(^\s*#\s*define\s+(CUDA_VERSION|CUDART_VERSION)\s+(\d+))");
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, define)) {
        int v = std::stoi(m[2].str());
        return std::make_pair(v / 1000, (v % 1000) / 10);
      }
    }
  }
  return std::nullopt;
}

std::string clang_target_sdk_version(const CudaToolkit& toolkit) {
  if (!toolkit.found) return "";
  if (toolkit.version.empty()) return "12.5";  // unknown: a wheel-style install is new
  if (toolkit.version_major > 12 || (toolkit.version_major == 12 && toolkit.version_minor >= 5))
    return "12.5";
  return toolkit.version;
}

std::string normalize_gpu_arch(const std::string& spelling) {
  static const std::regex arch(R"(^(?:sm_|compute_|lto_)?(\d{2,3})([a-z]?)$)");
  std::smatch m;
  if (!std::regex_match(spelling, m, arch)) return "";
  return "sm_" + m[1].str() + m[2].str();
}

int gpu_arch_number(const std::string& arch) {
  std::string n = normalize_gpu_arch(arch);
  if (n.empty()) return -1;
  size_t digits_end = 3;
  while (digits_end < n.size() && std::isdigit(static_cast<unsigned char>(n[digits_end]))) ++digits_end;
  return std::stoi(n.substr(3, digits_end - 3));
}

ParseArch choose_parse_arch(const std::string& requested) {
  ParseArch r;
  std::string arch = normalize_gpu_arch(requested);
  r.requested = arch.empty() ? requested : arch;
  if (arch.empty()) {
    r.parse = "sm_90";
    r.clamped = true;
    r.reason = "'" + requested + "' is not a GPU architecture; parsing for sm_90";
    return r;
  }
  if (clang_knows(arch)) {
    r.parse = arch;
    return r;
  }
  int n = gpu_arch_number(arch);
  if (n > 90) {
    r.parse = "sm_90";
    r.reason = arch + " is newer than Clang 19 can parse (its newest is sm_90a); the device code is "
                      "parsed for sm_90, so `__CUDA_ARCH__` >= " +
               std::to_string(n * 10) + " branches are not seen";
  } else {
    // Round down to the nearest architecture Clang knows (e.g. sm_88 -> sm_87).
    std::string best = "sm_20";
    for (const char* known : kClang19Archs)
      if (gpu_arch_number(known) <= n && known[std::string(known).size() - 1] != 'a') best = known;
    r.parse = best;
    r.reason = arch + " is unknown to Clang 19; parsing for " + best;
  }
  r.clamped = true;
  return r;
}

std::string pick_gpu_arch(const std::vector<std::string>& archs) {
  std::string best_known, best_any;
  auto better = [](const std::string& a, const std::string& b) {
    // Higher number wins; at equal numbers the arch-specific "a" variant wins.
    int na = gpu_arch_number(a), nb = gpu_arch_number(b);
    return na != nb ? na > nb : a.size() > b.size();
  };
  for (const auto& spelled : archs) {
    std::string a = normalize_gpu_arch(spelled);
    if (a.empty()) continue;
    if (best_any.empty() || better(a, best_any)) best_any = a;
    if (clang_knows(a) && (best_known.empty() || better(a, best_known))) best_known = a;
  }
  return best_known.empty() ? best_any : best_known;
}

std::string find_data_dir() {
  std::vector<fs::path> candidates;
  if (auto env = env_or_empty("WARPLENS_DATA_DIR"); !env.empty()) candidates.emplace_back(env);
  if (auto exe = executable_dir(); !exe.empty()) candidates.push_back(exe.parent_path() / "share" / "warplens");
#ifdef WARPLENS_BUILD_DATA_DIR
  candidates.emplace_back(WARPLENS_BUILD_DATA_DIR);
#endif
#ifdef WARPLENS_SOURCE_DATA_DIR
  candidates.emplace_back(WARPLENS_SOURCE_DATA_DIR);
#endif
  for (const auto& dir : candidates)
    if (is_data_dir(dir)) return dir.lexically_normal().string();
  return "";
}

std::string cuda13_shim_dir(const std::string& data_dir) {
  return data_dir.empty() ? "" : (fs::path(data_dir) / "cuda13-shim").string();
}
std::string nvcc_compat_header(const std::string& data_dir) {
  return data_dir.empty() ? "" : (fs::path(data_dir) / "nvcc-compat" / "nvcc_compat.h").string();
}
std::string openmp_shim_dir(const std::string& data_dir) {
  return data_dir.empty() ? "" : (fs::path(data_dir) / "openmp").string();
}
std::string no_toolkit_include_dir(const std::string& data_dir) {
  return data_dir.empty() ? "" : (fs::path(data_dir) / "no-toolkit" / "include").string();
}
std::string no_toolkit_prelude(const std::string& data_dir) {
  return data_dir.empty() ? "" : (fs::path(data_dir) / "no-toolkit" / "cuda_prelude.h").string();
}

}  // namespace warplens
