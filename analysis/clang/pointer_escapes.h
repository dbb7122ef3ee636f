// Which pointer parameters of a kernel or __device__ function are used in
// ways its recorded accesses do not show (Parameter::pointer_escapes), so
// that "the kernel only reads `in`" is a claim the model can stand behind.
// Internal to analysis/clang/.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include "analysis/clang/source_mapper.h"
#include "analysis/kernel_model.h"

namespace warplens::clang_frontend {

// Sets Parameter::pointer_escapes on `out` (the model of `fn`). A pointer
// parameter escapes when some use of it, or of a local pointer initialised
// from it, is not: a memory access (`p[i]`, `*p`, `p->f`, through casts and
// pointer arithmetic), an atomic or __ldg-style access, a comparison or test,
// or an argument of a __device__ function defined in the target file (whose
// own parameters say the rest).
void mark_escaping_pointer_params(clang::ASTContext& ctx, const SourceMapper& map, const clang::FunctionDecl* fn,
                                  Function& out);

}  // namespace warplens::clang_frontend
