// The Clang 19 front end: chooses the command line (compile_commands.json or
// defaults, toolkit or bundled prelude), parses the editor's text on the
// device side, turns Clang's diagnostics into findings and the AST into the
// kernel model. See docs/frontend.md.
#include <clang/AST/ASTConsumer.h>
#include <clang/Basic/AllDiagnostics.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/clang/guarded_fs.h"
#include "analysis/clang/model_builder.h"
#include "analysis/clang/parse_limiter.h"
#include "analysis/clang/parsed_ast.h"
#include "analysis/compile_db.h"
#include "analysis/cuda_toolkit.h"
#include "analysis/frontend.h"
#include "analysis/parse_plan.h"
#include "common/file_read.h"
#include "common/large_stack.h"

namespace fs = std::filesystem;

namespace warplens {

bool frontend_available() { return true; }

namespace {

std::string resource_dir() {
  if (const char* env = std::getenv("WARPLENS_CLANG_RESOURCE_DIR"); env && *env) return env;
  return WARPLENS_CLANG_RESOURCE_DIR;
}


// ------------------------------------------------------------- diagnostics

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

// Clang diagnostics -> findings. Only the target file's diagnostics become
// findings; errors inside headers are reported once, at the #include line of
// the target file that leads to them.
class DiagnosticCollector : public clang::DiagnosticConsumer {
 public:
  DiagnosticCollector(std::string target, bool degraded, bool relocatable)
      : target_(std::move(target)), degraded_(degraded), relocatable_(relocatable) {}

  void BeginSourceFile(const clang::LangOptions& lo, const clang::Preprocessor* pp) override {
    lo_ = &lo;
    // A missing header stops Clang (a fatal error) and hides the rest of the
    // file from the model. As an error it lets the parse go on; the errors
    // that follow it are counted, not reported (see HandleDiagnostic).
    if (pp)
      pp->getDiagnostics().setSeverity(clang::diag::err_pp_file_not_found, clang::diag::Severity::Error,
                                       clang::SourceLocation());
  }
  void EndSourceFile() override { lo_ = nullptr; }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
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

