// compile_flags.txt, clangd's convention for projects without a compile
// database: one flag per line, in the file's directory or any directory
// above it. find_command_for_file (compile_db.h) uses it when no
// compile_commands.json entry covers the file; docs/frontend.md gives the
// precedence (database entry > compile_flags.txt > a neighbour's database
// flags > defaults; the command line's and the fallbackFlags setting's
// flags are appended to all of them).
//
// Plain C++ (no Clang), unit-tested in tests/unit/analysis/core_compile_flags_test.cpp.
#pragma once

#include <string>
#include <vector>

namespace warplens {

// The nearest compile_flags.txt: `file`'s directory, then each parent, up to
// the filesystem root, or up to the innermost of `roots` (workspace folders)
// that contains `file`, that root included. Empty when there is none.
std::string find_compile_flags(const std::string& file, const std::vector<std::string>& roots = {});

// One flag per line, as clangd reads it: surrounding whitespace (and a
// Windows CR) trimmed, blank lines skipped. Lines starting with `#` are
// comments (our extension: no flag starts with `#`). No shell quoting:
// `-DGREETING="hi there"` is one argument, quotes included.
std::vector<std::string> parse_compile_flags(const std::string& text);

}  // namespace warplens
