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
      max_ast_bytes(std::size_t{1} << 30),
      max_time(30'000) {}

}  // namespace warplens
