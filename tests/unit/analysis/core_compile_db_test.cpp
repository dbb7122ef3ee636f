// compile_commands.json discovery, validation and entry selection.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "analysis/compile_db.h"

// GCC 12 warns falsely on `"literal" + std::string` (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

using namespace warplens;
namespace fs = std::filesystem;

namespace {

// A scratch project tree, removed at the end of the test.
struct Project {
  fs::path root;
  explicit Project(const std::string& name) : root(fs::temp_directory_path() / ("warplens_cdb_" + name)) {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~Project() { fs::remove_all(root); }
  std::string write(const std::string& rel, const std::string& text) const {
    fs::path p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path(const std::string& rel) const { return (root / rel).lexically_normal().string(); }
};

std::string entry(const std::string& dir, const std::string& file, const std::string& command) {
  return R"({"directory": ")" + dir + R"(", "file": ")" + file + R"(", "command": ")" + command + R"("})";
}

}  // namespace

TEST_CASE("compile_commands.json is found upward, also in build/") {
  Project p("find");
  std::string src = p.write("src/deep/k.cu", "");
  CHECK(find_compile_commands(src, "") == "");
  std::string db = p.write("build/compile_commands.json", "[]");
  CHECK(find_compile_commands(src, "") == db);
  std::string closer = p.write("src/compile_commands.json", "[]");
  CHECK(find_compile_commands(src, "") == closer);
  // An explicit directory (or file) wins and is not searched around.
  CHECK(find_compile_commands(src, p.path("build")) == db);
  CHECK(find_compile_commands(src, db) == db);
  CHECK(find_compile_commands(src, p.path("nowhere")) == "");
}

TEST_CASE("a file's own entry is used and translated") {
  Project p("own");
  std::string src = p.write("src/k.cu", "");
  p.write("build/compile_commands.json",
          "[" + entry(p.path("build"), "../src/k.cu", "/usr/local/cuda/bin/nvcc -DOWN -arch=sm_80 -c ../src/k.cu") +
              "," + entry(p.path("build"), p.path("src/other.cu"), "nvcc -DOTHER -c other.cu") + "]");
  auto c = find_command_for_file(src, "");
  REQUIRE(c.command);
  CHECK(c.command->args == std::vector<std::string>{"-DOWN"});
  CHECK(c.command->gpu_archs == std::vector<std::string>{"sm_80"});
  CHECK(c.description == "compile_commands.json: " + p.path("build/compile_commands.json"));
  CHECK(c.directory == p.path("build"));
  CHECK(c.context_file.empty());
  CHECK(c.findings.empty());
}

TEST_CASE("a header is parsed in the context of a source that includes it") {
  Project p("header");
  std::string header = p.write("include/lib/util.cuh", "#pragma once\n");
  p.write("src/a.cu", "#include <cstdio>\n");
  std::string b = p.write("src/b.cu", "#include \"lib/util.cuh\"\n");
  p.write("build/compile_commands.json",
          "[" + entry(p.path("build"), p.path("src/a.cu"), "nvcc -DA -I../include -c ../src/a.cu") + "," +
              entry(p.path("build"), p.path("src/b.cu"), "nvcc -DB -I../include -c ../src/b.cu") + "]");
  auto c = find_command_for_file(header, "");
  REQUIRE(c.command);
  CHECK(c.context_file == b);
  CHECK(c.command->args == std::vector<std::string>{"-DB", "-I" + p.path("include")});
  CHECK(c.description.find("included from " + b) != std::string::npos);
}

TEST_CASE("a file without an entry borrows the flags of the nearest source") {
  Project p("nearest");
  std::string lone = p.write("src/kernels/new.cu", "");
  p.write("compile_commands.json",
          "[" + entry(p.path("."), p.path("tools/t.cu"), "nvcc -DTOOLS -c tools/t.cu") + "," +
              entry(p.path("."), p.path("src/kernels/k.cu"), "nvcc -DKERNELS -c src/kernels/k.cu") + "]");
  auto c = find_command_for_file(lone, "");
  REQUIRE(c.command);
  CHECK(c.command->args == std::vector<std::string>{"-DKERNELS"});
  CHECK(c.context_file.empty());
  CHECK(c.description.find("flags of " + p.path("src/kernels/k.cu")) != std::string::npos);
}

TEST_CASE("a broken compile_commands.json gives a compile-command finding and defaults") {
  Project p("broken");
  std::string src = p.write("k.cu", "");
  SUBCASE("invalid JSON, with the line of the error") {
    p.write("compile_commands.json", "[\n  {\"directory\": \"/x\",\n   \"file\": oops}\n]");
    auto c = find_command_for_file(src, "");
    CHECK_FALSE(c.command);
    CHECK(c.description == "defaults");
    REQUIRE(c.findings.size() == 1);
    const Finding& f = c.findings[0];
    CHECK(f.code == "compile-command");
    CHECK(f.severity == Severity::Warning);
    CHECK(f.location.file == src);
    CHECK(f.message.find("invalid JSON") != std::string::npos);
    REQUIRE(f.related.size() == 1);
    CHECK(f.related[0].location.file == p.path("compile_commands.json"));
    CHECK(f.related[0].location.range.start.line == 2);
  }
  SUBCASE("not an array") {
    p.write("compile_commands.json", "{\"file\": \"k.cu\"}");
    auto c = find_command_for_file(src, "");
    CHECK_FALSE(c.command);
    REQUIRE(c.findings.size() == 1);
    CHECK(c.findings[0].message.find("not an array") != std::string::npos);
  }
  SUBCASE("entries with missing fields are skipped, good ones still used") {
    std::string text = "[{\"file\": \"k.cu\", \"command\": \"nvcc -DBAD\"}, {\"directory\": 3}, " +
                       entry(p.path("."), "k.cu", "nvcc -DGOOD -c k.cu") + "]";
    auto load = parse_compile_database(text, p.path("compile_commands.json"));
    REQUIRE(load.database);
    CHECK(load.database->commands.size() == 1);
    CHECK(load.warnings.size() == 2);
    p.write("compile_commands.json", text);
    auto c = find_command_for_file(src, "");
    REQUIRE(c.command);
    CHECK(c.command->args == std::vector<std::string>{"-DGOOD"});
  }
  SUBCASE("\"arguments\" must be strings") {
    auto load = parse_compile_database(R"([{"directory": "/", "file": "k.cu", "arguments": ["nvcc", 3]}])", "/db.json");
    REQUIRE(load.database);
    CHECK(load.database->commands.empty());
    CHECK(load.warnings.size() == 1);
  }
  SUBCASE("an explicit directory without a database") {
    auto c = find_command_for_file(src, p.path("missing-build"));
    CHECK_FALSE(c.command);
    REQUIRE(c.findings.size() == 1);
    CHECK(c.findings[0].code == "compile-command");
  }
  SUBCASE("an unreadable options file is reported") {
    p.write("compile_commands.json", "[" + entry(p.path("."), "k.cu", "nvcc --options-file gone.rsp -DX -c k.cu") + "]");
    auto c = find_command_for_file(src, "");
    REQUIRE(c.command);
    CHECK(c.command->args == std::vector<std::string>{"-DX"});
    REQUIRE(c.findings.size() == 1);
    CHECK(c.findings[0].message.find("gone.rsp") != std::string::npos);
  }
}

TEST_CASE("the database is re-read when it changes") {
  Project p("reload");
  std::string src = p.write("k.cu", "");
  std::string db = p.write("compile_commands.json", "[" + entry(p.path("."), "k.cu", "nvcc -DV1 -c k.cu") + "]");
  CHECK(find_command_for_file(src, "").command->args == std::vector<std::string>{"-DV1"});
  p.write("compile_commands.json", "[" + entry(p.path("."), "k.cu", "nvcc -DVERSION2 -c k.cu") + "]");
  CHECK(find_command_for_file(src, "").command->args == std::vector<std::string>{"-DVERSION2"});
}
