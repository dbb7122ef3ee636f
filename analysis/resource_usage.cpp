#include "analysis/resource_usage.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/driver_policy.h"
#include "analysis/gpu_catalog.h"
#include "analysis/nvcc_toolchain.h"
#include "common/subprocess.h"

namespace warplens {

namespace fs = std::filesystem;

const char* to_string(ResourceUsageStatus s) {
  switch (s) {
    case ResourceUsageStatus::Ok: return "ok";
    case ResourceUsageStatus::BuildFailed: return "build-failed";
    case ResourceUsageStatus::NvccNotFound: return "nvcc-not-found";
    case ResourceUsageStatus::NotAllowed: return "not-allowed";
    case ResourceUsageStatus::ArchUnsupported: return "arch-unsupported";
    case ResourceUsageStatus::Cancelled: return "cancelled";
    case ResourceUsageStatus::TimedOut: return "timed-out";
    case ResourceUsageStatus::Failed: return "failed";
  }
  return "failed";
}

namespace {

// Bumped when the command or the stored output's meaning changes.
constexpr const char* kCacheFormat = "resource-usage v1";

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/warplens-nvcc-XXXXXX";
    if (::mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
}

std::string line_directive_path(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

// Make-style dependency list: "target: dep dep \<newline> dep ..." with
// spaces in names escaped as "\ ".
std::vector<std::string> read_dependencies(const std::string& file) {
  std::ifstream in(file);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> deps;
  std::string cur;
  bool after_colon = false;
  for (std::size_t i = 0; i < all.size(); ++i) {
    char c = all[i];
    if (c == '\\' && i + 1 < all.size() && (all[i + 1] == '\n' || all[i + 1] == '\r')) {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < all.size() && all[i + 1] == ' ') {
      cur += ' ';
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!cur.empty()) {
        if (!after_colon && cur.back() == ':') {
          after_colon = true;
        } else if (after_colon) {
          deps.push_back(cur);
        }
      }
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty() && after_colon) deps.push_back(cur);
  return deps;
}

std::int64_t reserved_shared_for(const std::string& arch) {
  if (auto p = catalog_properties(arch)) return p->reserved_shared_per_block;
  auto cc = parse_arch(arch);
  return cc && cc->major >= 8 ? 1024 : 0;
}

// With -rdc, nvlink's numbers are final (callees from the same link
// included); ptxas' are per function but carry the spill counts.
void merge_nvlink(ResourceUsageResult& r) {
  std::int64_t reserved = reserved_shared_for(r.compiled_arch);
  std::vector<FunctionResources> merged;
  for (const auto& f : r.functions) {
    if (f.origin != ResourceOrigin::Ptxas) continue;
    FunctionResources m = f;
    for (const auto& n : r.functions) {
      if (n.origin != ResourceOrigin::Nvlink || n.symbol != f.symbol) continue;
      if (n.registers) m.registers = n.registers;
      m.barriers = n.barriers;
      m.shared_static_bytes = std::max<std::int64_t>(0, n.shared_static_bytes - reserved);
      m.cumulative_stack_bytes = n.cumulative_stack_bytes;
      m.local_bytes = n.local_bytes;
      m.cmem = n.cmem;
    }
    merged.push_back(std::move(m));
  }
  r.functions = std::move(merged);
}

void finish(ResourceUsageResult& r, const CachedRun& run) {
  r.raw_output = run.output;
  ToolOutput parsed = parse_nvcc_output(run.output);
  r.functions = std::move(parsed.functions);
  r.diagnostics = std::move(parsed.diagnostics);
  if (r.relocatable) {
    // A link that needs other translation units is not this file's error:
    // keep ptxas' numbers and say the totals may be incomplete.
    for (auto& d : r.diagnostics)
      if (d.tool == "nvlink" && d.level != ToolDiagnostic::Level::Warning) {
        d.level = ToolDiagnostic::Level::Warning;
        d.message += " (device link of this file alone; registers of kernels that call into other "
                     "translation units are ptxas' per-function numbers)";
      }
    merge_nvlink(r);
  }
  bool errors = false;
  for (const auto& d : r.diagnostics)
    if (d.level != ToolDiagnostic::Level::Warning) {
      if (!errors) r.message = d.text();
      errors = true;
    }
  if (run.exit_code != 0 || errors) {
    r.status = ResourceUsageStatus::BuildFailed;
    if (r.message.empty())
      r.message = "nvcc exited with status " + std::to_string(run.exit_code) + " without an error message";
    return;
  }
  r.status = ResourceUsageStatus::Ok;
}

// The compile command is the workspace's: a host compiler (-ccbin) or a
// host-compiler flag that loads code (-Xcompiler -B./x, -fplugin=) is passed
// to nvcc only when the driver policy allows the program it names.
std::vector<std::string> drop_untrusted_programs(const std::vector<std::string>& args, const std::string& cwd,
                                                 const std::vector<std::string>& allowed,
                                                 std::vector<std::string>& refused) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string value;
    bool separate = false;
    for (const char* name : {"-ccbin", "--compiler-bindir"}) {
      std::string n = name;
      if (a == n && i + 1 < args.size()) {
        value = args[i + 1];
        separate = true;
      } else if (a.rfind(n + "=", 0) == 0) {
        value = a.substr(n.size() + 1);
      }
    }
    if (!value.empty()) {
      DriverCheck check = check_driver(value, cwd, allowed);
      if (check.allowed) {
        out.push_back(a);
        if (separate) out.push_back(args[i + 1]);
      } else {
        refused.push_back("the compile command's host compiler `" + value + "` (-ccbin) was not used: " +
                          check.reason + "; nvcc ran with its default host compiler (allow it with "
                          "warplens.allowedDrivers)");
      }
      if (separate) ++i;
      continue;
    }
    std::string option, list_text;
    for (const char* name : {"-Xcompiler", "--compiler-options"}) {
      std::string n = name;
      if (a == n && i + 1 < args.size()) {
        option = n;
        list_text = args[++i];
      } else if (a.rfind(n + "=", 0) == 0) {
        option = n;
        list_text = a.substr(n.size() + 1);
      }
    }
    if (!option.empty()) {
      // A comma list of host-compiler flags: the ones that load code go.
      std::vector<std::string> kept, dropped;
      std::stringstream list(list_text);
      for (std::string f; std::getline(list, f, ',');)
        (is_program_loading_host_flag(f) ? dropped : kept).push_back(f);
      auto join = [](const std::vector<std::string>& v) {
        std::string j;
        for (const auto& x : v) j += (j.empty() ? "" : ",") + x;
        return j;
      };
      if (!dropped.empty())
        refused.push_back("the compile command's host-compiler flags `" + join(dropped) +
                          "` were not passed to nvcc: they load or run other programs");
      if (!kept.empty()) {
        out.push_back(option);
        out.push_back(join(kept));
      }
      continue;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace

ResourceUsageResult compute_resource_usage(const ResourceUsageRequest& req, std::stop_token stop,
                                           ResourceCache* cache) {
  auto t0 = std::chrono::steady_clock::now();
  ResourceUsageResult r;
  r.requested_arch = req.arch;
  auto done = [&]() -> ResourceUsageResult& {
    r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };

  NvccLookup lookup = find_nvcc(req.cuda_path, req.allowed_drivers);
  if (lookup.refused) {
    r.status = ResourceUsageStatus::NotAllowed;
    r.message = lookup.error;
    return done();
  }
  if (!lookup.toolchain) {
    r.status = ResourceUsageStatus::NvccNotFound;
    std::string where;
    for (const auto& s : lookup.searched) where += (where.empty() ? "" : ", ") + s;
    r.message = "nvcc not found (looked in " + where + "); set warplens.cudaPath or CUDA_PATH";
    return done();
  }
  const NvccToolchain& tc = *lookup.toolchain;
  r.nvcc_path = tc.nvcc;
  r.cuda_version = tc.version;
  r.compiled_arch = choose_compile_arch(tc, req.arch, &r.arch_note);
  if (r.compiled_arch.empty()) {
    r.status = ResourceUsageStatus::ArchUnsupported;
    r.message = r.arch_note.empty() ? "nvcc " + tc.version + " cannot compile for " + req.arch : r.arch_note;
    return done();
  }

  NvccFlags flags = nvcc_flags_from_command(req.compile_args);
  r.relocatable = flags.relocatable;
  std::string file_dir = fs::path(req.path).parent_path().string();
  std::string name = fs::path(req.path).filename().string();
  if (name.empty()) name = "buffer.cu";
  std::string cwd = req.working_directory;
  std::error_code ec;
  if (cwd.empty() || !fs::is_directory(cwd, ec)) cwd = file_dir;
  if (cwd.empty() || !fs::is_directory(cwd, ec)) cwd = fs::current_path(ec).string();
  flags.args = drop_untrusted_programs(flags.args, cwd, req.allowed_drivers, r.refused_flags);

  TempDir tmp;
  if (tmp.path().empty()) {
    r.status = ResourceUsageStatus::Failed;
    r.message = "could not create a temporary directory for nvcc";
    return done();
  }
  const std::string source = tmp.path() + "/" + name;
  const std::string cubin = tmp.path() + "/device.cubin";
  const std::string deps = tmp.path() + "/device.d";

  std::vector<std::string> argv = {tc.nvcc, "-cubin", "-arch=" + r.compiled_arch, "-Xptxas", "-v"};
  if (flags.relocatable) argv.push_back("-rdc=true");
  if (!file_dir.empty()) argv.push_back("-I" + file_dir);
  argv.insert(argv.end(), flags.args.begin(), flags.args.end());
  for (const std::string& a : {std::string("-MD"), std::string("-MF"), deps, std::string("-o"), cubin,
                               std::string("-x"), std::string("cu"), source})
    argv.push_back(a);
  std::vector<std::string> link_argv = {tc.nvcc, "--resource-usage", "-dlink", "-arch=" + r.compiled_arch,
                                        cubin, "-o", tmp.path() + "/device_link.o"};

  // What the user sees and what the cache is keyed on: no temporary paths.
  auto mask = [&](std::string s) {
    replace_all(s, source, req.path);
    replace_all(s, tmp.path(), "<tmp>");
    return s;
  };
  r.command = mask(shell_join(argv));
  if (flags.relocatable) r.command += " && " + mask(shell_join(link_argv));
  std::string key = std::string(kCacheFormat) + "\n" + tc.nvcc + "\n" + tc.version_line + "\n" + cwd + "\n" +
                    r.command;

  if (cache) {
    if (auto hit = cache->lookup(key, req.text)) {
      r.from_cache = true;
      finish(r, *hit);
      return done();
    }
  }

  {
    std::ofstream out(source, std::ios::binary);
    out << "#line 1 \"" << line_directive_path(req.path) << "\"\n" << req.text;
    if (!req.text.empty() && req.text.back() != '\n') out << '\n';
    if (!out.flush()) {
      r.status = ResourceUsageStatus::Failed;
      r.message = "could not write " + source;
      return done();
    }
  }

  ProcessSpec pr;
  pr.capture_output = true;
  pr.kill_grace = std::chrono::milliseconds(500);
  pr.argv = argv;
  pr.working_directory = cwd;
  pr.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(req.timeout);
  ProcessResult compile = run_process(pr, stop);
  auto interrupted = [&](const ProcessResult& p) {
    if (p.cancelled) {
      r.status = ResourceUsageStatus::Cancelled;
      r.message = "cancelled";
    } else if (p.timed_out) {
      r.status = ResourceUsageStatus::TimedOut;
      r.message = "nvcc did not finish within " + std::to_string(req.timeout.count()) + " s";
    } else if (!p.started) {
      r.status = ResourceUsageStatus::Failed;
      r.message = p.start_error;
    } else if (p.signal != 0) {
      r.status = ResourceUsageStatus::Failed;
      r.message = "nvcc was killed by signal " + std::to_string(p.signal);
    } else {
      return false;
    }
    r.raw_output = mask(p.err + p.out);
    return true;
  };
  if (interrupted(compile)) return done();

  CachedRun run;
  run.exit_code = compile.exit_code;
  run.output = compile.err + compile.out;
  if (flags.relocatable && compile.exit_code == 0) {
    pr.argv = link_argv;
    ProcessResult link = run_process(pr, stop);
    if (interrupted(link)) return done();
    run.output += link.err + link.out;
  }
  run.output = mask(run.output);
  for (const auto& d : read_dependencies(deps)) {
    if (d == source) continue;
    std::string path = fs::path(d).is_absolute() ? d : (fs::path(cwd) / d).lexically_normal().string();
    if (auto s = stamp_file(path)) run.dependencies.push_back(*s);
  }
  if (cache) cache->store(key, req.text, run);
  finish(r, run);
  return done();
}

}  // namespace warplens
