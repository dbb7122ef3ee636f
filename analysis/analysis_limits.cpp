#include "analysis/analysis_limits.h"

namespace warplens {

AnalysisLimits::AnalysisLimits()
    // Generated sources with large tables run to a few MiB; hand-written .cu
    // files to a few hundred KiB.
    : max_source_bytes(std::size_t{4} << 20),
      // A .cu file with the CUDA and standard headers is ~0.3 million tokens
      // (measured on examples/: clang -E, device side); 30x that.
      max_tokens(10'000'000),
      // An expression run: between `;`, `{`, `}` and the commas of a braced
      // list. Clang and the model builder walk such an expression
      // recursively; 30,000-term sums (60,000 tokens) are analysed.
      max_expression_tokens(400'000),
      // `if (c) if (c) ... ;`: each statement opens a scope, and Clang looks
      // a name up through every enclosing scope, so the parse is quadratic
      // in the depth (20,000: 7 s; 100,000: past the time limit; clang
      // -fsyntax-only itself dies of its stack). Real code nests a handful.
      max_unbraced_nesting(2'000),
      max_ast_bytes(std::size_t{1} << 30),
      // Wall-clock time: a backstop against hangs, not a size rule (tokens,
      // expression length, stack and AST memory bound the size). Ordinary
      // files that need Eigen/CUB-sized headers take 20-30 s to parse on a
      // loaded 2-core machine (CI runs ctest in parallel), so the backstop
      // sits well above that.
      max_time(120'000) {}

}  // namespace warplens
