// Small AST queries shared by the model builder's files. Internal to
// analysis/clang/. All inline, so the directory also builds as one unity TU.
#pragma once

#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>

#include <string>

namespace warplens::clang_frontend {

inline bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The plain name of a function ("__syncthreads", "operator[]"); empty for null.
inline std::string callee_name(const clang::FunctionDecl* fd) {
  if (!fd) return "";
  if (auto* id = fd->getIdentifier()) return id->getName().str();
  return fd->getNameAsString();
}

// In a system header (the CUDA toolkit, libstdc++, clang's wrappers).
inline bool in_system_header(const clang::SourceManager& sm, clang::SourceLocation loc) {
  return loc.isValid() && sm.isInSystemHeader(sm.getExpansionLoc(loc));
}

inline bool in_namespace(const clang::Decl* d, llvm::StringRef ns) {
  for (const clang::DeclContext* dc = d->getDeclContext(); dc; dc = dc->getParent())
    if (auto* n = llvm::dyn_cast<clang::NamespaceDecl>(dc); n && n->getName() == ns) return true;
  return false;
}

// The class of a value, reference or pointer type ("thread_block"); empty otherwise.
inline const clang::CXXRecordDecl* record_of(clang::QualType t) {
  t = t.getNonReferenceType();
  if (t->isPointerType()) t = t->getPointeeType();
  return t->getAsCXXRecordDecl();
}
inline std::string record_name(clang::QualType t) {
  auto* rd = record_of(t);
  return rd ? rd->getNameAsString() : "";
}

// A cooperative_groups type (thread_block, grid_group, thread_block_tile, ...).
inline bool is_cooperative_groups_type(clang::QualType t) {
  auto* rd = record_of(t);
  return rd && in_namespace(rd, "cooperative_groups");
}

// The only statement of a one-line function: `return expr;`.
inline const clang::ReturnStmt* single_return(const clang::FunctionDecl* fd) {
  auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(fd->getBody());
  if (!body) return nullptr;
  const clang::ReturnStmt* ret = nullptr;
  for (const clang::Stmt* s : body->body()) {
    if (llvm::isa<clang::NullStmt>(s)) continue;
    if (ret || !llvm::isa<clang::ReturnStmt>(s)) return nullptr;
    ret = llvm::cast<clang::ReturnStmt>(s);
  }
  return ret && ret->getRetValue() ? ret : nullptr;
}

}  // namespace warplens::clang_frontend
