// Edits: text changes collected while a rewrite runs, checked for overlaps
// and macro boundaries, merged at equal offsets and turned into
// tooling::Replacements; plus the small helpers that place new code.
#include "agent/rewrites/clang_support.h"

#include <llvm/Support/Error.h>

namespace warplens::agent::rw {

using namespace clang;
using clang::Expr;

// ---- edits --------------------------------------------------------------------------

bool Edits::replace_offsets(unsigned begin, unsigned end, const std::string& text) {
  if (end < begin || end > file_.text.size()) {
    error_ = "edit outside the file";
    return false;
  }
  for (const Change& c : changes_) {
    const unsigned c_end = c.offset + c.length;
    const bool overlap = begin < c_end && c.offset < end;                       // shared characters
    const bool inside = (begin == end && c.length > 0 && begin > c.offset && begin < c_end) ||
                        (c.length == 0 && end > begin && c.offset > begin && c.offset < end);
    if (overlap || inside) {
      error_ = "overlapping edits at offset " + std::to_string(begin);
      return false;
    }
  }
  changes_.push_back({begin, end - begin, text});
  return true;
}

tooling::Replacements Edits::replacements() const {
  // Merge insertions at the same offset; order: insertions (in the order
  // made) before a replacement starting there.
  std::vector<Change> sorted = changes_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Change& a, const Change& b) {
    if (a.offset != b.offset) return a.offset < b.offset;
    return a.length < b.length;
  });
  std::vector<Change> merged;
  for (const Change& c : sorted) {
    if (!merged.empty() && merged.back().offset == c.offset && merged.back().length == 0) {
      merged.back().text += c.text;
      merged.back().length = c.length;
      continue;
    }
    merged.push_back(c);
  }
  tooling::Replacements r;
  for (const Change& c : merged)
    if (auto err = r.add(tooling::Replacement(file_.path, c.offset, c.length, c.text))) llvm::consumeError(std::move(err));
  return r;
}

bool Edits::replace(SourceRange r, const std::string& text) {
  CharSourceRange cr = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(r), file_.sm(), file_.lang());
  if (cr.isInvalid() || !file_.sm().isInMainFile(cr.getBegin())) {
    error_ = "the code to edit is inside a macro expansion or another file";
    return false;
  }
  unsigned b = file_.sm().getFileOffset(cr.getBegin()), e = file_.sm().getFileOffset(cr.getEnd());
  return replace_offsets(b, e, text);
}

bool Edits::insert(SourceLocation loc, const std::string& text) {
  if (loc.isMacroID()) {
    error_ = "insertion point inside a macro expansion";
    return false;
  }
  if (!file_.sm().isInMainFile(loc)) {
    error_ = "insertion point outside the main file";
    return false;
  }
  return insert_at_offset(file_.sm().getFileOffset(loc), text);
}

bool Edits::insert_after(SourceLocation token_loc, const std::string& text) {
  if (token_loc.isMacroID()) {
    error_ = "insertion point inside a macro expansion";
    return false;
  }
  SourceLocation end = Lexer::getLocForEndOfToken(token_loc, 0, file_.sm(), file_.lang());
  if (end.isInvalid()) {
    error_ = "no token end";
    return false;
  }
  return insert(end, text);
}

bool Edits::insert_at_offset(unsigned offset, const std::string& text) {
  return replace_offsets(offset, offset, text);
}

std::optional<std::string> Edits::result() const {
  auto r = tooling::applyAllReplacements(file_.text, replacements());
  if (!r) {
    llvm::consumeError(r.takeError());
    return std::nullopt;
  }
  return *r;
}

bool insert_before_kernel(const KernelContext& ctx, Edits& edits, const std::string& text) {
  // An instantiation's text is its pattern's: before the `template <...>`.
  const FunctionDecl* k = ctx.kernel;
  if (const FunctionDecl* pattern = k->getTemplateInstantiationPattern()) k = pattern;
  SourceLocation begin = k->getBeginLoc();
  if (const FunctionTemplateDecl* t = k->getDescribedFunctionTemplate()) begin = t->getBeginLoc();
  begin = ctx.sm().getExpansionLoc(begin);
  unsigned off = ctx.sm().getFileOffset(begin);
  // Start of that line, so the inserted text sits on its own lines.
  std::size_t line_start = ctx.file.text.rfind('\n', off == 0 ? 0 : off - 1);
  line_start = (line_start == std::string::npos || off == 0) ? 0 : line_start + 1;
  return edits.insert_at_offset(static_cast<unsigned>(line_start), text);
}

std::optional<unsigned> offset_of(const std::string& text, Position p) {
  std::size_t at = 0;
  for (int line = 0; line < p.line; ++line) {
    at = text.find('\n', at);
    if (at == std::string::npos) return std::nullopt;
    ++at;
  }
  if (at + static_cast<std::size_t>(p.column) > text.size()) return std::nullopt;
  return static_cast<unsigned>(at + static_cast<std::size_t>(p.column));
}

std::string fresh_name(const ParsedFile& file, const std::string& stem) {
  std::string name = "wl_" + stem;
  for (int i = 2; file.text.find(name) != std::string::npos || file.issued(name); ++i)
    name = "wl_" + stem + std::to_string(i);
  file.issue(name);
  return name;
}

std::string pointee_spelling(const ParmVarDecl* p) {
  // In a template instantiation, the type as the pattern spells it (`T`,
  // not `float`): the edits go to the pattern.
  if (const auto* fn = dyn_cast_or_null<FunctionDecl>(p->getDeclContext()))
    if (const FunctionDecl* pattern = fn->getTemplateInstantiationPattern(); pattern && pattern != fn)
      for (unsigned i = 0; i < fn->getNumParams() && i < pattern->getNumParams(); ++i)
        if (fn->getParamDecl(i) == p) {
          p = pattern->getParamDecl(i);
          break;
        }
  QualType t = p->getType();
  if (!t->isPointerType()) return t.getAsString();
  QualType e = t->getPointeeType().getUnqualifiedType();
  PrintingPolicy pp(p->getASTContext().getLangOpts());
  pp.SuppressTagKeyword = true;
  return e.getAsString(pp);
}

}  // namespace warplens::agent::rw
