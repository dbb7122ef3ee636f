// The command line through the real binary: exit codes, help, and the
// text and JSON formats of `check` and `report`.
//
// The format checks hold for any front end; the checks of specific
// findings need the Clang front end and are marked for it at the end.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "support/lsp_client.h"
#include "tests/support/requirements.h"

using namespace warplens::testing;

namespace {

// Runs the test's child processes from `dir` (they inherit the working
// directory), and goes back afterwards.
struct InDirectory {
  std::filesystem::path previous = std::filesystem::current_path();
  explicit InDirectory(const std::filesystem::path& dir) { std::filesystem::current_path(dir); }
  ~InDirectory() { std::filesystem::current_path(previous); }
};

struct Files {
  std::filesystem::path dir;
  Files() {
    dir = std::filesystem::temp_directory_path() / ("warplens-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  ~Files() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
};

const std::string kKernel =
    "// caf\xC3\xA9 \xF0\x9F\x98\x80\n"
    "__global__ void scale(float* a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) a[i * 32] *= 2.0f;\n"
    "}\n"
    "void run(float* a, int n) { scale<<<(n + 255) / 256, 256>>>(a, n); }\n";

// Exit 0, or 2 with the front end's error on stderr: nothing else.
void check_ran_or_frontend_error(const RunResult& r) {
  if (r.exit_code == 2)
    CHECK_MESSAGE(r.err.find("front end") != std::string::npos, r.err);
  else
    CHECK_MESSAGE(r.exit_code == 0, "exit " << r.exit_code << ": " << r.err);
}

}  // namespace

TEST_CASE("--version, --help and subcommand help") {
  auto v = run_warplens({"--version"}, kWait);
  CHECK(v.exit_code == 0);
  CHECK(std::regex_search(v.out, std::regex(R"(^warplens \d+\.\d+\.\d+ \(front end: )")));
  auto h = run_warplens({"--help"}, kWait);
  CHECK(h.exit_code == 0);
  for (const char* word : {"serve", "check", "report", "--log-file", "--log-level"})
    CHECK_MESSAGE(h.out.find(word) != std::string::npos, word);
  auto ch = run_warplens({"check", "--help"}, kWait);
  CHECK(ch.exit_code == 0);
  CHECK(ch.out.find("--format") != std::string::npos);
  CHECK(run_warplens({"report", "--help"}, kWait).exit_code == 0);
  CHECK(run_warplens({"serve", "--help"}, kWait).out.find("--listen") != std::string::npos);
}

TEST_CASE("usage and I/O errors exit with 2 and say why on stderr") {
  Files f;
  std::string dir = f.dir.string();
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  for (const auto& c : std::vector<Case>{{{"frobnicate"}, "unknown command"},
                                         {{"check"}, "no input files"},
                                         {{"check", (f.dir / "missing.cu").string()}, "cannot read"},
                                         {{"check", dir}, "not a regular file (a directory)"},
                                         {{"check", "--format", "yaml", "x.cu"}, "--format"},
                                         {{"check", "--bogus", "x.cu"}, "unknown option"},
                                         {{"check", "--arch", "compute_90", "x.cu"}, "--arch"},
                                         {{"check", "--format"}, "needs a value"},
                                         {{"check", "x.cu", "-I"}, "option -I needs a value"},
                                         {{"check", "-std=17", "x.cu"}, "-std expects a C++ standard"},
                                         {{"check", "--std", "cxx17", "x.cu"}, "-std expects a C++ standard"},
                                         {{"check", "-D", "1X", "x.cu"}, "-D expects a macro name"},
                                         {{"check", "-UX=1", "x.cu"}, "-U expects a macro name"},
                                         {{"report", "--cuda-path", (f.dir / "no-cuda").string(), "x.cu"},
                                          "--cuda-path expects a CUDA toolkit directory"},
                                         {{"check", "-isystem", "inc", "x.cu"}, "unknown option `-isystem`"},
                                         {{"report", "--format", "text", "x.cu"}, "--format expects json"},
                                         {{"report"}, "no input files"},
                                         {{"--log-level", "loud", "check", "x.cu"}, "--log-level"},
                                         {{"serve", "extra.cu"}, "no file arguments"},
                                         {{"serve", "--debounce-ms", "-5"}, "--debounce-ms"},
                                         // Read through CLI11 (cli/options.h) since issue 18:
                                         {{"check", "-I=inc", "x.cu"}, "-I takes the directory as -I DIR or -IDIR"},
                                         {{"check", "--", "-weird.cu"}, "cannot read"},  // a file after --
                                         {{"check", "--log-level", "debug", "--bogus", "x.cu"},
                                          "check: unknown option `--bogus`"},
                                         {{"--log-file"}, "option --log-file needs a value"},
                                         {{"serve", "-j0"}, "--jobs expects an integer from 1 to 1024"},
                                         {{"mcp", "--inputs", "many"}, "--inputs expects an integer"},
                                         {{"mcp", "--bogus"}, "mcp: unknown option `--bogus`"},
                                         {{"compile-db", "x.cu"}, "unexpected argument `x.cu`"}}) {
    CAPTURE(c.args);
    auto r = run_warplens(c.args, kWait);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
    CHECK(r.out.empty());
  }
}

TEST_CASE("optimize, verify, capture and profile: bad values are refused with the usage text, exit 2") {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  // Issue 21's list: a budget of nan, inf or -5 would mean "never stop" or
  // "stop at once"; counts must be whole and in range.
  for (const auto& c : std::vector<Case>{
           {{"optimize", "--budget", "nan", "--kernel", "k", "x.cu"}, "--budget: not a number: nan"},
           {{"optimize", "--budget", "-5", "--kernel", "k", "x.cu"}, "--budget: must be more than 0, got -5"},
           {{"optimize", "--budget", "inf", "--kernel", "k", "x.cu"}, "--budget: not a number: inf"},
           {{"optimize", "--gpu-budget=0", "--kernel", "k", "x.cu"}, "--gpu-budget: must be more than 0"},
           {{"optimize", "--max-candidates", "1e30", "--kernel", "k", "x.cu"}, "--max-candidates: at most 1000000000"},
           {{"optimize", "--runs", "2.5", "--kernel", "k", "x.cu"}, "--runs: expects a whole number"},
           {{"optimize", "--bogus", "x.cu"}, "unknown option `--bogus`"},
           {{"optimize", "x.cu", "--kernel"}, "option --kernel needs a value"},
           {{"optimize", "a.cu", "b.cu", "--kernel", "k"}, "more than one FILE: b.cu"},
           {{"verify", "--timeout", "nan"}, "--timeout expects a non-negative number, got `nan`"},
           {{"verify", "--inputs", "1e30"}, "--inputs expects a whole number from 0 to 2147483647"},
           {{"verify", "--bogus"}, "unknown option `--bogus`"},
           {{"verify", "stray.cu"}, "unexpected argument `stray.cu`"},
           {{"capture", "--kernel", "k", "prog"}, "unexpected argument `prog` (put the program after --)"},
           {{"capture", "--timeout", "inf", "--", "prog"}, "--timeout expects a non-negative number"},
           {{"capture", "--kernel"}, "option --kernel needs a value"},
           {{"profile", "--bogus"}, "unknown option `--bogus`"},
           {{"profile", "--launches", "-1", "--", "prog"}, "--launches needs a count"}}) {
    CAPTURE(c.args);
    auto r = run_warplens(c.args, kWait);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find("usage:") != std::string::npos, r.err);
    CHECK(r.out.empty());
  }
  for (const char* command : {"optimize", "verify", "capture", "profile", "mcp", "compile-db"}) {
    CAPTURE(command);
    auto h = run_warplens({command, "--help"}, kWait);
    CHECK(h.exit_code == 0);
    CHECK(h.out.find("usage:") != std::string::npos);
  }
}

TEST_CASE("check --format text prints compiler-style lines") {
  Files f;
  std::string file = f.write("scale.cu", kKernel);
  auto r = run_warplens({"check", file}, 120s);
  check_ran_or_frontend_error(r);
  std::regex line(R"(^.+:\d+:\d+: (error|warning|info|hint|note): .+( \[[^\]]+\])?$)");
  std::istringstream lines(r.out);
  for (std::string l; std::getline(lines, l);) CHECK_MESSAGE(std::regex_match(l, line), l);
}

TEST_CASE("check --format json prints an array of LSP-shaped diagnostics") {
  Files f;
  std::string a = f.write("a.cu", kKernel);
  std::string b = f.write("b.cu", "__global__ void empty() {}\n");
  auto r = run_warplens({"check", "--format", "json", "--arch", "sm_80", a, b}, 120s);
  check_ran_or_frontend_error(r);
  json out = json::parse(r.out, nullptr, false);
  REQUIRE_MESSAGE(out.is_array(), r.out);
  for (const auto& d : out) {
    CHECK(d.size() == 7);
    CHECK((d["file"] == a || d["file"] == b || d["file"].is_string()));
    CHECK(d["range"]["start"]["line"].is_number_integer());
    CHECK(d["range"]["end"]["character"].is_number_integer());
    CHECK(d["severity"].is_number_integer());
    CHECK(d["code"].is_string());
    CHECK(d["source"].is_string());
    CHECK(d["message"].is_string());
    CHECK(d["data"].is_object());
  }
}

TEST_CASE("report --format json prints the kernel model of every file") {
  Files f;
  std::string a = f.write("a.cu", kKernel);
  auto r = run_warplens({"report", "--format", "json", a}, 120s);
  check_ran_or_frontend_error(r);
  json out = json::parse(r.out, nullptr, false);
  REQUIRE_MESSAGE(out.is_object(), r.out);
  REQUIRE(out["files"].size() == 1);
  const json& file = out["files"][0];
  CHECK(file["file"] == a);
  CHECK(file["functions"].is_array());
  CHECK(file["launches"].is_array());
  CHECK(file["diagnostics"].is_array());
  CHECK(file["toolchain"]["requestedArch"] == "sm_90");
  CHECK(file["parsed"].is_boolean());
}

TEST_CASE("--log-file takes the log off stderr; stdout stays clean") {
  Files f;
  std::string log = (f.dir / "warplens.log").string();
  std::string session;
  for (const json& m : {json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", json::object()}}}},
                        json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}},
                        json{{"jsonrpc", "2.0"}, {"method", "exit"}}})
    session += warplens::protocol::frame_json(m);
  auto r = run_warplens({"--log-file", log, "--log-level", "debug"}, kWait, session);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("serving on stdio") != std::string::npos);
  CHECK(r.out.rfind("Content-Length: ", 0) == 0);  // only frames on stdout
}

