// Issue 21: inputs that crashed, hung or exhausted the analysis. Each test
// is the input as found (tests/fixtures/robustness/) or its generator, and
// fails without the fix: a crash (the test binary dies), a hang (the
// watchdog's deadline), or the wrong result.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/analyzer.h"
#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/robustness/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in, name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Timed {
  AnalysisResult result;
  double seconds = 0;
};

// The analysis of `text` as the server runs it, in degraded mode unless the
// toolkit is asked for (fast, and the rule under test is the same).
Timed analyse(const std::string& text, AnalysisOptions options = {}, Toolchain toolchain = Toolchain::Prelude) {
  auto t0 = Clock::now();
  Snippet s = parse_snippet(text, toolchain, options);
  return {std::move(s.result), std::chrono::duration<double>(Clock::now() - t0).count()};
}

std::vector<const Finding*> with_code(const AnalysisResult& r, const std::string& code) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.code == code) out.push_back(&f);
  return out;
}

std::string messages(const AnalysisResult& r) {
  std::string out;
  for (const auto& f : r.findings) out += "[" + f.code + "] " + f.message + "\n";
  return out;
}

}  // namespace

TEST_CASE("D: a dim3 built from an undeclared name, feeding a launch") {
  Timed t = analyse(fixture("dim3_undeclared.cu"));
  CHECK(t.result.parsed);
  CHECK_MESSAGE(messages(t.result).find("use of undeclared identifier 'nope'") != std::string::npos,
                messages(t.result));
  REQUIRE(t.result.model.launches.size() == 1);
  CHECK_FALSE(t.result.model.launches[0].block.value.has_value());  // unknown, not made up
  // The same shapes of ill-formed code around launches and allocations.
  for (const char* text : {
           "__global__ void k() {}\nvoid h() { dim3 g(nope), b(nope2, 1); k<<<g, b>>>(); }\n",
           "__global__ void k() {}\nvoid h() { dim3 b = {32, nope}; k<<<b.x, b>>>(); }\n",
           "__global__ void k() {}\nvoid h() { auto b = nope(3); k<<<1, b, nope>>>(); }\n",
           "__global__ void k(float*) {}\nvoid h() { float* p; cudaMalloc(&p, nope * 4); k<<<1, dim3(nope)>>>(p); }\n",
           "template <int N> __global__ void k() {}\nvoid h() { dim3 b(32, nope); k<nope><<<1, b>>>(); }\n"}) {
    CAPTURE(text);
    Timed u = analyse(text);
    CHECK(u.result.parsed);
  }
}

TEST_CASE("a launch naming an undeclared variable, of a kernel whose declaration is invalid") {
  // Clang 19's delayed typo correction recursed on this without end and
  // overflowed the stack (it needs the toolkit's launch API: mode A).
  for (Toolchain toolchain : {Toolchain::Cuda, Toolchain::Prelude}) {
    Timed t = analyse(fixture("typo_launch_recursion.cu"), {}, toolchain);
    CHECK(t.result.parsed);
    CHECK_MESSAGE(messages(t.result).find("use of undeclared identifier 'threads'") != std::string::npos,
                  messages(t.result));
  }
  // The same in other spellings of the launch configuration.
  for (const char* text : {"__global__ void g(co v) {}\nint main() { g<<<threads, 1>>>(0); }\n",
                           "__global__ void g(co v, int n) {}\nint main() { g<<<dim3(nx, 1), 32, shm>>>(0, 1); }\n",
                           "__global__ void g(co* v) {}\nint main() { g<<<1, 1, 0, strm>>>(nullptr); }\n"}) {
    CAPTURE(text);
    Timed u = analyse(text, {}, Toolchain::Cuda);
    CHECK(u.result.parsed);
  }
}

