// Clang diagnostics -> findings (see diagnostic_collector.h).
#include "analysis/clang/diagnostic_collector.h"

#include <clang/Basic/AllDiagnostics.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Preprocessor.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

namespace fs = std::filesystem;

namespace warplens::clang_frontend {

namespace {

// Clang's internal diagnostic names ("err_undeclared_var_use"), the way
// clangd builds them: the generated tables, one case per diagnostic.
const char* diagnostic_name(unsigned id) {
  switch (id) {
#define DIAG(ENUM, CLASS, DEFAULT_MAPPING, DESC, GROUP, SFINAE, NOWERROR, SHOWINSYSHEADER, SHOWINSYSMACRO, \
             DEFERRABLE, CATEGORY)                                                                         \
  case clang::diag::ENUM:                                                                                  \
    return #ENUM;
#include "clang/Basic/DiagnosticASTKinds.inc"
#include "clang/Basic/DiagnosticAnalysisKinds.inc"
#include "clang/Basic/DiagnosticCommentKinds.inc"
#include "clang/Basic/DiagnosticCommonKinds.inc"
#include "clang/Basic/DiagnosticDriverKinds.inc"
#include "clang/Basic/DiagnosticFrontendKinds.inc"
#include "clang/Basic/DiagnosticLexKinds.inc"
#include "clang/Basic/DiagnosticParseKinds.inc"
#include "clang/Basic/DiagnosticRefactoringKinds.inc"
#include "clang/Basic/DiagnosticSemaKinds.inc"
#include "clang/Basic/DiagnosticSerializationKinds.inc"
#undef DIAG
    default:
      return nullptr;
  }
}

std::string strip_diagnostic_prefix(std::string name) {
  for (const char* p : {"err_", "warn_", "ext_", "note_", "remark_"})
    if (name.rfind(p, 0) == 0) return name.substr(std::string(p).size());
  return name;
}

// Errors Clang reports on CUDA code nvcc accepts (NVIDIA's .clangd template
// for Nsight VS Code Edition suppresses the same list).
bool is_known_cuda_false_positive(const std::string& name) {
  static const char* names[] = {"variadic_device_fn", "attributes_not_allowed", "template_param_shadow",
                                "deduction_guide_target_attr", "shared_var_init",
                                // `T a[n] = {0};` in host code: g++ (nvcc's host compiler) accepts it
                                "variable_object_no_init"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// "reference to __global__ function 'child' in __global__ function": a launch
// (or a kernel's address taken) in device code.
// Clang's complaint about a <<<>>> in device code: about the kernel, or
// (a kernel launching itself) about the launch configuration call
// `__cudaPushCallConfiguration` that Clang lowers <<<>>> into.
bool is_device_side_launch(const std::string& message) {
  const bool launch = message.find("reference to __global__ function") != std::string::npos ||
                      message.find("function '__cudaPushCallConfiguration'") != std::string::npos;
  return launch && (message.find("in __global__ function") != std::string::npos ||
                    message.find("in __device__ function") != std::string::npos ||
                    message.find("in __host__ __device__ function") != std::string::npos);
}

// nvcc passes inline PTX through, where `%globaltimer`, `%laneid`,
// `%clock64` name special registers; Clang takes `%g` for a bad operand
// escape. True when the escape Clang points at (or, pointing at the
// literal, every escape in it) is a valid GCC escape or `%` + a PTX name.
bool names_ptx_register(const clang::SourceManager& sm, clang::SourceLocation loc) {
  bool invalid = false;
  const char* p = sm.getCharacterData(sm.getSpellingLoc(loc), &invalid);
  if (invalid || !p) return false;
  auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  // One escape at p ('%'): 0 invalid, else its length.
  auto escape = [&](const char* e) -> int {
    const char c = e[1];
    if (c == '%' || c == '=' || c == '{' || c == '|' || c == '}' || is_digit(c) || c == '[') return 2;
    if (!is_alpha(c)) return 0;
    int letters = 1;
    while (is_alpha(e[1 + letters])) ++letters;
    int n = 1 + letters;
    while (is_digit(e[n])) ++n;
    // `%l0`, `%h1`: a modifier letter and an operand number (valid GCC);
    // `%globaltimer`, `%clock64`: a PTX special register (two letters or more).
    if (letters == 1) return is_digit(e[2]) ? n : 0;
    return n;
  };
  auto is_ptx_name = [&](const char* e) { return is_alpha(e[1]) && is_alpha(e[2]); };
  // Clang points inside the escape (after `%g`, taken for a modifier, in
  // `%globaltimer`): back over letters to the '%' (all inside the literal).
  if (*p != '%' && *p != '"') {
    const char* q = p;
    for (int i = 0; i < 64 && is_alpha(q[-1]); ++i) --q;
    if (q[-1] == '%') p = q - 1;
  }
  if (*p == '%') return is_ptx_name(p) && escape(p) > 0;
  if (*p != '"') return false;
  bool ptx_name = false;
  for (const char* q = p + 1; *q && *q != '"' && *q != '\n'; ++q) {
    if (*q == '\\' && q[1]) {
      ++q;
      continue;
    }
    if (*q != '%') continue;
    const int n = escape(q);
    if (n == 0) return false;
    if (is_ptx_name(q)) ptx_name = true;
    q += n - 1;
  }
  return ptx_name;
}


bool is_device_side_call_note(const std::string& note) {
  return note.find("call to __global__ function from __global__ function") != std::string::npos ||
         note.find("call to __global__ function from __device__ function") != std::string::npos ||
         note.find("call to __global__ function from __host__ __device__ function") != std::string::npos;
}

constexpr const char* kNeedsRdc =
    " (a kernel launched from device code needs relocatable device code: nvcc requires -rdc=true for dynamic "
    "parallelism too)";
constexpr std::size_t kMaxDiagnostics = 1000;

}  // namespace

void DiagnosticCollector::BeginSourceFile(const clang::LangOptions& lo, const clang::Preprocessor* pp) {
  lo_ = &lo;
  // A missing header stops Clang (a fatal error) and hides the rest of the
  // file from the model. As an error it lets the parse go on; the errors
  // that follow it are counted, not reported (see HandleDiagnostic).
  if (pp)
    pp->getDiagnostics().setSeverity(clang::diag::err_pp_file_not_found, clang::diag::Severity::Error,
                                     clang::SourceLocation());
}

void DiagnosticCollector::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
  DiagnosticConsumer::HandleDiagnostic(level, info);
  if (level == clang::DiagnosticsEngine::Ignored) return;
  // Text that is not CUDA at all yields an error per token: a few hundred
  // say all there is to say.
  if (findings_.size() >= kMaxDiagnostics) {
    if (level != clang::DiagnosticsEngine::Note) ++dropped_;
    last_ = -1;
    return;
  }
  llvm::SmallString<256> text;
  info.FormatDiagnostic(text);
  std::string message = text.str().str();
  if (level == clang::DiagnosticsEngine::Note) {
    // A device-side launch of an overloaded kernel (a declaration and a
    // definition that differ) fails overload resolution instead; the
    // candidate's note says why. Same nvcc semantics as below.
    if (last_ >= 0 && last_code_ == "ovl_no_viable_function_in_call" && is_device_side_call_note(message)) {
      if (relocatable_) device_launch_only_.insert(static_cast<std::size_t>(last_));
      else if (findings_[last_].message.find(kNeedsRdc) == std::string::npos) findings_[last_].message += kNeedsRdc;
    }
    if (last_ >= 0 && findings_[last_].related.size() < 10 && info.hasSourceManager() &&
        info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      clang::SourceLocation loc = sm.getFileLoc(info.getLocation());
      RelatedInformation rel;
      rel.location.file = file_name(sm, loc);
      rel.location.range = token_range(sm, loc);
      rel.message = message;
      findings_[last_].related.push_back(std::move(rel));
    }
    return;
  }
  last_ = -1;
  last_code_.clear();
  std::string name = strip_diagnostic_prefix(diagnostic_name(info.getID()) ? diagnostic_name(info.getID()) : "");
  if (is_known_cuda_false_positive(name)) return;
  if (name == "asm_invalid_escape" && info.hasSourceManager() && info.getLocation().isValid() &&
      names_ptx_register(info.getSourceManager(), info.getLocation()))
    return;
  if (name == "ref_bad_target" && is_device_side_launch(message)) {
    // Dynamic parallelism: nvcc accepts a kernel launched from device code
    // with relocatable device code, Clang never does.
    if (relocatable_) return;
    message += kNeedsRdc;
  }
  if (level >= clang::DiagnosticsEngine::Error && name != "pp_file_not_found" && missing_header_ >= 0) {
    // After a header that was not found: most likely a consequence.
    ++hidden_after_missing_;
    return;
  }
  std::string flag = clang::DiagnosticIDs::getWarningOptionForDiag(info.getID()).str();

  Finding f;
  f.source = "clang";
  f.code = !flag.empty() ? "-W" + flag : !name.empty() ? name : codes::kClang;
  f.severity = level >= clang::DiagnosticsEngine::Error     ? Severity::Error
               : level == clang::DiagnosticsEngine::Warning ? Severity::Warning
                                                            : Severity::Information;
  f.message = message;
  f.location.file = target_;
  if (degraded_ && name == "pp_file_not_found") {
    f.severity = Severity::Warning;
    f.message += " (no CUDA toolkit: parsed with warplens's bundled prelude, which has no CUDA library headers)";
  } else if (name == "pp_file_not_found") {
    f.message += ": it is on none of the compile command's include paths (-I, -isystem) nor the CUDA "
                 "toolkit's; nvcc with the same flags stops here too";
  }
  const bool is_missing_header = name == "pp_file_not_found";
  if (!info.hasSourceManager() || info.getLocation().isInvalid()) {
    // Driver-level (e.g. an unsupported argument): no position.
    findings_.push_back(std::move(f));
    last_ = static_cast<int>(findings_.size()) - 1;
    return;
  }
  const clang::SourceManager& sm = info.getSourceManager();
  clang::SourceLocation loc = sm.getFileLoc(info.getLocation());
  if (!is_target(sm, sm.getFileID(loc))) loc = sm.getExpansionLoc(info.getLocation());
  if (is_target(sm, sm.getFileID(loc))) {
    f.location.range = diagnostic_range(sm, loc, info);
    findings_.push_back(std::move(f));
    last_ = static_cast<int>(findings_.size()) - 1;
    last_code_ = name;
    if (is_missing_header && missing_header_ < 0) missing_header_ = last_;
    return;
  }
  if (f.severity != Severity::Error) return;
  // In a header: once per #include line of the target file.
  clang::FileID fid = sm.getFileID(loc);
  clang::SourceLocation include;
  for (int depth = 0; depth < 64 && fid.isValid(); ++depth) {
    clang::SourceLocation inc = sm.getIncludeLoc(fid);
    if (inc.isInvalid()) return;  // not reached from the target file
    inc = sm.getFileLoc(inc);
    if (is_target(sm, sm.getFileID(inc))) {
      include = inc;
      break;
    }
    fid = sm.getFileID(inc);
  }
  if (include.isInvalid()) return;
  unsigned key = include.getRawEncoding();
  RelatedInformation rel;
  rel.location.file = file_name(sm, loc);
  rel.location.range = token_range(sm, loc);
  rel.message = message;
  if (auto it = header_errors_.find(key); it != header_errors_.end()) {
    Finding& agg = findings_[it->second.index];
    ++it->second.count;
    if (agg.related.size() < 10) agg.related.push_back(std::move(rel));
    return;
  }
  f.location.range = token_range(sm, include);
  f.related.push_back(std::move(rel));
  header_errors_[key] = {findings_.size(), 1, file_name(sm, loc), message};
  if (is_missing_header && missing_header_ < 0) missing_header_ = static_cast<int>(findings_.size());
  findings_.push_back(std::move(f));
}

std::vector<Finding> DiagnosticCollector::take_findings() {
  if (dropped_ > 0) {
    Finding f;
    f.source = "clang";
    f.code = codes::kClang;
    f.severity = Severity::Information;
    f.location.file = target_;
    f.message = std::to_string(dropped_) + " more diagnostics not shown (the first " +
                std::to_string(kMaxDiagnostics) + " are)";
    findings_.push_back(std::move(f));
    dropped_ = 0;
  }
  for (const auto& [key, h] : header_errors_) {
    std::string header = fs::path(h.header).filename().string();
    findings_[h.index].message = std::to_string(h.count) + (h.count == 1 ? " error" : " errors") +
                                 " in included file '" + header + "': " + h.first;
  }
  if (missing_header_ >= 0 && hidden_after_missing_ > 0)
    findings_[std::size_t(missing_header_)].message +=
        "; " + std::to_string(hidden_after_missing_) +
        (hidden_after_missing_ == 1 ? " later error not reported (it may follow from the missing header)"
                                    : " later errors not reported (they may follow from the missing header)");
  last_ = -1;
  if (!device_launch_only_.empty()) {
    std::vector<Finding> kept;
    for (std::size_t i = 0; i < findings_.size(); ++i)
      if (!device_launch_only_.count(i)) kept.push_back(std::move(findings_[i]));
    findings_ = std::move(kept);
    device_launch_only_.clear();
  }
  return std::move(findings_);
}

bool DiagnosticCollector::is_target(const clang::SourceManager& sm, clang::FileID fid) {
  if (fid.isInvalid()) return false;
  if (target_id_.isValid()) return fid == target_id_;
  auto entry = sm.getFileEntryRefForID(fid);
  if (!entry) return false;
  bool same = entry->getName() == target_;
  if (!same) {
    auto target_entry = sm.getFileManager().getOptionalFileRef(target_);
    same = target_entry && target_entry->getUniqueID() == entry->getUniqueID();
  }
  if (same) target_id_ = fid;
  return same;
}

std::string DiagnosticCollector::file_name(const clang::SourceManager& sm, clang::SourceLocation loc) const {
  auto entry = sm.getFileEntryRefForID(sm.getFileID(loc));
  return entry ? entry->getName().str() : target_;
}

Position DiagnosticCollector::position(const clang::SourceManager& sm, clang::SourceLocation loc) const {
  auto [fid, offset] = sm.getDecomposedLoc(loc);
  return {static_cast<int>(sm.getLineNumber(fid, offset)) - 1, static_cast<int>(sm.getColumnNumber(fid, offset)) - 1};
}

Range DiagnosticCollector::token_range(const clang::SourceManager& sm, clang::SourceLocation loc) const {
  Position start = position(sm, loc);
  unsigned len = lo_ ? clang::Lexer::MeasureTokenLength(loc, sm, *lo_) : 0;
  // `#include <x.h>`: the raw lexer sees `<` alone; take the whole name.
  bool invalid = false;
  const char* text = sm.getCharacterData(loc, &invalid);
  if (!invalid && text && *text == '<') {
    unsigned n = 1;
    while (text[n] && text[n] != '>' && text[n] != '\n') ++n;
    if (text[n] == '>') len = n + 1;
  }
  return {start, {start.line, start.column + static_cast<int>(len)}};
}

// The diagnostic's own range when one contains its location, else its token.
Range DiagnosticCollector::diagnostic_range(const clang::SourceManager& sm, clang::SourceLocation loc, const clang::Diagnostic& info) {
  if (lo_) {
    for (const clang::CharSourceRange& r : info.getRanges()) {
      auto cr = clang::Lexer::makeFileCharRange(r, sm, *lo_);
      if (cr.isInvalid() || sm.getFileID(cr.getBegin()) != sm.getFileID(loc)) continue;
      if (sm.isBeforeInTranslationUnit(loc, cr.getBegin()) || sm.isBeforeInTranslationUnit(cr.getEnd(), loc)) continue;
      return {position(sm, cr.getBegin()), position(sm, cr.getEnd())};
    }
  }
  return token_range(sm, loc);
}

}  // namespace warplens::clang_frontend
