// Clang source locations -> the engine's byte-based ranges in one target file
// (the main file, or the header being analysed in the context of a .cu).
// Internal to analysis/clang/.
#pragma once

#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <optional>
#include <string>

#include "analysis/source_range.h"

namespace warplens::clang_frontend {

class SourceMapper {
 public:
  SourceMapper(const clang::SourceManager& sm, const clang::LangOptions& lo, clang::FileID target)
      : sm_(sm), lo_(lo), target_(target) {}

  const clang::SourceManager& sm() const { return sm_; }
  const clang::LangOptions& lang() const { return lo_; }
  clang::FileID target() const { return target_; }

  // True when the location (after macro expansion) is in the target file.
  bool in_target(clang::SourceLocation loc) const {
    if (loc.isInvalid()) return false;
    return sm_.getFileID(sm_.getExpansionLoc(loc)) == target_;
  }

  Position position(clang::SourceLocation file_loc) const {
    auto [fid, offset] = sm_.getDecomposedLoc(file_loc);
    Position p;
    p.line = static_cast<int>(sm_.getLineNumber(fid, offset)) - 1;
    p.column = static_cast<int>(sm_.getColumnNumber(fid, offset)) - 1;
    return p;
  }

  // The file range a token range covers in the target file. Macro arguments
  // map to where they are written; a range made by a macro body maps to the
  // whole macro invocation.
  std::optional<clang::CharSourceRange> file_range(clang::SourceRange r) const {
    if (r.isInvalid()) return std::nullopt;
    auto cr = clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(r), sm_, lo_);
    if (cr.isInvalid() || sm_.getFileID(cr.getBegin()) != target_) {
      clang::SourceLocation b = sm_.getExpansionRange(r.getBegin()).getBegin();
      clang::SourceLocation e = sm_.getExpansionRange(r.getEnd()).getEnd();
      cr = clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(b, e), sm_, lo_);
    }
    if (cr.isInvalid() || sm_.getFileID(cr.getBegin()) != target_ || sm_.getFileID(cr.getEnd()) != target_)
      return std::nullopt;
    return cr;
  }

  Range range(clang::SourceRange r) const {
    auto cr = file_range(r);
    if (!cr) return {};
    return {position(cr->getBegin()), position(cr->getEnd())};
  }

  // An empty range at a location (e.g. an insertion point).
  Range point(clang::SourceLocation loc) const {
    if (!in_target(loc)) return {};
    auto p = position(sm_.getExpansionLoc(loc));
    return {p, p};
  }

  std::string text(clang::SourceRange r) const {
    auto cr = file_range(r);
    if (!cr) return {};
    return clang::Lexer::getSourceText(*cr, sm_, lo_).str();
  }

 private:
  const clang::SourceManager& sm_;
  const clang::LangOptions& lo_;
  clang::FileID target_;
};

}  // namespace warplens::clang_frontend