// --- With the Clang front end (analysis/clang). ---

TEST_CASE("check reports a syntax error as a clang error with 1-based line and column") {
  Files f;
  std::string file = f.write("broken.cu", "__global__ void k() {\n  int x = ;\n}\n");
  auto r = run_warplens({"check", file}, 120s);
  CHECK(r.exit_code == 0);
  CHECK_MESSAGE(r.out.find(file + ":2:11: error: ") != std::string::npos, r.out);
  auto j = run_warplens({"check", "--format", "json", file}, 120s);
  json out = json::parse(j.out);
  REQUIRE(!out.empty());
  CHECK(out[0]["range"]["start"] == json{{"line", 1}, {"character", 10}});
  CHECK(out[0]["severity"] == 1);
  CHECK(out[0]["source"] == "clang");
}

TEST_CASE("report lists the kernel, its parameters and its launch") {
  Files f;
  std::string a = f.write("a.cu", kKernel);
  auto r = run_warplens({"report", a}, 120s);
  CHECK(r.exit_code == 0);
  json file = json::parse(r.out)["files"][0];
  REQUIRE(file["functions"].size() >= 1);
  CHECK(file["functions"][0]["name"] == "scale");
  CHECK(file["functions"][0]["params"].size() == 2);
  CHECK(file["functions"][0]["nameRange"]["start"] == json{{"line", 1}, {"character", 16}});
  REQUIRE(file["launches"].size() == 1);
  CHECK(file["launches"][0]["block"]["value"] == json::array({256, 1, 1}));
}