TEST_CASE("Clang crashing on a file is a warning on that file, not the end of the process") {
  // `#pragma clang __debug crash` is Clang's own way to crash (a trap:
  // SIGILL) in the middle of a parse: it stands for a Clang bug that invalid
  // code reaches. Not a .cu under tests/: every one is a fuzzer seed, and the
  // fuzzers turn recovery off.
  const std::string text = "#pragma clang __debug crash\n__global__ void k(float* p) { p[0] = 1; }\n";
  Timed t = analyse(text);
  CHECK_FALSE(t.result.parsed);
  auto limit = with_code(t.result, codes::kAnalysisLimit);
  REQUIRE_MESSAGE(limit.size() == 1, messages(t.result));
  CHECK_MESSAGE(limit[0]->message.find("not analysed: the C++ front end (Clang 19) crashed on this file (SIGILL") == 0,
                limit[0]->message);
  CHECK(limit[0]->severity == Severity::Warning);
  CHECK(t.result.model.functions.empty());
  // The same text of the same file again is not parsed again (each
  // recovered crash leaks): the editor asks for hover, lenses, actions.
  AnalysisOptions options;
  options.cuda_path = "/nonexistent";
  options.run_static_analyses = false;
  const std::string path = "/tmp/warplens_crash_memo.cu";
  AnalysisResult first = analyze({path, text}, options);
  REQUIRE(with_code(first, codes::kAnalysisLimit).size() == 1);
  AnalysisResult again = analyze({path, text}, options);
  auto second = with_code(again, codes::kAnalysisLimit);
  REQUIRE(second.size() == 1);
  CHECK_MESSAGE(second[0]->message.find("crashed on this text before") != std::string::npos, second[0]->message);
  // And the process goes on parsing other files.
  Timed next = analyse("__global__ void k(float* p) { p[threadIdx.x] = 1; }\n");
  CHECK(next.result.parsed);
  CHECK(next.result.model.functions.size() == 1);
}

TEST_CASE("E: a 30,000-term expression is analysed; deeper nesting is refused, not a crash") {
  std::string sum = "__global__ void k(float* a) { a[0] = 1";
  for (int i = 0; i < 30000; ++i) sum += " + 1";
  sum += "; }\n";
  Timed t = analyse(sum);
  CHECK_MESSAGE(t.result.parsed, messages(t.result));
  CHECK(with_code(t.result, codes::kAnalysisLimit).empty());
  CHECK(t.result.model.functions.size() == 1);

  // 200,000 unary minus: Clang's recursive descent needs ~1 GiB of stack
  // for it (clang -fsyntax-only itself dies at ~1,600 on 8 MiB).
  std::string unary = "__global__ void k(int* a) { a[0] = ";
  for (int i = 0; i < 200000; ++i) unary += "- ";
  unary += "1; }\n";
  Timed u = analyse(unary);
  CHECK_FALSE(u.result.parsed);
  auto limit = with_code(u.result, codes::kAnalysisLimit);
  REQUIRE(limit.size() == 1);
  CHECK(limit[0]->message.rfind("too large to analyse: nested too deeply for the parser", 0) == 0);
  CHECK(limit[0]->severity == Severity::Warning);
  CHECK(limit[0]->location.range.start.line == 0);

  // A 1,000,000-term sum: Clang parses it without recursion, but walks it
  // recursively afterwards.
  std::string huge = "__global__ void k(float* a) { a[0] = 1";
  for (int i = 0; i < 1000000; ++i) huge += "+1";
  huge += "; }\n";
  Timed h = analyse(huge);
  limit = with_code(h.result, codes::kAnalysisLimit);
  REQUIRE(limit.size() == 1);
  CHECK(limit[0]->message == "too large to analyse: an expression of more than 400000 tokens (the limit)");
  // A braced table of the same size is a list, not an expression.
  std::string table = "__device__ int t[] = {1";
  for (int i = 0; i < 500000; ++i) table += ",1";
  table += "};\n__global__ void k(int* a) { a[threadIdx.x] = t[threadIdx.x]; }\n";
  Timed tb = analyse(table);
  CHECK_MESSAGE(tb.result.parsed, messages(tb.result));
  CHECK(with_code(tb.result, codes::kAnalysisLimit).empty());
}

TEST_CASE("statements nested without braces: a few thousand are analysed, 100,000 refused at once") {
  // Each `if` opens a scope and Clang looks `c` up through all of them:
  // quadratic (100,000 ran into the 120 s time limit before the limit).
  auto nested = [](int n) {
    std::string text = "__global__ void k(int c, int* a) { ";
    for (int i = 0; i < n; ++i) text += "if (c) ";
    return text + "a[0] = 1; }\n";
  };
  Timed ok = analyse(nested(1500));
  CHECK_MESSAGE(ok.result.parsed, messages(ok.result));
  CHECK(with_code(ok.result, codes::kAnalysisLimit).empty());
  Timed deep = analyse(nested(100000));
  CHECK_FALSE(deep.result.parsed);
  auto limit = with_code(deep.result, codes::kAnalysisLimit);
  REQUIRE(limit.size() == 1);
  CHECK(limit[0]->message == "too large to analyse: more than 2000 statements nested without braces (the limit)");
  CHECK(deep.seconds < 30);
  // Sequential statements and else-if chains with braces are not nesting.
  std::string chain = "__global__ void k(int c, int* a) { ";
  for (int i = 0; i < 2000; ++i) chain += "if (c == " + std::to_string(i) + ") { a[0] = 1; } else ";
  chain += "{ a[0] = 2; }\n for (int i = 0; i < 3; ++i) a[i] = i; }\n";
  Timed c = analyse(chain);
  CHECK(with_code(c.result, codes::kAnalysisLimit).empty());
}

