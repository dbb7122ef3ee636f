// One parse of a file, kept: the AST, the kernel model built from it and
// Clang's diagnostics, with exactly the command line the analysis uses
// (compile_commands.json and its nvcc translation, the toolkit, the parse
// architecture, the bundled shims and nvcc-compatibility include; see
// docs/frontend.md). clangd's ParsedAST, on which its tweaks work, is the
// model: the rewrite engine (agent/rewrites/) edits this AST, so a file the
// diagnostics understood is the file the rewrites see.
//
// Clang types in the interface: only analysis/clang/ and agent/rewrites/
// include this header.
#pragma once

#include <clang/Basic/SourceLocation.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>

#include <memory>
#include <stop_token>
#include <string>

#include "analysis/frontend.h"

namespace warplens {

// A finished parse whose AST is still alive: the compiler instance and its
// action, EndSourceFile owed until this goes (ASTUnit's accessors, so the
// rewrite engine reads it as it would an ASTUnit).
struct KeptAst {
  std::unique_ptr<clang::CompilerInstance> instance;
  std::unique_ptr<clang::FrontendAction> action;  // set once BeginSourceFile succeeded
  ~KeptAst();
  clang::ASTContext& getASTContext() const;
  clang::SourceManager& getSourceManager() const;
  const clang::LangOptions& getLangOpts() const;
};

struct ParsedAst {
  // Null when Clang could not run, or a limit cut the parse
  // (result.over_limit says which).
  std::unique_ptr<KeptAst> unit;
  ParseResult result;                    // model, diagnostics, toolchain: as parse_translation_unit's
  clang::FileID target;                  // the file the model describes (invalid: not reached)
  std::string target_path;

  // Clang errors in the target file or the headers it includes (driver
  // errors too); the hidden CUDA false positives of docs/frontend.md §3 are
  // not errors here either.
  bool has_errors() const;
};

// Parses like parse_translation_unit (same plan, same diagnostics, same
// model, same limits, on a stack of its own) and keeps the AST. Never null; `unit` is null when the front end
// could not run, and `result.cancelled` is set when `stop` was requested.
std::unique_ptr<ParsedAst> parse_ast(const SourceFile& file, const AnalysisOptions& options, std::stop_token stop = {});

// The size of the stack the parse runs on. What walks a ParsedAst
// recursively (the rewrites) runs on one as large (common::run_with_stack):
// the parse's limits are set against it.
std::size_t parse_stack_bytes();

}  // namespace warplens