  std::vector<Finding> take_findings() {
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

 private:
  struct HeaderErrors {
    size_t index;
    int count;
    std::string header;
    std::string first;
  };

  bool is_target(const clang::SourceManager& sm, clang::FileID fid) {
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

  std::string file_name(const clang::SourceManager& sm, clang::SourceLocation loc) const {
    auto entry = sm.getFileEntryRefForID(sm.getFileID(loc));
    return entry ? entry->getName().str() : target_;
  }

  Position position(const clang::SourceManager& sm, clang::SourceLocation loc) const {
    auto [fid, offset] = sm.getDecomposedLoc(loc);
    return {static_cast<int>(sm.getLineNumber(fid, offset)) - 1, static_cast<int>(sm.getColumnNumber(fid, offset)) - 1};
  }

  Range token_range(const clang::SourceManager& sm, clang::SourceLocation loc) const {
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
  Range diagnostic_range(const clang::SourceManager& sm, clang::SourceLocation loc, const clang::Diagnostic& info) {
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

  // "reference to __global__ function 'child' in __global__ function": a launch
  // (or a kernel's address taken) in device code.
  // Clang's complaint about a <<<>>> in device code: about the kernel, or
  // (a kernel launching itself) about the launch configuration call
  // `__cudaPushCallConfiguration` that Clang lowers <<<>>> into.
  static bool is_device_side_launch(const std::string& message) {
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
  static bool names_ptx_register(const clang::SourceManager& sm, clang::SourceLocation loc) {
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

  static bool is_device_side_call_note(const std::string& note) {
    return note.find("call to __global__ function from __global__ function") != std::string::npos ||
           note.find("call to __global__ function from __device__ function") != std::string::npos ||
           note.find("call to __global__ function from __host__ __device__ function") != std::string::npos;
  }

  static constexpr const char* kNeedsRdc =
      " (a kernel launched from device code needs relocatable device code: nvcc requires -rdc=true for dynamic "
      "parallelism too)";
  static constexpr std::size_t kMaxDiagnostics = 1000;

  std::string target_;
  bool degraded_;
  bool relocatable_;
  int missing_header_ = -1;       // the first "file not found" finding
  int hidden_after_missing_ = 0;  // errors after it, not reported
  std::size_t dropped_ = 0;
  std::string last_code_;                      // the code of findings_[last_]
  std::set<std::size_t> device_launch_only_;  // findings nvcc would not report (dynamic parallelism with -rdc)
  const clang::LangOptions* lo_ = nullptr;
  clang::FileID target_id_;
  std::vector<Finding> findings_;
  int last_ = -1;  // index of the finding notes attach to
  std::map<unsigned, HeaderErrors> header_errors_;
};


clang::FileID target_file_id(clang::SourceManager& sm, const std::string& target);

// The action: builds the model at the end of the parse, and stops the parse
// between top-level declarations when cancellation is requested.
class ModelAction : public clang::ASTFrontendAction {
 public:
  ModelAction(const std::string& target, std::stop_token stop, KernelModel& model, bool& ran, bool& target_seen,
              clang_frontend::ParseLimiter& limiter, std::optional<int>& cut_line)
      : target_(target), stop_(stop), model_(model), ran_(ran), target_seen_(target_seen), limiter_(limiter),
        cut_line_(cut_line) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<Consumer>(*this, ci);
  }

  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    limiter_.attach(ci);
    return clang::ASTFrontendAction::BeginSourceFileAction(ci);
  }

 private:
  class Consumer : public clang::ASTConsumer {
   public:
    Consumer(ModelAction& a, clang::CompilerInstance& ci) : a_(a), ci_(ci) {}
    bool HandleTopLevelDecl(clang::DeclGroupRef) override { return !a_.stop_.stop_requested(); }
    void HandleTranslationUnit(clang::ASTContext& ctx) override {
      a_.ran_ = true;
      clang::SourceManager& sm = ctx.getSourceManager();
      if (a_.limiter_.over_limit()) a_.cut_line_ = a_.limiter_.line_in(sm, a_.target_);
      // A cut parse is not walked: its last declaration is half-built.
      if (a_.stop_.stop_requested() || a_.limiter_.stopped()) return;
      clang::FileID target = target_file_id(sm, a_.target_);
      if (target.isInvalid()) return;
      a_.target_seen_ = true;
      clang_frontend::SourceMapper map(sm, ci_.getLangOpts(), target);
      a_.model_ = clang_frontend::build_kernel_model(ctx, map, a_.target_, a_.stop_);
    }

   private:
    ModelAction& a_;
    clang::CompilerInstance& ci_;
  };

  std::string target_;
  std::stop_token stop_;
  KernelModel& model_;
  bool& ran_;
  bool& target_seen_;
  clang_frontend::ParseLimiter& limiter_;
  std::optional<int>& cut_line_;
};

struct RunOutcome {
  bool ran = false;          // the AST was built (errors or not)
  bool target_seen = false;  // the target file was part of it
  std::string over_limit;    // why a limit cut the parse ("too large to analyse: ...")
  std::optional<int> cut_line;       // where, when in the target file
  std::vector<std::string> refused;  // files the guarded file system would not read
};

// The file system a parse sees: the disk through the guard, with the
// editor's text of the main file (and of the target header parsed in the
// context of a .cu) on top, in the entry's working directory.
struct PlanFiles {
  llvm::IntrusiveRefCntPtr<clang::FileManager> files;
  llvm::IntrusiveRefCntPtr<clang_frontend::GuardedFileSystem> guarded;  // its refusals
};

PlanFiles plan_files(const ParsePlan& plan, const std::string& target_text) {
  // A physical file system of our own: setting its working directory must not
  // change the process's (getRealFileSystem() is shared and would chdir).
  // Reads go through the guard: regular text files only, bounded.
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> physical(llvm::vfs::createPhysicalFileSystem().release());
  auto guarded = llvm::makeIntrusiveRefCnt<clang_frontend::GuardedFileSystem>(physical, common::kDefaultMaxFileBytes);
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(guarded);
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  memory->addFile(plan.main_file, 0, llvm::MemoryBuffer::getMemBufferCopy(plan.main_text, plan.main_file));
  if (plan.target_file != plan.main_file)
    memory->addFile(plan.target_file, 0, llvm::MemoryBuffer::getMemBufferCopy(target_text, plan.target_file));
  std::error_code ec;
  if (!plan.working_directory.empty() && fs::is_directory(plan.working_directory, ec))
    (void)overlay->setCurrentWorkingDirectory(plan.working_directory);
  return {llvm::IntrusiveRefCntPtr<clang::FileManager>(new clang::FileManager(clang::FileSystemOptions(), overlay)),
          guarded};
}

RunOutcome run_clang(const ParsePlan& plan, const std::string& target_text, const AnalysisLimits& limits,
                     std::stop_token stop, KernelModel& model, DiagnosticCollector& diags) {
  auto [files, guarded] = plan_files(plan, target_text);
  RunOutcome out;
  // On a thread with a stack for Clang's recursive descent: the limiter cuts
  // the parse at half of it; the other half is for Sema and the model
  // builder walking what was built. (clang::noteBottomOfStack is not called:
  // Clang's helpers assume 8 MiB stacks and would hop to new 8 MiB threads,
  // with a "stack nearly exhausted" warning, 8 MiB into this one.)
  common::run_with_stack(clang_frontend::kParseStackBytes, [&](std::size_t stack_bytes) {
    char top = 0;
    clang_frontend::ParseLimiter limiter(limits, stop, &top, stack_bytes);
    auto action = std::make_unique<ModelAction>(plan.target_file, stop, model, out.ran, out.target_seen, limiter,
                                                out.cut_line);
    clang::tooling::ToolInvocation invocation(plan.args, std::move(action), files.get());
    invocation.setDiagnosticConsumer(&diags);
    invocation.run();
    out.over_limit = limiter.reason();
  });
  out.refused = guarded->refusals();
  return out;
}

// The same parse, keeping the AST for the rewrite engine: the compiler
// instance and its action stay alive after the parse (EndSourceFile runs
// when the KeptAst goes), as ASTUnit does, but through an action of ours so
// that the ParseLimiter watches this parse exactly as the analysis' parse.
class KeptParseAction : public clang::ASTFrontendAction {
 public:
  KeptParseAction(clang_frontend::ParseLimiter& limiter, std::stop_token stop) : limiter_(limiter), stop_(stop) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&, llvm::StringRef) override {
    return std::make_unique<StopConsumer>(stop_);
  }
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    limiter_.attach(ci);
    return clang::ASTFrontendAction::BeginSourceFileAction(ci);
  }

 private:
  class StopConsumer : public clang::ASTConsumer {
   public:
    explicit StopConsumer(std::stop_token stop) : stop_(stop) {}
    bool HandleTopLevelDecl(clang::DeclGroupRef) override { return !stop_.stop_requested(); }

   private:
    std::stop_token stop_;
  };
  clang_frontend::ParseLimiter& limiter_;
  std::stop_token stop_;
};

class KeepAst : public clang::tooling::ToolAction {
 public:
  KeepAst(clang_frontend::ParseLimiter& limiter, std::stop_token stop) : limiter_(limiter), stop_(stop) {}
  std::unique_ptr<KeptAst> kept;
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation, clang::FileManager* files,
                     std::shared_ptr<clang::PCHContainerOperations> pch, clang::DiagnosticConsumer* diags) override {
    // What FrontendActionFactory::runInvocation and CompilerInstance::
    // ExecuteAction do, less the EndSourceFile that would free the AST.
    auto k = std::make_unique<KeptAst>();
    k->instance = std::make_unique<clang::CompilerInstance>(std::move(pch));
    clang::CompilerInstance& ci = *k->instance;
    ci.setInvocation(std::move(invocation));
    ci.setFileManager(files);
    ci.createDiagnostics(diags, /*ShouldOwnClient=*/false);
    if (!ci.hasDiagnostics()) return false;
    ci.createSourceManager(*files);
    if (ci.getFrontendOpts().Inputs.size() != 1 || !ci.createTarget()) return false;
    auto action = std::make_unique<KeptParseAction>(limiter_, stop_);
    if (!action->BeginSourceFile(ci, ci.getFrontendOpts().Inputs[0])) return false;
    k->action = std::move(action);  // from here on EndSourceFile is owed
    if (llvm::Error e = k->action->Execute()) llvm::consumeError(std::move(e));
    // Nothing lexes through this preprocessor again; the watcher points at a
    // limiter that is about to go.
    if (ci.hasPreprocessor()) ci.getPreprocessor().setTokenWatcher(nullptr);
    // The diagnostics engine still points at `diags`, which the caller
    // destroys before the AST: detach it.
    ci.getDiagnostics().setClient(new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
    kept = std::move(k);
    return true;
  }

 private:
  clang_frontend::ParseLimiter& limiter_;
  std::stop_token stop_;
};

struct KeptOutcome {
  std::unique_ptr<KeptAst> ast;
  std::string over_limit;    // why a limit cut the parse
  std::optional<int> cut_line;
  std::vector<std::string> refused;  // files the guarded file system would not read
};

// On the calling thread, which must have `stack_bytes` of stack above `top`
// (a run_with_stack thread): the limiter measures from there.
KeptOutcome run_clang_keeping_ast(const ParsePlan& plan, const std::string& target_text, const AnalysisLimits& limits,
                                  std::stop_token stop, DiagnosticCollector& diags, const char* top,
                                  std::size_t stack_bytes) {
  auto [files, guarded] = plan_files(plan, target_text);
  KeptOutcome out;
  clang_frontend::ParseLimiter limiter(limits, stop, top, stack_bytes);
  KeepAst action(limiter, stop);
  clang::tooling::ToolInvocation invocation(plan.args, &action, files.get(),
                                            std::make_shared<clang::PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&diags);
  invocation.run();
  out.over_limit = limiter.reason();
  if (action.kept && limiter.over_limit())
    out.cut_line = limiter.line_in(action.kept->getSourceManager(), plan.target_file);
  // A cut parse is not kept: its last declaration is half-built.
  if (!limiter.stopped()) out.ast = std::move(action.kept);
  out.refused = guarded->refusals();
  return out;
}

// The file the model describes: the main file, or the header parsed in the
// context of a .cu (its first inclusion). Invalid when the parse never
// reached it.
clang::FileID target_file_id(clang::SourceManager& sm, const std::string& target) {
  clang::FileID id = sm.getMainFileID();
  auto main = sm.getFileEntryRefForID(id);
  if (main && main->getName() == target) return id;
  auto fe = sm.getFileManager().getOptionalFileRef(target);
  if (!fe) return {};
  return sm.translateFile(*fe);
}

}  // namespace

ParseResult parse_translation_unit(const SourceFile& file, const AnalysisOptions& options, std::stop_token stop) {
  ParseResult r;
  r.model.file = file.path;
  if (stop.stop_requested()) {
    r.cancelled = true;
    return r;
  }
  ParsePlan plan = plan_parse(file, options, resource_dir(), r.toolchain, r.diagnostics);
  if (stop.stop_requested()) {
    r.cancelled = true;
    return r;
  }

  // 5. Parse.
  auto diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded, plan.relocatable);
  RunOutcome outcome = run_clang(plan, file.text, options.limits, stop, r.model, *diags);
  if (outcome.ran && !outcome.target_seen && outcome.over_limit.empty() && plan.main_file != plan.target_file &&
      !stop.stop_requested()) {
    // The context .cu does not reach the header after all: parse it alone.
    plan.main_file = plan.target_file;
    plan.main_text = file.text;
    plan.args.back() = plan.target_file;
    r.toolchain.clang_args = plan.args;
    r.toolchain.compile_command_source += " (header not reached; parsed alone)";
    diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded, plan.relocatable);
    r.model = KernelModel{};
    outcome = run_clang(plan, file.text, options.limits, stop, r.model, *diags);
  }
  r.model.file = file.path;
  if (stop.stop_requested()) {
    r.cancelled = true;
    return r;
  }
  for (auto& f : diags->take_findings()) r.diagnostics.push_back(std::move(f));
  for (const auto& refused : outcome.refused) {
    // Clang reports such an #include as "file not found"; this says why.
    Finding f = toolchain_finding(file.path, Severity::Warning, "warplens did not read " + refused);
    f.code = codes::kAnalysisLimit;
    r.diagnostics.push_back(std::move(f));
  }
  if (!outcome.over_limit.empty()) {
    Finding f = toolchain_finding(file.path, Severity::Warning, outcome.over_limit);
    f.code = codes::kAnalysisLimit;
    if (outcome.cut_line) f.location.range = {{*outcome.cut_line, 0}, {*outcome.cut_line + 1, 0}};
    r.over_limit = std::move(f);
    r.model = KernelModel{};
    r.model.file = file.path;
    r.parsed = false;
    return r;
  }
  r.parsed = outcome.ran;
  return r;
}

std::unique_ptr<ParsedAst> parse_ast(const SourceFile& file, const AnalysisOptions& options, std::stop_token stop) {
  auto ast = std::make_unique<ParsedAst>();
  ParseResult& r = ast->result;
  r.model.file = file.path;
  ast->target_path = file.path;
  if (stop.stop_requested()) {
    r.cancelled = true;
    return ast;
  }
  ParsePlan plan = plan_parse(file, options, resource_dir(), r.toolchain, r.diagnostics);
  auto diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded, plan.relocatable);
  KeptOutcome outcome;
  // The parse and the model's walk on a stack of their own, under the
  // analysis' limits, as parse_translation_unit's: the rewrite engine must
  // not die where the diagnostics did not (its callers walk the AST on such
  // a stack too: agent/rewrites/engine.cpp).
  common::run_with_stack(clang_frontend::kParseStackBytes, [&](std::size_t stack_bytes) {
    char top = 0;
    outcome = run_clang_keeping_ast(plan, file.text, options.limits, stop, *diags, &top, stack_bytes);
    if (outcome.ast && plan.main_file != plan.target_file &&
        target_file_id(outcome.ast->getSourceManager(), plan.target_file).isInvalid() && !stop.stop_requested()) {
      // The context .cu does not reach the header after all: parse it alone.
      plan.main_file = plan.target_file;
      plan.main_text = file.text;
      plan.args.back() = plan.target_file;
      r.toolchain.clang_args = plan.args;
      r.toolchain.compile_command_source += " (header not reached; parsed alone)";
      outcome.ast.reset();
      diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded, plan.relocatable);
      outcome = run_clang_keeping_ast(plan, file.text, options.limits, stop, *diags, &top, stack_bytes);
    }
    if (!outcome.ast || !outcome.over_limit.empty() || stop.stop_requested()) return;
    clang::SourceManager& sm = outcome.ast->getSourceManager();
    ast->target = target_file_id(sm, plan.target_file);
    if (ast->target.isValid()) {
      clang_frontend::SourceMapper map(sm, outcome.ast->getLangOpts(), ast->target);
      r.model = clang_frontend::build_kernel_model(outcome.ast->getASTContext(), map, file.path, stop);
    }
  });
  for (auto& f : diags->take_findings()) r.diagnostics.push_back(std::move(f));
  for (const auto& file_refused : outcome.refused) {
    Finding f = toolchain_finding(file.path, Severity::Warning, "warplens did not read " + file_refused);
    f.code = codes::kAnalysisLimit;
    r.diagnostics.push_back(std::move(f));
  }
  r.model.file = file.path;
  r.cancelled = stop.stop_requested();
  if (!outcome.over_limit.empty()) {
    Finding f = toolchain_finding(file.path, Severity::Warning, outcome.over_limit);
    f.code = codes::kAnalysisLimit;
    if (outcome.cut_line) f.location.range = {{*outcome.cut_line, 0}, {*outcome.cut_line + 1, 0}};
    r.over_limit = std::move(f);
    r.model = KernelModel{};
    r.model.file = file.path;
    ast->target = {};
    return ast;  // no unit: the rewrite engine reports the limit
  }
  ast->unit = std::move(outcome.ast);
  r.parsed = ast->unit != nullptr;
  return ast;
}

std::size_t parse_stack_bytes() { return clang_frontend::kParseStackBytes; }

KeptAst::~KeptAst() {
  if (action) action->EndSourceFile();
}
clang::ASTContext& KeptAst::getASTContext() const { return instance->getASTContext(); }
clang::SourceManager& KeptAst::getSourceManager() const { return instance->getSourceManager(); }
const clang::LangOptions& KeptAst::getLangOpts() const { return instance->getLangOpts(); }

bool ParsedAst::has_errors() const {
  for (const Finding& f : result.diagnostics)
    if (f.source == "clang" && f.severity == Severity::Error) return true;
  return false;
}

}  // namespace warplens
