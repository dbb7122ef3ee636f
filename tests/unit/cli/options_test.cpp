// cli/options.h: how every command reads its options through CLI11, and the
// compile flags (-I, -D, -U, -std, --cuda-path) declared on it.
#include <doctest/doctest.h>

#include <filesystem>

#include "cli/compile_flag_args.h"
#include "cli/options.h"

using namespace warplens::cli;
namespace fs = std::filesystem;

namespace {

// The UsageError message parse() throws, or "" when it does not throw.
std::string usage_error(OptionParser& p, const std::vector<std::string>& args) {
  try {
    p.parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("values: every spelling, the last one wins, repeatable ones keep their order") {
  std::string kernel, dir;
  std::vector<std::string> captures;
  bool json = false;
  OptionParser p;
  p.value("--kernel", kernel).value("-p,--compile-commands-dir", dir).values("--capture", captures).flag("--json", json);
  REQUIRE(p.parse({"--kernel", "a", "--capture=c1", "-pbuild", "x.cu", "--kernel=b", "--capture", "c2", "--json"}));
  CHECK(kernel == "b");
  CHECK(dir == "build");
  CHECK(captures == std::vector<std::string>{"c1", "c2"});
  CHECK(json);
  CHECK(p.positionals() == std::vector<std::string>{"x.cu"});
}

TEST_CASE("a value may look like an option; after -- everything is positional") {
  std::string kernel, budget;
  OptionParser p;
  p.value("--kernel", kernel).value("--budget", budget);
  REQUIRE(p.parse({"--budget", "-5", "--kernel", "--json", "--", "--kernel", "-weird.cu"}));
  CHECK(budget == "-5");
  CHECK(kernel == "--json");
  CHECK(p.positionals() == std::vector<std::string>{"--kernel", "-weird.cu"});
}

TEST_CASE("unknown options, missing values and the handlers' errors are usage errors in our words") {
  std::string format;
  OptionParser p("check");
  p.value("--format", [&](const std::string& v) {
    if (v != "text") throw UsageError("check: --format expects text, got `" + v + "`");
    format = v;
  });
  p.value("-p,--compile-commands-dir", [](const std::string&) {});
  CHECK(usage_error(p, {"--bogus", "x.cu"}) == "check: unknown option `--bogus`");
  OptionParser q("check");
  q.value("-p", [](const std::string&) {});
  CHECK(usage_error(q, {"-isystem", "inc", "x.cu"}) == "check: unknown option `-isystem`");  // the whole token
  OptionParser r("check");
  r.value("-p,--compile-commands-dir", [](const std::string&) {});
  CHECK(usage_error(r, {"x.cu", "-p"}) == "option -p needs a value");  // as typed
  OptionParser s("check");
  s.value("--format", [&](const std::string& v) {
    if (v != "text") throw UsageError("check: --format expects text, got `" + v + "`");
  });
  CHECK(usage_error(s, {"--format", "yaml"}) == "check: --format expects text, got `yaml`");
  OptionParser t;
  CHECK(usage_error(t, {"--bogus=1"}) == "unknown option `--bogus=1`");  // no command prefix
  // `--name=` is no way to give a value: CLI11 alone would take the next argument.
  std::string kernel;
  OptionParser u;
  u.value("--kernel", kernel);
  CHECK(usage_error(u, {"--kernel=", "x.cu"}) == "option --kernel needs a value (got `--kernel=`)");
  CHECK(kernel.empty());
  bool json = false;
  OptionParser v("optimize");
  v.flag("--json", json);
  CHECK(usage_error(v, {"--json=maybe"}) == "optimize: option --json takes no value, got `maybe`");
}

TEST_CASE("-h and --help make parse() return false") {
  for (const char* help : {"-h", "--help"}) {
    OptionParser p;
    std::string v;
    p.value("--out", v);
    CHECK_FALSE(p.parse({"--out", "x", help}));
  }
}

TEST_CASE("handlers run in command-line order (-DX -UX leaves X undefined)") {
  CompileFlagArgs flags;
  OptionParser p;
  add_compile_flags(p, flags);
  REQUIRE(p.parse({"-DX=1", "-U", "X", "-D", "Y", "-UY", "-DZ(a)=a"}));
  CHECK(flags.macro_flags == std::vector<std::string>{"-DX=1", "-UX", "-DY", "-UY", "-DZ(a)=a"});
  CHECK(flags.defines == std::vector<std::string>{"X=1", "Y", "Z(a)=a"});
}

TEST_CASE("compile flags: -I both ways (absolute), -std three ways, --cuda-path, and their refusals") {
  const fs::path here = fs::current_path();
  CompileFlagArgs flags;
  OptionParser p;
  add_compile_flags(p, flags);
  REQUIRE(p.parse({"-Iinc", "-I", "/abs/dir", "-std=c++20", "--std", "c++17", "--std=gnu++14", "f.cu"}));
  CHECK(flags.include_dirs == std::vector<std::string>{(here / "inc").string(), "/abs/dir"});
  CHECK(flags.language_standard == "gnu++14");
  CHECK(p.positionals() == std::vector<std::string>{"f.cu"});
  CHECK(flags.clang_args() == std::vector<std::string>{"-I" + (here / "inc").string(), "-I/abs/dir", "-std=gnu++14"});

  auto refused = [](const std::vector<std::string>& args) {
    CompileFlagArgs f;
    OptionParser q("check");
    add_compile_flags(q, f);
    return usage_error(q, args);
  };
  CHECK(refused({"-std=17"}) == "-std expects a C++ standard such as c++17 or c++20, got `17`");
  CHECK(refused({"-D", "1X"}) == "-D expects a macro name NAME or NAME=VALUE, got `1X`");
  CHECK(refused({"-UX=1"}) == "-U expects a macro name, got `X=1`");
  CHECK(refused({"-I=inc"}) == "-I takes the directory as -I DIR or -IDIR, got `-I=inc`");
  CHECK(refused({"-I", ""}) == "-I expects a directory, got an empty one");
  CHECK(refused({"--cuda-path", "/nonexistent/cuda"}) ==
        "--cuda-path expects a CUDA toolkit directory, got `/nonexistent/cuda`");
  CHECK(refused({"-std"}) == "check: unknown option `-std`");  // only -std=...
  // After --, -std=... is a file name, not rewritten.
  CompileFlagArgs f;
  OptionParser q;
  add_compile_flags(q, f);
  REQUIRE(q.parse({"--", "-std=c++20"}));
  CHECK(q.positionals() == std::vector<std::string>{"-std=c++20"});
  CHECK(f.language_standard.empty());
}

TEST_CASE("pass_through: the declared options are taken, everything else is kept in order") {
  std::string level;
  OptionParser p;
  p.pass_through();
  p.value("--log-level", level);
  REQUIRE(p.parse({"--listen", "127.0.0.1:0", "--log-level", "debug", "-j4", "check", "--help", "x.cu"}));
  CHECK(level == "debug");
  CHECK(p.rest() == std::vector<std::string>{"--listen", "127.0.0.1:0", "-j4", "check", "--help", "x.cu"});
}

TEST_CASE("numbers: finite decimals only; integers in range") {
  CHECK(finite_number("1.5") == 1.5);
  CHECK(finite_number("-5") == -5.0);
  CHECK(finite_number("1e3") == 1000.0);
  for (const char* bad : {"", "nan", "NaN", "inf", "-inf", "1e999", "0x10", " 5", "5 ", "5s", "1,5"}) {
    CAPTURE(bad);
    CHECK_FALSE(finite_number(bad).has_value());
  }
  CHECK(parse_int("--jobs", "4", 1, 1024) == 4);
  CHECK_THROWS_WITH_AS(parse_int("--jobs", "0", 1, 1024), "--jobs expects an integer from 1 to 1024, got `0`", UsageError);
  CHECK_THROWS_AS(parse_int("--jobs", "4x", 1, 1024), UsageError);
  CHECK_THROWS_AS(parse_int("--jobs", "+4", 1, 1024), UsageError);
  CHECK_THROWS_AS(parse_int("--debounce-ms", "99999999999999999999", 0, 10000), UsageError);
}

TEST_CASE("split_at_double_dash: the first -- splits, later ones belong to the program") {
  auto [options, program] = split_at_double_dash({"--kernel", "k", "--", "prog", "--", "-x"});
  CHECK(options == std::vector<std::string>{"--kernel", "k"});
  CHECK(program == std::vector<std::string>{"prog", "--", "-x"});
  auto [all, none] = split_at_double_dash({"a", "b"});
  CHECK(all == std::vector<std::string>{"a", "b"});
  CHECK(none.empty());
}
