// Findings computed for an older text of a document, carried onto its
// current text until fresh ones replace them (clangd's behaviour: a
// diagnostic stays until a newer analysis says otherwise, so the Problems
// count does not drop to zero while nvcc recompiles after each edit).
//
// The old and new texts are compared line by line: the lines before the
// first changed line and after the last one are the same text, so a range
// on them maps exactly (lines after the change shift by the number of lines
// added or removed). A finding that touches a changed line is dropped, and
// so is a fix with an edit there: its position is no longer known. A
// finding without a range (a file-level note) is kept as it is.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/findings.h"

namespace warplens::server {

// `findings` were computed for `old_text` of the file `path`; ranges in
// other files are kept unchanged.
std::vector<Finding> carry_findings(const std::vector<Finding>& findings, const std::string& path,
                                    std::string_view old_text, std::string_view new_text);

}  // namespace warplens::server
