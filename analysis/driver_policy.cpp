#include "analysis/driver_policy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace warplens {

namespace fs = std::filesystem;

namespace {

std::string real(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::canonical(p, ec);
  return ec ? std::string() : r.string();
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// PATH's absolute entries: a relative one ("." or "bin") would make the
// workspace's own files "on PATH".
std::vector<std::string> path_dirs() {
  std::vector<std::string> out;
  const char* path = std::getenv("PATH");
  if (!path) return out;
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && dir[0] == '/') out.push_back(dir);
  return out;
}

// bin/ of the toolkits the environment names.
std::vector<std::string> toolkit_bin_dirs() {
  std::vector<std::string> roots;
  for (const char* env : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* v = std::getenv(env); v && *v == '/') roots.emplace_back(v);
  for (const auto& d : path_dirs())
    if (is_executable_file(d + "/nvcc"))
      if (std::string r = real(fs::path(d) / "nvcc"); !r.empty()) roots.push_back(fs::path(r).parent_path().parent_path().string());
  roots.emplace_back("/usr/local/cuda");
  std::vector<std::string> out;
  for (const auto& r : roots)
    if (std::string bin = real(fs::path(r) / "bin"); !bin.empty()) out.push_back(bin);
  return out;
}

bool under(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

}  // namespace

bool glob_matches(std::string_view glob, std::string_view path) {
  // Dynamic programming over (glob position, path position): globs and
  // paths are short, and no input can make it exponential.
  const std::size_t n = path.size();
  std::vector<char> row(n + 1, 0), next(n + 1, 0);
  row[0] = 1;  // the empty prefix of the glob matches the empty prefix of the path
  for (std::size_t g = 0; g < glob.size();) {
    std::fill(next.begin(), next.end(), 0);
    if (glob[g] == '*') {
      const bool any = g + 1 < glob.size() && glob[g + 1] == '*';
      for (std::size_t p = 0; p <= n; ++p) {
        if (!row[p]) continue;
        next[p] = 1;
        for (std::size_t q = p; q < n && (any || path[q] != '/'); ++q) next[q + 1] = 1;
      }
      g += any ? 2 : 1;
    } else {
      for (std::size_t p = 0; p < n; ++p)
        if (row[p] && (glob[g] == path[p] || (glob[g] == '?' && path[p] != '/'))) next[p + 1] = 1;
      ++g;
    }
    row.swap(next);
  }
  return row[n] != 0;
}

bool is_program_loading_host_flag(std::string_view flag) {
  for (std::string_view f : {"-B", "-fplugin", "-specs", "--specs", "-wrapper", "--plugin", "-fpass-plugin",
                             "-iplugindir", "-Xclang", "-load", "--ld-path", "-fuse-ld"})
    if (flag == f || (flag.size() > f.size() && flag.substr(0, f.size()) == f &&
                      (flag[f.size()] == '=' || f == "-B")))
      return true;
  return false;
}

DriverCheck check_driver(const std::string& program, const std::string& directory,
                         const std::vector<std::string>& allowed_globs) {
  DriverCheck out;
  if (program.empty()) {
    out.reason = "an empty program name";
    return out;
  }
  const std::vector<std::string> path = path_dirs();
  // A bare name is looked up on PATH by whoever runs it.
  fs::path written;
  if (program.find('/') == std::string::npos) {
    for (const auto& d : path)
      if (is_executable_file(d + "/" + program)) {
        written = fs::path(d) / program;
        break;
      }
    if (written.empty()) {
      out.reason = "`" + program + "` is not on PATH";
      return out;
    }
  } else {
    written = fs::path(program).is_absolute() ? fs::path(program) : fs::path(directory) / program;
  }
  written = written.lexically_normal();
  out.resolved = real(written);
  const std::string& resolved = out.resolved;

  for (const auto& g : allowed_globs)
    if (glob_matches(g, written.string()) || (!resolved.empty() && glob_matches(g, resolved))) {
      out.allowed = true;
      return out;
    }
  if (resolved.empty()) {
    out.reason = "`" + written.string() + "` does not exist";
    return out;
  }
  std::error_code ec;
  const bool is_dir = fs::is_directory(resolved, ec);
  for (const auto& d : path) {
    if (is_dir ? real(d) == resolved : real(fs::path(d) / written.filename()) == resolved) {
      out.allowed = true;
      return out;
    }
  }
  for (const auto& bin : toolkit_bin_dirs())
    if (is_dir ? resolved == bin : under(resolved, bin)) {
      out.allowed = true;
      return out;
    }
  out.reason = "`" + written.string() + "` is neither on PATH nor in the CUDA toolkit, and no warplens.allowedDrivers "
               "glob allows it";
  return out;
}

}  // namespace warplens
