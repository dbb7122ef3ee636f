// Candidates as unified diffs (agent/unified_diff.h): the whole text of
// each diff checked, and every diff applied by `git apply` to give exactly
// the candidate.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/unified_diff.h"
#include "common/subprocess.h"
#include "tests/support/requirements.h"

using warplens::agent::patch_path;
using warplens::agent::unified_diff;
using warplens::test::needs;
namespace fs = std::filesystem;

namespace {

std::string numbered(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

std::string git_binary() {
  for (const char* g : {"/usr/bin/git", "/usr/local/bin/git"})
    if (::access(g, X_OK) == 0) return g;
  return "";
}

// `git apply` of `patch` (naming "k.cu") to `before` in a scratch directory: the result.
std::string git_applied(const std::string& before, const std::string& patch) {
  const fs::path dir = fs::temp_directory_path() / ("warplens-patch-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "k.cu", std::ios::binary) << before;
  std::ofstream(dir / "c.patch", std::ios::binary) << patch;
  warplens::ProcessSpec spec;
  spec.argv = {git_binary(), "apply", "--unsafe-paths", "--whitespace=nowarn", "c.patch"};
  spec.working_directory = dir.string();
  spec.capture_output = true;
  const auto r = warplens::run_process(spec);
  INFO("git apply: " << r.err);
  CHECK(r.succeeded());
  std::ifstream in(dir / "k.cu", std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  fs::remove_all(dir);
  return s.str();
}

}  // namespace

WARPLENS_REQUIREMENT("git", [] {
  return git_binary().empty() ? warplens::test::missing("git is not installed") : warplens::test::met();
});

TEST_CASE("unified diff: one change with three lines of context each side") {
  const std::string before = numbered(1, 10);
  std::string after = before;
  after.replace(after.find("line 5\n"), 7, "LINE FIVE\nline 5b\n");
  CHECK(unified_diff(before, after, "src/k.cu") ==
        "--- a/src/k.cu\n+++ b/src/k.cu\n"
        "@@ -2,7 +2,8 @@\n"
        " line 2\n line 3\n line 4\n-line 5\n+LINE FIVE\n+line 5b\n line 6\n line 7\n line 8\n");
}

TEST_CASE("unified diff: changes close together share a hunk, distant ones do not") {
  const std::string before = numbered(1, 30);
  std::string after = before;
  after.replace(after.find("line 3\n"), 7, "");                  // delete line 3
  after.replace(after.find("line 8\n"), 7, "line 8\nnew 8a\n");  // insert after 8 (gap of 4 <= 6: merged)
  after.replace(after.find("line 25\n"), 8, "line twenty-five\n");
  CHECK(unified_diff(before, after, "k.cu") ==
        "--- a/k.cu\n+++ b/k.cu\n"
        "@@ -1,11 +1,11 @@\n"
        " line 1\n line 2\n-line 3\n line 4\n line 5\n line 6\n line 7\n line 8\n+new 8a\n line 9\n line 10\n"
        " line 11\n"
        "@@ -22,7 +22,7 @@\n"
        " line 22\n line 23\n line 24\n-line 25\n+line twenty-five\n line 26\n line 27\n line 28\n");
}

TEST_CASE("unified diff: edges of the file, a missing final newline, equal texts") {
  CHECK(unified_diff("a\nb\n", "a\nb\n", "k.cu").empty());
  CHECK(unified_diff("a\nb\n", "z\na\nb\n", "k.cu") == "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,3 @@\n+z\n a\n b\n");
  CHECK(unified_diff("a\nb", "a\nc", "k.cu") ==
        "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
        "\\ No newline at end of file\n");
  // diff -u: an empty range names the line before it (0 at the top).
  CHECK(unified_diff("a\n", "", "k.cu") == "--- a/k.cu\n+++ b/k.cu\n@@ -1 +0,0 @@\n-a\n");
}

TEST_CASE("patch paths: relative to the directory the patch is applied from, never absolute or outside") {
  CHECK(patch_path("/work/proj/src/k.cu", "/work/proj") == "src/k.cu");
  CHECK(patch_path("/elsewhere/k.cu", "/work/proj") == "k.cu");
  CHECK(patch_path("src/./k.cu", "/work/proj") == "src/k.cu");
  CHECK(patch_path("../k.cu", "/work/proj") == "k.cu");
}

TEST_CASE("patch base: the top of the git working tree holding the file, else the fallback") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("warplens-patch-base-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "repo" / ".git");
  fs::create_directories(root / "repo" / "src" / "deep");
  fs::create_directories(root / "plain");
  const std::string file = (root / "repo" / "src" / "deep" / "k.cu").string();
  CHECK(warplens::agent::patch_base(file, "/cwd") == (root / "repo").string());
  CHECK(patch_path(file, warplens::agent::patch_base(file, "/cwd")) == "src/deep/k.cu");
  // A worktree or submodule has a .git file instead of a directory.
  std::ofstream(root / "plain" / ".git") << "gitdir: /elsewhere\n";
  CHECK(warplens::agent::patch_base((root / "plain" / "k.cu").string(), "/cwd") == (root / "plain").string());
  fs::remove(root / "plain" / ".git");
  // Outside any working tree (the temp directory is in none here): the fallback.
  if (!fs::exists(fs::temp_directory_path() / ".git") && !fs::exists("/.git"))
    CHECK(warplens::agent::patch_base((root / "plain" / "k.cu").string(), "/cwd") == "/cwd");
  fs::remove_all(root);
}

TEST_CASE("git apply takes every diff and gives exactly the candidate" * needs("git")) {
  const std::string before = numbered(1, 40);
  std::string mid_edit = before;
  mid_edit.replace(mid_edit.find("line 20\n"), 8, "__syncthreads();\nline 20\n");
  std::string many = before;
  many.replace(many.find("line 1\n"), 7, "#include <cuda_fp16.h>\nline 1\n");
  many.replace(many.find("line 15\n"), 8, "");
  many.replace(many.find("line 40\n"), 8, "line 40 (last, no newline)");
  std::string rewritten = "// all new\n" + numbered(100, 130);
  for (const std::string& after : {mid_edit, many, rewritten}) {
    const std::string patch = unified_diff(before, after, "k.cu");
    CHECK(git_applied(before, patch) == after);
  }
}
