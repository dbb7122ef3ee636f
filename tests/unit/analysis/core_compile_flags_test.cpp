// compile_flags.txt: lookup (nested directories, the workspace bound),
// parsing (comments, blank lines, CRLF), relative -I, and its place in the
// precedence (a compile_commands.json entry wins; it beats a neighbour's
// borrowed flags).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "analysis/compile_db.h"
#include "analysis/compile_flags.h"
#include "analysis/parse_plan.h"

// GCC 12 warns falsely on `"literal" + std::string` (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

using namespace warplens;
namespace fs = std::filesystem;

namespace {

// A scratch tree under the temporary directory, removed at the end.
struct Tree {
  fs::path root;
  explicit Tree(const std::string& name) : root(fs::temp_directory_path() / ("warplens_cflags_" + name)) {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~Tree() { fs::remove_all(root); }
  std::string write(const std::string& rel, const std::string& text) const {
    fs::path p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string path(const std::string& rel) const { return (root / rel).lexically_normal().string(); }
  std::vector<std::string> roots() const { return {root.string()}; }
};

std::string entry(const std::string& dir, const std::string& file, const std::string& command) {
  return R"({"directory": ")" + dir + R"(", "file": ")" + file + R"(", "command": ")" + command + R"("})";
}

}  // namespace

TEST_CASE("compile_flags.txt: one flag per line, comments and blank lines skipped") {
  CHECK(parse_compile_flags("") == std::vector<std::string>{});
  CHECK(parse_compile_flags("-Iinc\n-DX=1\n") == std::vector<std::string>{"-Iinc", "-DX=1"});
  CHECK(parse_compile_flags("# a comment\n\n  -I\n  inc  \r\n\t\n-std=c++20") ==
        std::vector<std::string>{"-I", "inc", "-std=c++20"});
  // No shell quoting: a line is one argument as written.
  CHECK(parse_compile_flags("-DGREETING=\"hi there\"\n") == std::vector<std::string>{"-DGREETING=\"hi there\""});
}

TEST_CASE("compile_flags.txt is found in the file's directory or the nearest parent") {
  Tree t("find");
  std::string src = t.write("a/b/c/k.cu", "");
  CHECK(find_compile_flags(src, t.roots()) == "");
  std::string top = t.write("compile_flags.txt", "-DTOP\n");
  CHECK(find_compile_flags(src, t.roots()) == top);
  std::string mid = t.write("a/compile_flags.txt", "-DMID\n");
  CHECK(find_compile_flags(src, t.roots()) == mid);
  std::string own = t.write("a/b/c/compile_flags.txt", "-DOWN\n");
  CHECK(find_compile_flags(src, t.roots()) == own);
  // A directory named compile_flags.txt is not one.
  fs::remove(own);
  fs::create_directories(t.path("a/b/compile_flags.txt"));
  CHECK(find_compile_flags(src, t.roots()) == mid);
}

TEST_CASE("the search stops at the innermost workspace folder holding the file") {
  Tree t("bound");
  std::string src = t.write("ws/proj/src/k.cu", "");
  t.write("compile_flags.txt", "-DOUTSIDE\n");
  CHECK(find_compile_flags(src, {t.path("ws")}) == "");
  CHECK(find_compile_flags(src, {t.path("ws/proj/"), t.path("ws")}) == "");
  std::string at_root = t.write("ws/proj/compile_flags.txt", "-DROOT\n");
  CHECK(find_compile_flags(src, {t.path("ws"), t.path("ws/proj")}) == at_root);
  // A folder that does not hold the file does not bound it.
  CHECK(find_compile_flags(t.write("other/x.cu", ""), {t.path("ws")}) == t.path("compile_flags.txt"));
}

TEST_CASE("compile_flags.txt flags are used without a database; relative -I against its directory") {
  Tree t("use");
  std::string src = t.write("proj/src/k.cu", "");
  std::string flags = t.write("proj/compile_flags.txt",
                              "# project flags\n-I\ninclude\n-Ithird_party/cub\n-isystem\n/opt/x\n-DN=4\n\n"
                              "-std=c++20\n-o\nout.o\n");
  auto c = find_command_for_file(src, "", t.roots());
  REQUIRE(c.command);
  CHECK(c.command->args == std::vector<std::string>{"-I", t.path("proj/include"), "-I" + t.path("proj/third_party/cub"),
                                                    "-isystem", "/opt/x", "-DN=4", "-std=c++20"});
  CHECK(c.command->sets_language_standard);
  CHECK(c.description == "compile_flags.txt: " + flags);
  CHECK(c.flags_file == flags);
  CHECK(c.directory == t.path("proj"));
  CHECK(c.database_path.empty());
  // nvcc (resource usage) runs the flags as written, in that directory.
  REQUIRE(c.arguments.size() == 10);
  CHECK(c.arguments[0] == "clang++");
  CHECK(c.findings.empty());
}

TEST_CASE("a compile_commands.json entry wins over compile_flags.txt") {
  Tree t("precedence");
  std::string src = t.write("src/k.cu", "");
  std::string lone = t.write("src/new.cu", "");
  t.write("src/compile_flags.txt", "-DFLAGS_FILE\n");
  t.write("compile_commands.json", "[" + entry(t.path("."), t.path("src/k.cu"), "nvcc -DDATABASE -c src/k.cu") + "]");
  auto own = find_command_for_file(src, "", t.roots());
  REQUIRE(own.command);
  CHECK(own.command->args == std::vector<std::string>{"-DDATABASE"});
  CHECK(own.flags_file.empty());
  // A file the database does not list: compile_flags.txt, not k.cu's flags.
  auto other = find_command_for_file(lone, "", t.roots());
  REQUIRE(other.command);
  CHECK(other.command->args == std::vector<std::string>{"-DFLAGS_FILE"});
  CHECK(other.description == "compile_flags.txt: " + t.path("src/compile_flags.txt"));
  // Without compile_flags.txt it borrows k.cu's, as before.
  fs::remove(t.path("src/compile_flags.txt"));
  auto borrowed = find_command_for_file(lone, "", t.roots());
  REQUIRE(borrowed.command);
  CHECK(borrowed.command->args == std::vector<std::string>{"-DDATABASE"});
}

TEST_CASE("compile_flags.txt is used when the database cannot be") {
  Tree t("broken-db");
  std::string src = t.write("k.cu", "");
  t.write("compile_flags.txt", "-DFALLBACK\n");
  t.write("compile_commands.json", "not json");
  auto c = find_command_for_file(src, "", t.roots());
  REQUIRE(c.command);
  CHECK(c.command->args == std::vector<std::string>{"-DFALLBACK"});
  REQUIRE(c.findings.size() == 1);
  CHECK(c.findings[0].code == "compile-command");
  CHECK(c.findings[0].message.find("analysing without it") != std::string::npos);
}

TEST_CASE("the parse plan bounds the compile_flags.txt search by the options' workspace roots") {
  // The server passes its workspace folders (AnalysisOptions::workspace_roots);
  // a compile_flags.txt above them belongs to something else.
  Tree t("plan");
  std::string src = t.write("ws/proj/k.cu", "__global__ void k() {}\n");
  std::string outside = t.write("compile_flags.txt", "-DOUTSIDE\n");
  AnalysisOptions o;
  ToolchainStatus tc;
  std::vector<Finding> diags;
  plan_parse({src, "__global__ void k() {}\n"}, o, "", tc, diags);
  CHECK(tc.compile_command_source == "compile_flags.txt: " + outside);  // the CLI: every parent
  o.workspace_roots = {t.path("ws")};
  ToolchainStatus bounded;
  plan_parse({src, "__global__ void k() {}\n"}, o, "", bounded, diags);
  CHECK(bounded.compile_command_source.find("compile_flags.txt") == std::string::npos);
}
