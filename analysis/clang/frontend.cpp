// The Clang 19 front end: chooses the command line (compile_commands.json or
// defaults, toolkit or bundled prelude), parses the editor's text on the
// device side, turns Clang's diagnostics into findings and the AST into the
// kernel model. See docs/frontend.md.
#include <clang/AST/ASTConsumer.h>
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
#include <mutex>
#include <set>

#include "analysis/clang/diagnostic_collector.h"
#include "analysis/clang/guarded_fs.h"
#include "analysis/clang/model_builder.h"
#include "analysis/clang/parse_limiter.h"
#include "analysis/clang/parsed_ast.h"
#include "analysis/compile_db.h"
#include "analysis/cuda_toolkit.h"
#include "analysis/frontend.h"
#include "analysis/parse_plan.h"
#include "common/file_read.h"
#include "common/crash_recovery.h"
#include "common/large_stack.h"

namespace fs = std::filesystem;

namespace warplens {

bool frontend_available() { return true; }

namespace {

using clang_frontend::DiagnosticCollector;

std::string resource_dir() {
  if (const char* env = std::getenv("WARPLENS_CLANG_RESOURCE_DIR"); env && *env) return env;
  return WARPLENS_CLANG_RESOURCE_DIR;
}




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
  common::RecoveredCrash crash;      // Clang (or the model builder) crashed: nothing else here holds
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

// Inputs a parse crashed on, by a hash of the command line and the texts:
// the editor asks again for the same version (hover, code lens), and each
// recovered crash leaks that parse's memory.
std::size_t crash_key(const ParsePlan& plan, const std::string& target_text) {
  std::string key;
  for (const auto& a : plan.args) key += a + '\0';
  key += plan.main_text;
  key += '\0';
  key += target_text;
  return std::hash<std::string>{}(key);
}
std::mutex g_crashes_mutex;
std::set<std::size_t> g_crashes;
bool crashed_before(std::size_t key) {
  std::lock_guard lock(g_crashes_mutex);
  return g_crashes.count(key) != 0;
}
void remember_crash(std::size_t key) {
  std::lock_guard lock(g_crashes_mutex);
  g_crashes.insert(key);
}

// The finding for a parse that crashed (or crashed before on the same input).
Finding crash_finding(const std::string& path, const common::RecoveredCrash& crash) {
  std::string what = crash.signal < 0 ? std::string("crashed on this text before")
                                      : std::string("crashed on this file (") + common::describe(crash) + ")";
  Finding f = toolchain_finding(path, Severity::Warning,
                                "not analysed: the C++ front end (Clang 19) " + what +
                                    " (a Clang bug): fixing the file's errors may avoid it; otherwise please report the file to warplens");
  f.code = codes::kAnalysisLimit;
  return f;
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
  // A crash inside is recovered (common/crash_recovery.h): the parse is
  // abandoned, and what it built is not looked at again.
  const std::size_t key = crash_key(plan, target_text);
  if (crashed_before(key)) {
    out.crash.signal = -1;
    return out;
  }
  common::run_with_stack(clang_frontend::kParseStackBytes, [&](std::size_t stack_bytes) {
    out.crash = common::run_recovering([&] {
      char top = 0;
      clang_frontend::ParseLimiter limiter(limits, stop, &top, stack_bytes);
      auto action = std::make_unique<ModelAction>(plan.target_file, stop, model, out.ran, out.target_seen,
                                                  limiter, out.cut_line);
      clang::tooling::ToolInvocation invocation(plan.args, std::move(action), files.get());
      invocation.setDiagnosticConsumer(&diags);
      invocation.run();
      out.over_limit = limiter.reason();
    });
  });
  if (out.crash) {
    remember_crash(key);
    model = KernelModel{};
    RunOutcome crashed;
    crashed.crash = out.crash;
    return crashed;
  }
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
  if (outcome.ran && !outcome.target_seen && outcome.over_limit.empty() && !outcome.crash &&
      plan.main_file != plan.target_file && !stop.stop_requested()) {
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
  if (outcome.crash) {
    r.over_limit = crash_finding(file.path, outcome.crash);
    r.model = KernelModel{};
    r.model.file = file.path;
    r.parsed = false;
    return r;
  }
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
  const std::size_t key = crash_key(plan, file.text);
  common::RecoveredCrash crash;
  crash.signal = crashed_before(key) ? -1 : 0;
  // The parse and the model's walk on a stack of their own, under the
  // analysis' limits, as parse_translation_unit's: the rewrite engine must
  // not die where the diagnostics did not (its callers walk the AST on such
  // a stack too: agent/rewrites/engine.cpp). A crash inside is recovered.
  if (!crash) common::run_with_stack(clang_frontend::kParseStackBytes, [&](std::size_t stack_bytes) {
    crash = common::run_recovering([&] {
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
  });
  if (crash) {
    if (crash.signal > 0) remember_crash(key);
    for (auto& f : diags->take_findings()) r.diagnostics.push_back(std::move(f));
    r.over_limit = crash_finding(file.path, crash);
    r.model = KernelModel{};
    r.model.file = file.path;
    ast->target = {};
    // Not destroyed: a crash may have left it half built, and its destructor
    // would run outside the recovery. One parse's memory leaks, once per input.
    (void)outcome.ast.release();
    return ast;
  }
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
