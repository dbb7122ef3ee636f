// nvcc / clang / gcc command line -> flags for a Clang 19 CUDA device parse.
// The table below is the documentation: docs/frontend.md mirrors it, and
// tests/unit/analysis/core_compile_db_translate_test.cpp checks it line by line.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/compile_db.h"
#include "analysis/cuda_toolkit.h"
#include "common/file_read.h"

namespace fs = std::filesystem;

namespace warplens {

namespace {

// What to do with one nvcc option.
enum class Action {
  Drop,           // no value; removed
  DropValue,      // takes a value; both removed
  Keep,           // no value; kept as `clang` spelling (or as written)
  KeepValue,      // takes a value; emitted as `clang value` (paths made absolute when `path`)
  Arch,           // value names GPU architectures (-arch, -code, -gencode)
  HostOptions,    // -Xcompiler: value is a comma list of host-compiler flags
  OptionsFile,    // --options-file: value is a comma list of files with more options
  Define,         // no value; removed, `clang` is a macro it implies (-D)
  DefineValue,    // takes a value; removed; `clang` defined when the value is true
  Language,       // -x: always parsed as CUDA
  Standard,       // -std / --std
  DefaultStream,  // --default-stream per-thread defines CUDA_API_PER_THREAD_DEFAULT_STREAM
  Werror,         // nvcc's -Werror takes an optional kind list
};

struct NvccOption {
  const char* long_name;
  const char* short_name;
  Action action;
  const char* clang = nullptr;  // replacement spelling / implied macro
  bool path = false;            // value is a path to make absolute
};

// nvcc's options (CUDA 13 `nvcc --help`), by long and short name. Options not
// listed are host-compiler options (nvcc forwards them with
// -forward-unknown-to-host-compiler) and go through host_flag() below.
const NvccOption kNvccOptions[] = {
    // Outputs and compilation phases: a syntax-only parse has none.
    {"output-file", "o", Action::DropValue},
    {"compile", "c", Action::Drop},
    {"device-c", "dc", Action::Define, "__CUDACC_RDC__"},
    {"device-w", "dw", Action::Drop},
    {"device-link", "dlink", Action::Drop},
    {"link", "link", Action::Drop},
    {"lib", "lib", Action::Drop},
    {"run", "run", Action::Drop},
    {"cubin", "cubin", Action::Drop},
    {"ptx", "ptx", Action::Drop},
    {"fatbin", "fatbin", Action::Drop},
    {"optix-ir", "optix-ir", Action::Drop},
    {"ltoir", "ltoir", Action::Drop},
    {"preprocess", "E", Action::Drop},
    {"generate-dependencies", "M", Action::Drop},
    {"generate-nonsystem-dependencies", "MM", Action::Drop},
    {"generate-dependencies-with-compile", "MD", Action::Drop},
    {"generate-nonsystem-dependencies-with-compile", "MMD", Action::Drop},
    {"generate-dependency-targets", "MP", Action::Drop},
    {"dependency-output", "MF", Action::DropValue},
    {"dependency-target-name", "MT", Action::DropValue},
    {"output-directory", "odir", Action::DropValue},
    {"keep", "keep", Action::Drop},
    {"keep-dir", "keep-dir", Action::DropValue},
    {"save-temps", "save-temps", Action::Drop},
    {"clean-targets", "clean", Action::Drop},
    {"dryrun", "dryrun", Action::Drop},
    {"verbose", "v", Action::Drop},
    {"time", "time", Action::DropValue},
    {"threads", "t", Action::DropValue},
    {"split-compile", "split-compile", Action::DropValue},
    {"split-compile-extended", "split-compile-extended", Action::DropValue},
    {"run-args", "run-args", Action::DropValue},
    {"input-drive-prefix", "idp", Action::DropValue},
    {"dependency-drive-prefix", "ddp", Action::DropValue},
    {"drive-prefix", "dp", Action::DropValue},
    {"list-gpu-code", "list-gpu-code", Action::Drop},
    {"list-gpu-arch", "list-gpu-arch", Action::Drop},
    // Preprocessor: kept.
    {"define-macro", "D", Action::KeepValue, "-D"},
    {"undefine-macro", "U", Action::KeepValue, "-U"},
    {"include-path", "I", Action::KeepValue, "-I", true},
    {"system-include", "isystem", Action::KeepValue, "-isystem", true},
    {"pre-include", "include", Action::KeepValue, "-include", true},
    // Linking and tools: irrelevant to a parse.
    {"library", "l", Action::DropValue},
    {"library-path", "L", Action::DropValue},
    {"compiler-bindir", "ccbin", Action::DropValue},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", Action::Drop},
    {"archiver-binary", "arbin", Action::DropValue},
    {"cudart", "cudart", Action::DropValue},
    {"cudadevrt", "cudadevrt", Action::DropValue},
    {"libdevice-directory", "ldir", Action::DropValue},
    {"target-directory", "target-dir", Action::DropValue},
    {"use-local-env", "use-local-env", Action::Drop},
    {"shared", "shared", Action::Drop},
    {"host-linker-script", "hls", Action::DropValue},
    {"linker-options", "Xlinker", Action::DropValue},
    {"archive-options", "Xarchive", Action::DropValue},
    {"ptxas-options", "Xptxas", Action::DropValue},
    {"nvlink-options", "Xnvlink", Action::DropValue},
    {"Xcudafe", "Xcudafe", Action::DropValue},
    {"Xfatbin", "Xfatbin", Action::DropValue},
    {"Xnvvm", "Xnvvm", Action::DropValue},
    {"compiler-options", "Xcompiler", Action::HostOptions},
    {"options-file", "optf", Action::OptionsFile},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler", Action::Drop},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", Action::Drop},
    {"forward-unknown-opts", "forward-unknown-opts", Action::Drop},
    // Targets.
    {"gpu-architecture", "arch", Action::Arch},
    {"gpu-code", "code", Action::Arch},
    {"generate-code", "gencode", Action::Arch},
    {"relocatable-device-code", "rdc", Action::DefineValue, "__CUDACC_RDC__"},
    {"x", "x", Action::Language},
    {"std", "std", Action::Standard},
    {"machine", "m", Action::DropValue},
    // Code generation: no effect on the source a parse sees (except macros).
    {"optimize", "O", Action::DropValue},
    {"dopt", "dopt", Action::DropValue},
    {"ftz", "ftz", Action::DropValue},
    {"prec-div", "prec-div", Action::DropValue},
    {"prec-sqrt", "prec-sqrt", Action::DropValue},
    {"fmad", "fmad", Action::DropValue},
    {"use_fast_math", "use_fast_math", Action::Define, "__USE_FAST_MATH__"},
    {"extra-device-vectorization", "extra-device-vectorization", Action::Drop},
    {"maxrregcount", "maxrregcount", Action::DropValue},
    {"device-debug", "G", Action::Define, "__CUDACC_DEBUG__"},
    {"generate-line-info", "lineinfo", Action::Drop},
    {"debug", "g", Action::Drop},
    {"resource-usage", "res-usage", Action::Drop},
    {"source-in-ptx", "src-in-ptx", Action::Drop},
    {"keep-device-functions", "keep-device-functions", Action::Drop},
    {"extensible-whole-program", "ewp", Action::Drop},
    {"no-compress", "no-compress", Action::Drop},
    {"compress-mode", "compress-mode", Action::DropValue},
    {"dlink-time-opt", "dlto", Action::Drop},
    {"gen-opt-lto", "gen-opt-lto", Action::Drop},
    {"lto", "lto", Action::Drop},
    {"jump-table-density", "jump-table-density", Action::DropValue},
    {"optimization-info", "optimization-info", Action::DropValue},
    {"fdevice-syntax-only", "fdevice-syntax-only", Action::Drop},
    {"fdevice-time-trace", "fdevice-time-trace", Action::DropValue},
    {"static-global-template-stub", "static-global-template-stub", Action::Drop},
    {"device-entity-has-hidden-visibility", "device-entity-has-hidden-visibility", Action::Drop},
    {"restrict", "restrict", Action::Drop},
    // Language extensions nvcc switches on: clang has them on already; the
    // macros nvcc defines for them are defined so `#if` checks agree.
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", Action::Define, "__CUDACC_RELAXED_CONSTEXPR__"},
    {"extended-lambda", "extended-lambda", Action::Define, "__CUDACC_EXTENDED_LAMBDA__"},
    {"expt-extended-lambda", "expt-extended-lambda", Action::Define, "__CUDACC_EXTENDED_LAMBDA__"},
    {"no-host-device-initializer-list", "nohdinitlist", Action::Drop},
    {"no-host-device-move-forward", "nohdmoveforward", Action::Drop},
    {"default-stream", "default-stream", Action::DefaultStream},
    // Diagnostics of nvcc's own front end.
    {"Werror", "Werror", Action::Werror},
    {"disable-warnings", "w", Action::Keep, "-w"},
    {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", Action::Drop},
    {"Wno-deprecated-declarations", "Wno-deprecated-declarations", Action::Keep},
    {"Wreorder", "Wreorder", Action::Drop},
    {"Wdefault-stream-launch", "Wdefault-stream-launch", Action::Drop},
    {"Wmissing-launch-bounds", "Wmissing-launch-bounds", Action::Drop},
    {"Wext-lambda-captures-this", "Wext-lambda-captures-this", Action::Drop},
    {"display-error-number", "display-error-number", Action::Drop},
    {"no-display-error-number", "no-display-error-number", Action::Drop},
    {"diag-suppress", "diag-suppress", Action::DropValue},
    {"diag-error", "diag-error", Action::DropValue},
    {"diag-warn", "diag-warn", Action::DropValue},
    {"diag-default", "diag-default", Action::DropValue},
};

const NvccOption* find_nvcc_option(const std::string& name) {
  for (const auto& o : kNvccOptions)
    if (name == o.long_name || name == o.short_name) return &o;
  return nullptr;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::string absolute_path(const std::string& path, const std::string& directory) {
  if (path.empty() || directory.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(directory) / path).lexically_normal().string();
}

std::vector<std::string> split_list(const std::string& s, bool split_spaces) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',' || (split_spaces && (c == ' ' || c == '\t'))) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

void add_archs(TranslatedCommand& out, const std::string& value) {
  static const std::regex arch(R"((?:sm|compute|lto)_\d{2,3}[a-z]?)");
  for (auto it = std::sregex_iterator(value.begin(), value.end(), arch); it != std::sregex_iterator(); ++it) {
    std::string a = normalize_gpu_arch(it->str());
    if (!a.empty() && std::find(out.gpu_archs.begin(), out.gpu_archs.end(), a) == out.gpu_archs.end())
      out.gpu_archs.push_back(a);
  }
}

void add_define(TranslatedCommand& out, const std::string& macro) {
  std::string flag = "-D" + macro;
  if (std::find(out.args.begin(), out.args.end(), flag) == out.args.end()) out.args.push_back(flag);
}

bool is_input_file(const std::string& a) {
  static const char* exts[] = {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".C", ".c++", ".h", ".hpp",
                               ".o", ".obj", ".a", ".so", ".ptx", ".cubin", ".fatbin"};
  std::string ext = fs::path(a).extension().string();
  return std::find(std::begin(exts), std::end(exts), ext) != std::end(exts);
}

// Options of a host compiler (g++/clang) that take a separate value.
bool host_option_takes_value(const std::string& a) {
  static const char* with_value[] = {"-o", "-MF", "-MT", "-MQ", "-x", "-Xlinker", "-Xassembler",
                                     "-Xpreprocessor", "-L", "-l", "-I", "-D", "-U", "-isystem",
                                     "-iquote", "-idirafter", "-include", "-imacros", "-isysroot",
                                     "--sysroot", "-target", "-Xclang", "-arch", "-aux-info",
                                     "--param", "-specs", "-iprefix", "-iwithprefix"};
  return std::find(std::begin(with_value), std::end(with_value), a) != std::end(with_value);
}

// Translates host-compiler flags (from -Xcompiler or forwarded unknown
// options). Only what changes the source Clang sees is kept: preprocessor
// flags, the language standard and a few dialect switches. Warning and
// codegen flags of the host compiler (gcc) do not apply to a device parse.
// -rdc=true / -dc: relocatable device code. Clang needs -fgpu-rdc for the
// same semantics (device-side launches, extern __device__ across files).
void relocatable(TranslatedCommand& out) {
  if (out.relocatable_device_code) return;
  out.relocatable_device_code = true;
  out.args.push_back("-fgpu-rdc");
}

void host_flags(TranslatedCommand& out, const std::vector<std::string>& flags, const std::string& dir) {
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& a = flags[i];
    auto next = [&]() -> std::string { return i + 1 < flags.size() ? flags[++i] : std::string(); };
    static const char* path_opts[] = {"-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros"};
    bool handled = false;
    for (const char* p : path_opts) {
      std::string opt = p;
      if (a == opt) {
        std::string v = next();
        out.args.push_back(opt);
        out.args.push_back(absolute_path(v, dir));
        handled = true;
      } else if (starts_with(a, opt) && opt.size() <= 2) {  // glued -Ipath
        out.args.push_back(opt + absolute_path(a.substr(opt.size()), dir));
        handled = true;
      }
      if (handled) break;
    }
    if (handled) continue;
    if (a == "-D" || a == "-U") {
      out.args.push_back(a + next());
    } else if (starts_with(a, "-D") || starts_with(a, "-U")) {
      out.args.push_back(a);
    } else if (starts_with(a, "-std=")) {
      out.args.push_back(a);
      out.sets_language_standard = true;
    } else if (a == "-w" || a == "-fno-exceptions" || a == "-fexceptions" || a == "-fno-rtti" ||
               a == "-frtti" || a == "-fsigned-char" || a == "-funsigned-char") {
      out.args.push_back(a);
    } else if (a == "-fopenmp" || starts_with(a, "-fopenmp=")) {
      // The host compiler finds <omp.h> on its own path; the device parse
      // needs it too (the front end adds the OpenMP API declarations).
      out.host_openmp = true;
      out.dropped.push_back(a);
    } else {
      out.dropped.push_back(a);
      if (host_option_takes_value(a)) out.dropped.push_back(next());
    }
  }
}

void expand_options_file(TranslatedCommand& out, const std::string& list, const std::string& dir,
                         std::vector<std::string>& pending, int depth) {
  for (const auto& name : split_list(list, false)) {
    std::string path = absolute_path(name, dir);
    common::FileReadResult read = common::read_text_file(path, std::size_t{16} << 20);
    if (!read) {
      out.problems.push_back("cannot read options file " + read.error);
      continue;
    }
    if (depth > 8) {
      out.problems.push_back("options files nested too deeply at " + path);
      continue;
    }
    auto words = split_shell_command(*read.content);
    pending.insert(pending.begin(), words.begin(), words.end());
  }
}

void translate_nvcc(TranslatedCommand& out, std::vector<std::string> args, const std::string& dir,
                    const std::string& source) {
  int expansions = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string a = args[i];
    auto next = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a.empty()) continue;
    if (a[0] != '-') {
      if (a != source && !is_input_file(a)) out.dropped.push_back(a);
      continue;
    }
    std::string body = a.substr(a[1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    const NvccOption* opt = find_nvcc_option(body);
    if (!opt) {
      if (auto eq = body.find('='); eq != std::string::npos) {
        opt = find_nvcc_option(body.substr(0, eq));
        if (opt) value = body.substr(eq + 1);
      }
    }
    if (!opt) {
      // Glued short forms: -Ipath, -DNAME=1, -O3, -lcudart, -Lpath.
      if (a[1] != '-' && a.size() > 2 && std::string("IDULlO").find(a[1]) != std::string::npos) {
        if (a[1] == 'I') out.args.push_back("-I" + absolute_path(a.substr(2), dir));
        else if (a[1] == 'D' || a[1] == 'U') out.args.push_back(a);
        else out.dropped.push_back(a);
        continue;
      }
      // Anything else is a host-compiler option nvcc forwards.
      std::vector<std::string> host{a};
      if (host_option_takes_value(a) && i + 1 < args.size()) host.push_back(next());
      host_flags(out, host, dir);
      continue;
    }
    auto take_value = [&]() -> std::string { return value ? *value : next(); };
    switch (opt->action) {
      case Action::Drop:
        out.dropped.push_back(a);
        break;
      case Action::DropValue: {
        std::string v = take_value();
        out.dropped.push_back(value ? a : a + " " + v);
        break;
      }
      case Action::Keep:
        out.args.push_back(opt->clang ? opt->clang : a);
        break;
      case Action::KeepValue: {
        std::string v = take_value();
        if (opt->path) v = absolute_path(v, dir);
        std::string flag = opt->clang;
        if (flag == "-D" || flag == "-U" || flag == "-I") out.args.push_back(flag + v);
        else {
          out.args.push_back(flag);
          out.args.push_back(v);
        }
        break;
      }
      case Action::Arch:
        add_archs(out, take_value());
        break;
      case Action::HostOptions:
        host_flags(out, split_list(take_value(), true), dir);
        break;
      case Action::OptionsFile:
        if (++expansions > 64) {
          out.problems.push_back("too many options files");
          take_value();
          break;
        }
        {
          std::vector<std::string> pending;
          expand_options_file(out, take_value(), dir, pending, expansions);
          args.insert(args.begin() + static_cast<long>(i) + 1, pending.begin(), pending.end());
        }
        break;
      case Action::Define:
        add_define(out, opt->clang);
        if (std::string(opt->clang) == "__CUDACC_RDC__") relocatable(out);
        out.dropped.push_back(a);
        break;
      case Action::DefineValue: {
        std::string v = take_value();
        if (v == "true" || v == "1") {
          add_define(out, opt->clang);
          if (std::string(opt->clang) == "__CUDACC_RDC__") relocatable(out);
        }
        out.dropped.push_back(value ? a : a + " " + v);
        break;
      }
      case Action::Language:
        take_value();  // always parsed as CUDA
        break;
      case Action::Standard: {
        std::string v = take_value();
        out.args.push_back("-std=" + v);
        out.sets_language_standard = true;
        break;
      }
      case Action::DefaultStream: {
        std::string v = take_value();
        if (v == "per-thread") add_define(out, "CUDA_API_PER_THREAD_DEFAULT_STREAM=1");
        out.dropped.push_back(value ? a : a + " " + v);
        break;
      }
      case Action::Werror: {
        // nvcc: -Werror all-warnings,cross-execution-space-call,...
        static const std::regex kinds(R"(^[a-z-]+(,[a-z-]+)*$)");
        if (!value && i + 1 < args.size() && std::regex_match(args[i + 1], kinds)) next();
        out.dropped.push_back(a);
        break;
      }
    }
  }
}

void translate_clang(TranslatedCommand& out, std::vector<std::string> args, const std::string& dir,
                     const std::string& source) {
  static const char* drop_alone[] = {"-c", "-S", "-E", "-fsyntax-only", "-emit-llvm", "-M", "-MM",
                                     "-MD", "-MMD", "-MP", "--cuda-host-only", "--cuda-device-only",
                                     "--cuda-compile-host-device", "-nocudalib", "-nocudainc",
                                     "--no-cuda-version-check", "-fcolor-diagnostics",
                                     "-fno-color-diagnostics", "-fdiagnostics-color", "-v", "-###",
                                     "-pipe", "-save-temps"};
  static const char* drop_with_value[] = {"-o", "-MF", "-MT", "-MQ", "-x", "-resource-dir",
                                          "--cuda-gpu-arch", "--offload-arch", "--cuda-path",
                                          "-Xlinker", "-L", "-l"};
  static const char* path_opts[] = {"-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros",
                                    "-isysroot", "--sysroot"};
  int expansions = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string a = args[i];
    auto next = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a.empty()) continue;
    if (a == "--") break;  // only inputs follow
    if (a[0] == '@') {
      if (++expansions > 64) continue;
      std::vector<std::string> pending;
      expand_options_file(out, a.substr(1), dir, pending, expansions);
      args.insert(args.begin() + static_cast<long>(i) + 1, pending.begin(), pending.end());
      continue;
    }
    if (a[0] != '-') {
      if (a != source && !is_input_file(a)) out.dropped.push_back(a);
      continue;
    }
    if (std::find(std::begin(drop_alone), std::end(drop_alone), a) != std::end(drop_alone)) {
      out.dropped.push_back(a);
      continue;
    }
    bool done = false;
    for (const char* o : drop_with_value) {
      std::string opt = o;
      std::optional<std::string> v;
      if (a == opt) v = next();
      else if (starts_with(a, opt + "=")) v = a.substr(opt.size() + 1);
      else if (opt.size() == 2 && opt != "-x" && starts_with(a, opt) && a.size() > 2) v = a.substr(2);
      else if (opt == "-x" && starts_with(a, "-x") && a.size() > 2) v = a.substr(2);
      if (!v) continue;
      if (opt == "--cuda-gpu-arch" || opt == "--offload-arch") add_archs(out, *v);
      else if (opt == "--cuda-path") out.cuda_path = absolute_path(*v, dir);
      else out.dropped.push_back(a == opt ? a + " " + *v : a);
      done = true;
      break;
    }
    if (done) continue;
    if (starts_with(a, "--no-cuda-gpu-arch") || starts_with(a, "--no-offload-arch") ||
        starts_with(a, "-march=") || starts_with(a, "-mtune=") || starts_with(a, "-mcpu=")) {
      out.dropped.push_back(a);
      continue;
    }
    for (const char* o : path_opts) {
      std::string opt = o;
      if (a == opt) {
        out.args.push_back(a);
        out.args.push_back(absolute_path(next(), dir));
        done = true;
      } else if (starts_with(a, opt + "=")) {
        out.args.push_back(opt + "=" + absolute_path(a.substr(opt.size() + 1), dir));
        done = true;
      } else if (opt == "-I" && starts_with(a, "-I")) {
        out.args.push_back("-I" + absolute_path(a.substr(2), dir));
        done = true;
      }
      if (done) break;
    }
    if (done) continue;
    if (starts_with(a, "-std=")) out.sets_language_standard = true;
    if (a == "-fgpu-rdc") out.relocatable_device_code = true;
    if (a == "-fopenmp" || starts_with(a, "-fopenmp=")) out.host_openmp = true;
    out.args.push_back(a);
    if (host_option_takes_value(a)) out.args.push_back(next());
  }
}