// A kernel whose stride and guard macro come from a header found only
// through an include directory (inc/shape.cuh).
const std::string kIncludingKernel =
    "#include \"shape.cuh\"\n"
    "#ifndef SHAPE_DEFINED\n#error shape.cuh not read\n#endif\n"
    "__global__ void scale(float* a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) a[i * STRIDE] *= 2.0f;\n"
    "}\n"
    "void run(float* a, int n) { scale<<<(n + 255) / 256, 256>>>(a, n); }\n";

bool has_clang_error(const std::string& out) { return out.find(": error: ") != std::string::npos; }

TEST_CASE("check -I DIR: a header found through a relative include directory") {
  Files f;
  f.write("inc/shape.cuh", "#pragma once\n#define SHAPE_DEFINED 1\n#define STRIDE 32\n");
  std::string file = f.write("src/file.cu", kIncludingKernel);
  InDirectory here(f.dir);
  auto without = run_warplens({"check", "--no-resource-usage", "src/file.cu"}, 120s);
  CHECK_MESSAGE(without.out.find("'shape.cuh' file not found") != std::string::npos, without.out);
  for (const std::vector<std::string>& flags : {std::vector<std::string>{"-I", "inc"}, {"-Iinc"}, {"-I", f.dir.string() + "/inc"}}) {
    CAPTURE(flags);
    std::vector<std::string> args{"check", "--no-resource-usage"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back("src/file.cu");
    auto r = run_warplens(args, 120s);
    CHECK(r.exit_code == 0);
    CHECK_MESSAGE(!has_clang_error(r.out), r.out);
    CHECK_MESSAGE(r.out.find("src/file.cu:7:") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("[uncoalesced-global]") != std::string::npos, r.out);
  }
  // report takes the same flags; its toolchain shows them on the command line.
  auto rep = run_warplens({"report", "--no-resource-usage", "-I", "inc", "-DEXTRA=1", "-std=c++20", file}, 120s);
  CHECK(rep.exit_code == 0);
  json args = json::parse(rep.out)["files"][0]["toolchain"]["clangArgs"];
  CAPTURE(args.dump());
  auto position = [&](const std::string& a) {
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i] == a) return static_cast<long>(i);
    return -1L;
  };
  CHECK(position("-I" + (f.dir / "inc").string()) >= 0);
  CHECK(position("-DEXTRA=1") >= 0);
  CHECK(position("-std=c++20") > position("-std=c++17"));  // appended: it wins
}

