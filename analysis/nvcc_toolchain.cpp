#include "analysis/nvcc_toolchain.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "analysis/driver_policy.h"
#include "analysis/gpu_catalog.h"
#include "common/subprocess.h"

namespace warplens {

namespace {

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string dirname_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::optional<std::string> nvcc_on_path() {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/nvcc";
    if (is_executable(candidate)) {
      char resolved[4096];
      if (::realpath(candidate.c_str(), resolved)) return std::string(resolved);
      return candidate;
    }
  }
  return std::nullopt;
}

std::optional<NvccToolchain> probe(const std::string& root, std::string& error) {
  NvccToolchain t;
  t.root = root;
  t.nvcc = root + "/bin/nvcc";
  if (!is_executable(t.nvcc)) {
    error = t.nvcc + " does not exist or is not executable";
    return std::nullopt;
  }
  ProcessSpec req;
  req.capture_output = true;
  req.kill_grace = std::chrono::milliseconds(500);
  req.argv = {t.nvcc, "--version"};
  req.timeout = std::chrono::seconds(20);
  ProcessResult v = run_process(req);
  if (!v.succeeded()) {
    error = t.nvcc + " --version failed" + (v.start_error.empty() ? "" : ": " + v.start_error);
    return std::nullopt;
  }
  std::stringstream lines(v.out);
  std::string line;
  while (std::getline(lines, line)) {
    auto rel = line.find("release ");
    if (rel == std::string::npos) continue;
    t.version_line = line;
    auto start = rel + 8;
    auto end = line.find(',', start);
    t.version = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  req.argv = {t.nvcc, "--list-gpu-code"};
  ProcessResult codes = run_process(req);
  if (codes.succeeded()) {
    std::stringstream ss(codes.out);
    while (std::getline(ss, line))
      if (line.rfind("sm_", 0) == 0) t.supported_archs.push_back(line);
  }
  return t;
}

}  // namespace

NvccLookup find_nvcc(const std::string& cuda_path, const std::vector<std::string>& allowed_drivers) {
  static std::mutex mu;
  static std::map<std::pair<std::string, std::vector<std::string>>, NvccLookup> cache;
  std::lock_guard lock(mu);
  auto key = std::make_pair(cuda_path, allowed_drivers);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;

  NvccLookup lookup;
  std::vector<std::string> roots;
  if (!cuda_path.empty()) {
    // An explicit setting is the user's choice: a wrong one is an error to
    // report, not a reason to silently use another toolkit. But it may come
    // from the workspace: its nvcc runs only when the policy allows it.
    DriverCheck check = check_driver(cuda_path + "/bin/nvcc", "/", allowed_drivers);
    if (!check.allowed && is_executable(cuda_path + "/bin/nvcc")) {
      lookup.refused = true;
      lookup.searched.push_back(cuda_path);
      lookup.error = "cudaPath " + cuda_path + ": warplens does not run " + cuda_path +
                     "/bin/nvcc: " + check.reason + " (add it to warplens.allowedDrivers to allow it)";
      cache[key] = lookup;
      return lookup;
    }
    roots.push_back(cuda_path);
  } else {
    for (const char* env : {"CUDA_PATH", "CUDA_HOME"})
      if (const char* v = std::getenv(env); v && *v) roots.emplace_back(v);
    if (auto nvcc = nvcc_on_path()) roots.push_back(dirname_of(dirname_of(*nvcc)));
    roots.emplace_back("/usr/local/cuda");
  }
  std::string last_error;
  for (const auto& root : roots) {
    if (std::find(lookup.searched.begin(), lookup.searched.end(), root) != lookup.searched.end()) continue;
    lookup.searched.push_back(root);
    if (auto t = probe(root, last_error)) {
      lookup.toolchain = std::move(t);
      break;
    }
  }
  if (!lookup.toolchain) lookup.error = last_error;
  cache[key] = lookup;
  return lookup;
}

std::string choose_compile_arch(const NvccToolchain& t, const std::string& requested, std::string* note) {
  auto want = parse_arch(requested);
  if (!want) {
    if (note) *note = "unknown architecture '" + requested + "'";
    return {};
  }
  if (t.supported_archs.empty()) return requested;  // nvcc could not list: let it decide
  std::string base = arch_name(*want);
  if (std::find(t.supported_archs.begin(), t.supported_archs.end(), base) != t.supported_archs.end())
    return requested;
  std::optional<ComputeCapability> best_newer, newest;
  for (const auto& a : t.supported_archs) {
    auto cc = parse_arch(a);
    if (!cc) continue;
    if (*cc > *want && (!best_newer || *cc < *best_newer)) best_newer = cc;
    if (!newest || *cc > *newest) newest = cc;
  }
  auto pick = best_newer ? best_newer : newest;
  if (!pick) return {};
  std::string chosen = arch_name(*pick);
  if (note)
    *note = "CUDA " + t.version + "'s nvcc cannot compile for " + requested + "; registers and shared memory are from " +
            chosen + " (occupancy still uses " + requested + "'s limits)";
  return chosen;
}

namespace {

// Flags that take a value, in "-X value", "-Xvalue" or "--long=value" form.
struct FlagSpec {
  const char* name;
  bool takes_value;
  bool keep;
};

const FlagSpec kFlags[] = {
    // Kept: they change what the device code is.
    {"-I", true, true}, {"--include-path", true, true}, {"-isystem", true, true},
    {"--system-include", true, true}, {"-D", true, true}, {"--define-macro", true, true},
    {"-U", true, true}, {"--undefine-macro", true, true}, {"-include", true, true},
    {"--pre-include", true, true}, {"-std", true, true}, {"--std", true, true},
    {"-maxrregcount", true, true}, {"--maxrregcount", true, true}, {"-Xptxas", true, true},
    {"--ptxas-options", true, true}, {"-ccbin", true, true}, {"--compiler-bindir", true, true},
    {"-Xcompiler", true, true}, {"--compiler-options", true, true}, {"-Xcudafe", true, true},
    {"-default-stream", true, true}, {"--default-stream", true, true}, {"-ftz", true, true},
    {"--ftz", true, true}, {"-prec-div", true, true}, {"--prec-div", true, true},
    {"-prec-sqrt", true, true}, {"--prec-sqrt", true, true}, {"-fmad", true, true},
    {"--fmad", true, true}, {"-rdc", true, true}, {"--relocatable-device-code", true, true},
    {"-use_fast_math", false, true}, {"--use_fast_math", false, true}, {"-extended-lambda", false, true},
    {"--extended-lambda", false, true}, {"--expt-extended-lambda", false, true},
    {"-expt-relaxed-constexpr", false, true}, {"--expt-relaxed-constexpr", false, true},
    {"-dc", false, true}, {"--device-c", false, true},
    // Dropped, with their values.
    {"-o", true, false}, {"--output-file", true, false}, {"-arch", true, false},
    {"--gpu-architecture", true, false}, {"-gencode", true, false}, {"--generate-code", true, false},
    {"-code", true, false}, {"--gpu-code", true, false}, {"-MF", true, false}, {"-MT", true, false},
    {"-MQ", true, false}, {"-x", true, false}, {"--cuda-gpu-arch", true, false},
    {"--cuda-path", true, false}, {"--offload-arch", true, false}, {"-Xclang", true, false},
    {"-Xarch_device", true, false}, {"-Xarch_host", true, false},
    {"--diag-suppress", true, false}, {"-diag-suppress", true, false}, {"-t", true, false},
    {"--threads", true, false}, {"-L", true, false}, {"-l", true, false},
};

// Matches "-I dir", "-Idir", "-std=c++17", "--include-path=dir": exact name,
// name + "=" + value, or a glued value after a short (2-character) name or
// -isystem/-include. The longest matching name wins.
const FlagSpec* find_flag(const std::string& arg, std::string* inline_value) {
  const FlagSpec* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& f : kFlags) {
    std::string name = f.name;
    if (arg == name) {
      inline_value->clear();
      return &f;
    }
    if (!f.takes_value || name.size() <= best_len || arg.rfind(name, 0) != 0) continue;
    bool glued_ok = name.size() == 2 || name == "-isystem" || name == "-include";
    if (arg[name.size()] == '=') {
      *inline_value = arg.substr(name.size() + 1);
    } else if (glued_ok) {
      *inline_value = arg.substr(name.size());
    } else {
      continue;
    }
    best = &f;
    best_len = name.size();
  }
  return best;
}

}  // namespace