std::string basename_of(const std::string& p) { return fs::path(p).filename().string(); }

bool is_launcher(const std::string& exe) {
  static const char* launchers[] = {"ccache", "sccache", "distcc", "buildcache", "icecc"};
  std::string b = basename_of(exe);
  return std::find(std::begin(launchers), std::end(launchers), b) != std::end(launchers);
}

}  // namespace

std::vector<std::string> split_shell_command(const std::string& command) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  enum { None, Single, Double } quote = None;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote == Single) {
      if (c == '\'') quote = None;
      else cur.push_back(c);
      continue;
    }
    if (quote == Double) {
      if (c == '"') {
        quote = None;
      } else if (c == '\\' && i + 1 < command.size() &&
                 std::string("\"\\$`\n").find(command[i + 1]) != std::string::npos) {
        cur.push_back(command[++i]);
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c == '\'' ? Single : Double;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      char n = command[++i];
      if (n != '\n') cur.push_back(n);  // backslash-newline continues the line
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

TranslatedCommand translate_compile_command(const std::vector<std::string>& argv,
                                            const std::string& directory,
                                            const std::string& source_file) {
  TranslatedCommand out;
  size_t first = 0;
  while (first < argv.size() && is_launcher(argv[first])) ++first;
  if (first >= argv.size()) return out;
  std::string compiler = basename_of(argv[first]);
  std::vector<std::string> rest(argv.begin() + static_cast<long>(first) + 1, argv.end());
  std::string source = source_file;
  // Inputs may be spelled relative to the directory.
  for (auto& a : rest)
    if (!a.empty() && a[0] != '-' && absolute_path(a, directory) == source_file) a = source;

  if (compiler.find("nvcc") != std::string::npos) {
    out.driver = CompilerDriver::Nvcc;
    translate_nvcc(out, std::move(rest), directory, source);
  } else if (compiler.find("clang") != std::string::npos) {
    out.driver = CompilerDriver::Clang;
    translate_clang(out, std::move(rest), directory, source);
  } else {
    bool gcc_like = compiler.find("g++") != std::string::npos || compiler.find("gcc") != std::string::npos ||
                    compiler == "c++" || compiler == "cc";
    out.driver = gcc_like ? CompilerDriver::Gcc : CompilerDriver::Unknown;
    std::vector<std::string> host;
    for (size_t i = 0; i < rest.size(); ++i) {
      if (!rest[i].empty() && rest[i][0] != '-') continue;  // inputs
      host.push_back(rest[i]);
      if (host_option_takes_value(rest[i]) && i + 1 < rest.size()) host.push_back(rest[++i]);
    }
    host_flags(out, host, directory);
  }
  return out;
}

}  // namespace warplens
