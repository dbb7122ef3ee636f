// Minimal edits between two versions of a file: what the editor applies when
// the user accepts a candidate (instead of replacing the whole buffer, which
// would move their cursor and folds).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings.h"

namespace warplens::agent {

// `s` split into lines, each with its terminating '\n' (the last may lack it).
std::vector<std::string_view> lines_of(std::string_view s);

// Line-based diff (longest common subsequence of lines, after trimming the
// common prefix and suffix). Each edit replaces whole lines of `before`
// (byte ranges, source_range.h conventions); applying all of them to
// `before` gives exactly `after`.
std::vector<TextEdit> minimal_edits(std::string_view before, std::string_view after);

// Applies non-overlapping edits (any order) to `text`. Returns false when a
// range lies outside the text or edits overlap.
bool apply_edits(std::string& text, const std::vector<TextEdit>& edits);

// FNV-1a of a text: identifies the version an edit was computed against.
std::uint64_t text_hash(std::string_view text);

}  // namespace warplens::agent