TEST_CASE("check -D NAME=V and -U; compile_flags.txt next to the file") {
  Files f;
  f.write("inc/shape.cuh", "#pragma once\n#define SHAPE_DEFINED 1\n");
  std::string file = f.write("src/file.cu", kIncludingKernel);
  InDirectory here(f.dir);
  auto r = run_warplens({"check", "--no-resource-usage", "-I", "inc", "-D", "STRIDE=32", file}, 120s);
  CHECK(r.exit_code == 0);
  CHECK_MESSAGE(!has_clang_error(r.out), r.out);
  CHECK_MESSAGE(r.out.find("[uncoalesced-global]") != std::string::npos, r.out);
  auto undefined = run_warplens({"check", "--no-resource-usage", "-Iinc", "-DSTRIDE=32", "-USTRIDE", file}, 120s);
  CHECK_MESSAGE(has_clang_error(undefined.out), undefined.out);  // STRIDE is undeclared again
  // compile_flags.txt in src/'s parent: relative -I against its directory,
  // wherever warplens runs from.
  f.write("compile_flags.txt", "# for the tests\n-I\ninc\n\n-DSTRIDE=32\n");
  InDirectory elsewhere(std::filesystem::temp_directory_path());
  auto flags_file = run_warplens({"check", "--no-resource-usage", file}, 120s);
  CHECK(flags_file.exit_code == 0);
  CHECK_MESSAGE(!has_clang_error(flags_file.out), flags_file.out);
  CHECK_MESSAGE(flags_file.out.find("[uncoalesced-global]") != std::string::npos, flags_file.out);
}

namespace {

std::string clangd_binary() {
  for (const char* name : {"/usr/bin/clangd-19", "/usr/lib/llvm-19/bin/clangd"})
    if (::access(name, X_OK) == 0) return name;
  return "";
}

}  // namespace

WARPLENS_REQUIREMENT("clangd-19", [] {
  return clangd_binary().empty() ? warplens::test::missing("clangd-19 is not installed")
                                 : warplens::test::met();
});