TEST_CASE("the macro bomb stops at the token limit, in seconds") {
  AnalysisOptions options;
  options.limits.max_tokens = 2'000'000;
  Timed t = analyse(fixture("macro_bomb.cu"), options);
  CHECK_FALSE(t.result.parsed);
  auto limit = with_code(t.result, codes::kAnalysisLimit);
  REQUIRE(limit.size() == 1);
  CHECK(limit[0]->message ==
        "too large to analyse: more than 2000000 preprocessor tokens (headers and macro expansions included; the "
        "limit)");
  CHECK(t.seconds < 30);
  // The AST memory limit, the same way.
  options = {};
  options.limits.max_ast_bytes = 64u << 20;
  t = analyse(fixture("macro_bomb.cu"), options);
  limit = with_code(t.result, codes::kAnalysisLimit);
  REQUIRE(limit.size() == 1);
  CHECK(limit[0]->message == "too large to analyse: the parse took more than 64.0 MiB of memory (the limit)");
}

TEST_CASE("the time limit") {
  AnalysisOptions options;
  options.limits.max_time = std::chrono::milliseconds(300);
  Timed t = analyse(fixture("macro_bomb.cu"), options);
  auto limit = with_code(t.result, codes::kAnalysisLimit);
  REQUIRE(limit.size() == 1);
  CHECK(limit[0]->message == "too large to analyse: the analysis took longer than 0.3 s (the limit)");
  CHECK(t.seconds < 10);
  CHECK_FALSE(t.result.cancelled);
}

TEST_CASE("a 5 MiB document and a binary one are refused at once, with one finding") {
  std::string big = "__global__ void k(float* a) { a[threadIdx.x] = 0; }\n";
  while (big.size() < (5u << 20)) big += "// padding padding padding padding padding padding padding padding\n";
  Timed t = analyse(big);
  REQUIRE(t.result.findings.size() == 1);
  CHECK(t.result.findings[0].code == codes::kAnalysisLimit);
  CHECK(t.result.findings[0].message == "too large to analyse: 5.0 MiB of source (the limit is 4.0 MiB)");
  CHECK(t.seconds < 2);

  std::string elf("\x7f" "ELF\x02\x01\x01", 7);
  elf += std::string(200, '\0') + "garbage { } ( ; int";
  Timed b = analyse(elf);
  REQUIRE(b.result.findings.size() == 1);
  CHECK(b.result.findings[0].message ==
        "not analysed: a binary file (an ELF file (an executable, library or object file)), not CUDA source");
}

TEST_CASE("F: #include of /dev/stdin, /proc/self/fd/0, /dev/zero, a FIFO, a binary: refused, never read") {
  for (const char* name : {"include_stdin.cu", "include_proc_fd0.cu", "include_dev_zero.cu", "include_binary.cu"}) {
    CAPTURE(name);
    Timed t = analyse(fixture(name));
    CHECK(t.seconds < 30);
    auto refused = with_code(t.result, codes::kAnalysisLimit);
    REQUIRE_MESSAGE(refused.size() == 1, messages(t.result));
    CHECK(refused[0]->message.rfind("warplens did not read /", 0) == 0);
    CHECK(t.result.parsed);  // the rest of the file is analysed
    CHECK(t.result.model.functions.size() == 1);
  }
  // A FIFO nobody writes to: opening it for reading blocks until a writer comes.
  fs::path dir = fs::temp_directory_path() / ("warplens-fifo-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string fifo = (dir / "pipe.h").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  Timed t = analyse("#include \"" + fifo + "\"\n__global__ void k(float* a) { a[0] = 1; }\n");
  CHECK(t.seconds < 30);
  auto refused = with_code(t.result, codes::kAnalysisLimit);
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]->message == "warplens did not read " + fifo +
                                   ": not a regular file (a FIFO (named pipe)); warplens reads only regular files");
  fs::remove_all(dir);
}

TEST_CASE("a flood of errors is cut at 1000 diagnostics") {
  std::string garbage;
  for (int i = 0; i < 5000; ++i) garbage += "int x" + std::to_string(i) + " = @;\n";  // one error per line; no $ or ^ (annotation syntax)
  Timed t = analyse(garbage);
  CHECK(t.result.findings.size() <= 1010);
  bool summary = false;
  for (const auto& f : t.result.findings) summary |= f.message.find("more diagnostics not shown") != std::string::npos;
  CHECK(summary);
}