NvccFlags nvcc_flags_from_command(const std::vector<std::string>& argv) {
  NvccFlags flags;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (i == 0 && !a.empty() && a[0] != '-') continue;  // the compiler
    if (a.empty() || a[0] != '-') {
      flags.dropped.push_back(a);  // an input file
      continue;
    }
    std::string value;
    const FlagSpec* f = find_flag(a, &value);
    if (!f) {
      flags.dropped.push_back(a);
      continue;
    }
    std::vector<std::string> group = {a};
    if (f->takes_value && value.empty() && a == f->name && i + 1 < argv.size()) {
      value = argv[++i];
      group.push_back(value);
    }
    std::string name = f->name;
    if (!f->keep) {
      flags.dropped.insert(flags.dropped.end(), group.begin(), group.end());
      continue;
    }
    if (name == "-dc" || name == "--device-c") {
      flags.relocatable = true;
      continue;  // we add -rdc=true ourselves
    }
    if (name == "-rdc" || name == "--relocatable-device-code") {
      flags.relocatable = value == "true" || value == "1";
      continue;
    }
    flags.args.insert(flags.args.end(), group.begin(), group.end());
  }
  return flags;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                   "0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') out += "'\\''";
      else out += c;
    }
    out += '\'';
  }
  return out;
}

}  // namespace warplens
