// A candidate as a unified diff (`diff -u` / `git diff` format) that
// `git apply` and `patch -p1` accept: what the optimize report shows and
// what `--candidates-only --out DIR` writes next to each candidate, so a
// user can review and apply a rewrite with the tools they already use.
#pragma once

#include <string>
#include <string_view>

namespace warplens::agent {

// The unified diff turning `before` into `after`, with `context` unchanged
// lines around each change (hunks closer than 2*context merge, as diff -u
// does). `path` names the file in the `--- a/PATH` / `+++ b/PATH` header;
// pass it relative to the directory the patch is applied from. A missing
// final newline is marked "\ No newline at end of file". Empty when the
// texts are equal.
std::string unified_diff(std::string_view before, std::string_view after, std::string_view path, int context = 3);

// `file` as a patch header path: relative to `base` when it lies under it,
// otherwise its file name (git apply refuses absolute and `..` paths).
std::string patch_path(std::string_view file, std::string_view base);

// Where a patch for `file` is applied from: the top of the git working tree
// that holds it (what `git apply` reads paths against, from any directory
// of the tree), else `fallback` (the current directory).
std::string patch_base(std::string_view file, std::string_view fallback);

}  // namespace warplens::agent
