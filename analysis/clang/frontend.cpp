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
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include "analysis/clang/model_builder.h"
#include "analysis/clang/parsed_ast.h"
#include "analysis/compile_db.h"
#include "analysis/cuda_toolkit.h"
#include "analysis/frontend.h"

namespace fs = std::filesystem;

namespace warplens {

bool frontend_available() { return true; }

namespace {

std::string resource_dir() {
  if (const char* env = std::getenv("WARPLENS_CLANG_RESOURCE_DIR"); env && *env) return env;
  return WARPLENS_CLANG_RESOURCE_DIR;
}

Finding toolchain_finding(const std::string& file, Severity severity, std::string message) {
  Finding f;
  f.code = codes::kToolchain;
  f.severity = severity;
  f.source = "warplens";
  f.location = {file, {}};
  f.message = std::move(message);
  return f;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
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
                                "deduction_guide_target_attr", "shared_var_init"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// Clang diagnostics -> findings. Only the target file's diagnostics become
// findings; errors inside headers are reported once, at the #include line of
// the target file that leads to them.
class DiagnosticCollector : public clang::DiagnosticConsumer {
 public:
  DiagnosticCollector(std::string target, bool degraded) : target_(std::move(target)), degraded_(degraded) {}

  void BeginSourceFile(const clang::LangOptions& lo, const clang::Preprocessor*) override { lo_ = &lo; }
  void EndSourceFile() override { lo_ = nullptr; }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level == clang::DiagnosticsEngine::Ignored) return;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    std::string message = text.str().str();
    if (level == clang::DiagnosticsEngine::Note) {
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
    std::string name = strip_diagnostic_prefix(diagnostic_name(info.getID()) ? diagnostic_name(info.getID()) : "");
    if (is_known_cuda_false_positive(name)) return;
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
    }
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
    findings_.push_back(std::move(f));
  }

  std::vector<Finding> take_findings() {
    for (const auto& [key, h] : header_errors_) {
      std::string header = fs::path(h.header).filename().string();
      findings_[h.index].message = std::to_string(h.count) + (h.count == 1 ? " error" : " errors") +
                                   " in included file '" + header + "': " + h.first;
    }
    last_ = -1;
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

  std::string target_;
  bool degraded_;
  const clang::LangOptions* lo_ = nullptr;
  clang::FileID target_id_;
  std::vector<Finding> findings_;
  int last_ = -1;  // index of the finding notes attach to
  std::map<unsigned, HeaderErrors> header_errors_;
};

struct ParsePlan {
  std::vector<std::string> args;   // full command line, argv[0] first, input last
  std::string main_file;           // what clang parses (the file, or its context .cu)
  std::string main_text;
  std::string target_file;         // the file findings are for
  std::string working_directory;
  bool degraded = false;
};

clang::FileID target_file_id(clang::SourceManager& sm, const std::string& target);

// The action: builds the model at the end of the parse, and stops the parse
// between top-level declarations when cancellation is requested.
class ModelAction : public clang::ASTFrontendAction {
 public:
  ModelAction(const std::string& target, std::stop_token stop, KernelModel& model, bool& ran, bool& target_seen)
      : target_(target), stop_(stop), model_(model), ran_(ran), target_seen_(target_seen) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<Consumer>(*this, ci);
  }