TEST_CASE("compile-db: nvcc entries become the Clang command warplens parses with, and clangd accepts them") {
  Files f;
  f.write("inc/shape.cuh", "#pragma once\n#define SHAPE_DEFINED 1\n#define STRIDE 32\n");
  std::string cu = f.write("src/file.cu", kIncludingKernel);
  std::string cpp = f.write("src/host.cpp", "int host() { return 1; }\n");
  json db = json::array();
  db.push_back({{"directory", f.dir.string()},
                {"file", "src/file.cu"},
                {"command", "/usr/local/cuda/bin/nvcc -ccbin g++ -Iinc -gencode arch=compute_80,code=sm_80 "
                            "-gencode arch=compute_90,code=sm_90 -rdc=true --expt-relaxed-constexpr "
                            "-Xcompiler -Wall,-fPIC -O3 -c src/file.cu -o file.o"}});
  db.push_back({{"directory", f.dir.string()}, {"file", "src/host.cpp"},
                {"arguments", {"g++", "-O2", "-c", "src/host.cpp", "-o", "host.o"}}});
  std::string original = db.dump(2);
  f.write("build/compile_commands.json", original);
  InDirectory here(f.dir);

  auto r = run_warplens({"compile-db", "-p", "build"}, 120s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.empty());  // the summary goes to stderr
  CHECK_MESSAGE(r.err.find("1 CUDA entry translated, 1 copied") != std::string::npos, r.err);
  std::ifstream in(f.dir / "build" / "warplens" / "compile_commands.json");
  json out = json::parse(in);
  REQUIRE(out.size() == 2);
  std::vector<std::string> args = out[0]["arguments"];
  CAPTURE(out[0].dump());
  auto has = [&](const std::string& a) { return std::find(args.begin(), args.end(), a) != args.end(); };
  CHECK(args.front() == "clang++");
  CHECK(args.back() == cu);
  CHECK(has("--cuda-gpu-arch=sm_90"));       // the highest -gencode
  CHECK(has("-fgpu-rdc"));                   // -rdc=true
  CHECK(has("-I" + (f.dir / "inc").string()));
  for (const char* gone : {"-gencode", "-ccbin", "--expt-relaxed-constexpr", "-Xcompiler", "-rdc=true", "-fsyntax-only",
                           "--cuda-device-only", "-o", "-c"})
    CHECK_MESSAGE(!has(gone), gone);
  for (const auto& a : args) CHECK_MESSAGE(a.rfind("-resource-dir", 0) != 0, a);  // clangd's own
  CHECK(out[1]["arguments"] == json({"g++", "-O2", "-c", "src/host.cpp", "-o", "host.o"}));  // not CUDA: as written
  // The user's database is never written.
  std::ifstream again(f.dir / "build" / "compile_commands.json");
  CHECK(std::string(std::istreambuf_iterator<char>(again), {}) == original);
  // --out onto the input is refused.
  auto onto = run_warplens({"compile-db", "-p", "build", "--out", "build/compile_commands.json"}, 120s);
  CHECK(onto.exit_code == 2);
  CHECK_MESSAGE(onto.err.find("is the input database") != std::string::npos, onto.err);
  auto none = run_warplens({"compile-db", "-p", "nowhere"}, 120s);
  CHECK(none.exit_code == 2);
  CHECK_MESSAGE(none.err.find("no compile_commands.json at nowhere") != std::string::npos, none.err);
}

TEST_CASE("compile-db: clangd parses the translated entry without errors" * warplens::test::needs("clangd-19")) {
  Files f;
  f.write("inc/shape.cuh", "#pragma once\n#define SHAPE_DEFINED 1\n#define STRIDE 32\n");
  std::string cu = f.write("src/file.cu", kIncludingKernel);
  json db = json::array();
  db.push_back({{"directory", f.dir.string()}, {"file", "src/file.cu"},
                {"command", "nvcc -Iinc -arch=sm_90 --expt-relaxed-constexpr -Xcompiler -fPIC -c src/file.cu"}});
  f.write("build/compile_commands.json", db.dump());
  InDirectory here(f.dir);
  auto r = run_warplens({"compile-db", "-p", "build"}, 120s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // clangd itself, on the raw nvcc entry and on the translated one.
  auto clangd = [&](const std::string& dir) {
    std::string cmd = clangd_binary() + " --check=" + cu + " --compile-commands-dir=" + dir + " 2>&1";
    std::string text;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) text.append(buf, n);
      ::pclose(p);
    }
    return text;
  };
  std::string raw = clangd((f.dir / "build").string());
  std::string translated = clangd((f.dir / "build" / "warplens").string());
  CAPTURE(raw);
  CAPTURE(translated);
  CHECK(translated.find("All checks completed, 0 errors") != std::string::npos);
}