 private:
  class Consumer : public clang::ASTConsumer {
   public:
    Consumer(ModelAction& a, clang::CompilerInstance& ci) : a_(a), ci_(ci) {}
    bool HandleTopLevelDecl(clang::DeclGroupRef) override { return !a_.stop_.stop_requested(); }
    void HandleTranslationUnit(clang::ASTContext& ctx) override {
      a_.ran_ = true;
      if (a_.stop_.stop_requested()) return;
      clang::SourceManager& sm = ctx.getSourceManager();
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
};

struct RunOutcome {
  bool ran = false;          // the AST was built (errors or not)
  bool target_seen = false;  // the target file was part of it
};

// The file system a parse sees: the disk, with the editor's text of the main
// file (and of the target header parsed in the context of a .cu) on top, in
// the entry's working directory.
llvm::IntrusiveRefCntPtr<clang::FileManager> plan_files(const ParsePlan& plan, const std::string& target_text) {
  // A physical file system of our own: setting its working directory must not
  // change the process's (getRealFileSystem() is shared and would chdir).
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> physical(llvm::vfs::createPhysicalFileSystem().release());
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(physical);
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  memory->addFile(plan.main_file, 0, llvm::MemoryBuffer::getMemBufferCopy(plan.main_text, plan.main_file));
  if (plan.target_file != plan.main_file)
    memory->addFile(plan.target_file, 0, llvm::MemoryBuffer::getMemBufferCopy(target_text, plan.target_file));
  std::error_code ec;
  if (!plan.working_directory.empty() && fs::is_directory(plan.working_directory, ec))
    (void)overlay->setCurrentWorkingDirectory(plan.working_directory);
  return llvm::IntrusiveRefCntPtr<clang::FileManager>(new clang::FileManager(clang::FileSystemOptions(), overlay));
}

RunOutcome run_clang(const ParsePlan& plan, const std::string& target_text, std::stop_token stop,
                     KernelModel& model, DiagnosticCollector& diags) {
  llvm::IntrusiveRefCntPtr<clang::FileManager> files = plan_files(plan, target_text);
  RunOutcome out;
  auto action = std::make_unique<ModelAction>(plan.target_file, stop, model, out.ran, out.target_seen);
  clang::tooling::ToolInvocation invocation(plan.args, std::move(action), files.get());
  invocation.setDiagnosticConsumer(&diags);
  invocation.run();
  return out;
}

// The same parse, keeping the AST (ASTUnit) for the rewrite engine, as
// clang::tooling::buildASTFromCode does, but with the plan's command line and
// file system.
class KeepAst : public clang::tooling::ToolAction {
 public:
  std::unique_ptr<clang::ASTUnit> unit;
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation, clang::FileManager* files,
                     std::shared_ptr<clang::PCHContainerOperations> pch, clang::DiagnosticConsumer* diags) override {
    unit = clang::ASTUnit::LoadFromCompilerInvocation(
        invocation, std::move(pch),
        clang::CompilerInstance::createDiagnostics(&invocation->getDiagnosticOpts(), diags, /*ShouldOwnClient=*/false),
        files);
    return unit != nullptr;
  }
};

std::unique_ptr<clang::ASTUnit> run_clang_keeping_ast(const ParsePlan& plan, const std::string& target_text,
                                                      DiagnosticCollector& diags) {
  llvm::IntrusiveRefCntPtr<clang::FileManager> files = plan_files(plan, target_text);
  KeepAst action;
  clang::tooling::ToolInvocation invocation(plan.args, &action, files.get(),
                                            std::make_shared<clang::PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&diags);
  invocation.run();
  // The unit's diagnostics engine still points at `diags`, which the caller
  // destroys before the unit: detach it.
  if (action.unit) action.unit->getDiagnostics().setClient(new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  return std::move(action.unit);
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

namespace {

// Steps 1-4 of docs/frontend.md: the compile command, the toolkit, the
// architecture and the command line. Toolchain facts and problems go to `r`.
ParsePlan plan_parse(const SourceFile& file, const AnalysisOptions& options, ParseResult& r) {
  // 1. The compile command.
  CommandForFile command = find_command_for_file(file.path, options.compile_commands_dir);
  for (auto& f : command.findings) r.diagnostics.push_back(std::move(f));
  r.toolchain.compile_command_source = command.description;

  // 2. The toolkit (a clang compile command's --cuda-path is a hint).
  std::string cuda_setting = options.cuda_path;
  if (cuda_setting.empty() && command.command && !command.command->cuda_path.empty())
    cuda_setting = command.command->cuda_path;
  CudaToolkit toolkit = locate_cuda_toolkit(cuda_setting);
  std::string data_dir = find_data_dir();
  r.toolchain.cuda_found = toolkit.found;
  r.toolchain.cuda_path = toolkit.path;
  r.toolchain.cuda_version = toolkit.version;

  // 3. The architecture: the build's (highest it targets), else the option.
  std::string requested = options.arch;
  std::string candidate = options.arch;
  if (command.command && !command.command->gpu_archs.empty()) {
    requested = command.command->gpu_archs.front();
    for (const auto& a : command.command->gpu_archs)
      if (gpu_arch_number(a) > gpu_arch_number(requested)) requested = a;
    candidate = pick_gpu_arch(command.command->gpu_archs);
  }
  ParseArch arch = choose_parse_arch(candidate);
  r.toolchain.requested_arch = normalize_gpu_arch(requested).empty() ? requested : normalize_gpu_arch(requested);
  r.toolchain.parse_arch = arch.parse;
  if (arch.clamped || arch.parse != r.toolchain.requested_arch) {
    std::string reason = arch.clamped ? arch.reason
                                      : "the build also targets " + r.toolchain.requested_arch +
                                            ", which Clang 19 cannot parse; analysing the " + arch.parse + " build";
    r.diagnostics.push_back(toolchain_finding(file.path, Severity::Information, reason));
  }

  // 4. The command line.
  ParsePlan plan;
  plan.target_file = file.path;
  plan.main_file = file.path;
  plan.main_text = file.text;
  plan.working_directory = command.directory;
  if (!command.context_file.empty()) {
    std::ifstream in(command.context_file, std::ios::binary);
    if (in) {
      std::stringstream ss;
      ss << in.rdbuf();
      plan.main_file = command.context_file;
      plan.main_text = ss.str();
    }
  }
  std::vector<std::string>& args = plan.args;
  args = {"clang-19", "-fsyntax-only", "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=" + arch.parse,
          "-nocudalib", "-resource-dir=" + resource_dir(), "-ferror-limit=0", "-Wno-unknown-cuda-version",
          "-Wno-pragma-once-outside-header", "-Wno-unknown-warning-option",
          "-fno-caret-diagnostics"};
  if (command.command) args.insert(args.end(), command.command->args.begin(), command.command->args.end());
  if (!command.command || !command.command->sets_language_standard) args.push_back("-std=c++17");
  if (data_dir.empty())
    r.diagnostics.push_back(toolchain_finding(
        file.path, Severity::Warning,
        "warplens's bundled headers (share/warplens) were not found next to the binary; set "
        "WARPLENS_DATA_DIR. Parsing may report missing headers."));
  if (toolkit.found) {
    args.push_back("--cuda-path=" + toolkit.path);
    args.push_back("--no-cuda-version-check");
    if (toolkit.has_cccl_dir) args.insert(args.end(), {"-isystem", toolkit.path + "/include/cccl"});
    if (!toolkit.has_texture_fetch_header && !data_dir.empty())
      args.insert(args.end(), {"-isystem", cuda13_shim_dir(data_dir)});
    if (auto sdk = clang_target_sdk_version(toolkit); !sdk.empty())
      args.insert(args.end(), {"-Xclang", "-target-sdk-version=" + sdk});
  } else {
    plan.degraded = true;
    args.insert(args.end(), {"--cuda-path=/nonexistent-cuda", "-nocudainc"});
    if (!data_dir.empty())
      args.insert(args.end(), {"-I", no_toolkit_include_dir(data_dir), "-include", no_toolkit_prelude(data_dir)});
    std::string where = toolkit.searched.empty() ? "nowhere" : join(toolkit.searched, ", ");
    r.diagnostics.push_back(toolchain_finding(
        file.path, Severity::Information,
        "no CUDA toolkit found (looked in " + where +
            "): parsed with warplens's bundled prelude (degraded mode). Kernels, index expressions and "
            "launches are analysed; CUDA library headers (cuda_fp16.h, cub, cooperative_groups, ...) are "
            "unavailable. Install the toolkit or set CUDA_PATH / the cudaPath setting."));
  }
  if (!data_dir.empty()) args.insert(args.end(), {"-include", nvcc_compat_header(data_dir)});
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  args.push_back(plan.main_file);
  r.toolchain.degraded = plan.degraded;
  r.toolchain.clang_args = args;
  return plan;
}

}  // namespace

ParseResult parse_translation_unit(const SourceFile& file, const AnalysisOptions& options, std::stop_token stop) {
  ParseResult r;
  r.model.file = file.path;
  if (stop.stop_requested()) {
    r.cancelled = true;
    return r;
  }
  ParsePlan plan = plan_parse(file, options, r);
  if (stop.stop_requested()) {
    r.cancelled = true;
    return r;
  }

  // 5. Parse.
  auto diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded);
  RunOutcome outcome = run_clang(plan, file.text, stop, r.model, *diags);
  if (outcome.ran && !outcome.target_seen && plan.main_file != plan.target_file && !stop.stop_requested()) {
    // The context .cu does not reach the header after all: parse it alone.
    plan.main_file = plan.target_file;
    plan.main_text = file.text;
    plan.args.back() = plan.target_file;
    r.toolchain.clang_args = plan.args;
    r.toolchain.compile_command_source += " (header not reached; parsed alone)";
    diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded);
    r.model = KernelModel{};
    outcome = run_clang(plan, file.text, stop, r.model, *diags);
  }
  r.model.file = file.path;
  if (stop.stop_requested()) {
    r.cancelled = true;
    return r;
  }
  for (auto& f : diags->take_findings()) r.diagnostics.push_back(std::move(f));
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
  ParsePlan plan = plan_parse(file, options, r);
  auto diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded);
  ast->unit = run_clang_keeping_ast(plan, file.text, *diags);
  if (ast->unit && plan.main_file != plan.target_file &&
      target_file_id(ast->unit->getSourceManager(), plan.target_file).isInvalid()) {
    // The context .cu does not reach the header after all: parse it alone.
    plan.main_file = plan.target_file;
    plan.main_text = file.text;
    plan.args.back() = plan.target_file;
    r.toolchain.clang_args = plan.args;
    r.toolchain.compile_command_source += " (header not reached; parsed alone)";
    diags = std::make_unique<DiagnosticCollector>(file.path, plan.degraded);
    ast->unit = run_clang_keeping_ast(plan, file.text, *diags);
  }
  for (auto& f : diags->take_findings()) r.diagnostics.push_back(std::move(f));
  if (!ast->unit) return ast;
  r.parsed = true;
  clang::SourceManager& sm = ast->unit->getSourceManager();
  ast->target = target_file_id(sm, plan.target_file);
  if (ast->target.isValid() && !stop.stop_requested()) {
    clang_frontend::SourceMapper map(sm, ast->unit->getLangOpts(), ast->target);
    r.model = clang_frontend::build_kernel_model(ast->unit->getASTContext(), map, file.path, stop);
  }
  r.model.file = file.path;
  r.cancelled = stop.stop_requested();
  return ast;
}

bool ParsedAst::has_errors() const {
  for (const Finding& f : result.diagnostics)
    if (f.source == "clang" && f.severity == Severity::Error) return true;
  return false;
}

}  // namespace warplens
