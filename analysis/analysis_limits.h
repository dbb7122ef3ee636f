// The budget of one analysis: what a document may cost before warplens
// stops and says it is too large to analyse, instead of taking a minute and
// gigabytes (a macro bomb) or the process (a parser recursion too deep for
// any stack). Every limit is far above what real CUDA code needs; hitting
// one yields a single `analysis-limit` finding naming the limit
// (docs/diagnostics/analysis-limit.md) and no other results for the file.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace warplens {

struct AnalysisLimits {
  // The document itself (the editor's text). Generated sources with large
  // tables run to a few MiB; hand-written .cu files to a few hundred KiB.
  std::size_t max_source_bytes = std::size_t{4} << 20;
  // Preprocessor tokens the parser receives for the whole translation unit
  // (headers and macro expansions included). A .cu file with the CUDA and
  // standard headers is ~1-2 million.
  std::uint64_t max_tokens = 20'000'000;
  // Tokens of one expression run (between `;`, `{`, `}` and the commas of a
  // braced list): Clang and the model builder walk such an expression
  // recursively. 30,000-term sums are analysed.
  std::uint64_t max_expression_tokens = 400'000;
  // Memory the AST may take (Clang's allocator).
  std::size_t max_ast_bytes = std::size_t{1} << 30;
  // Wall time of the parse and the static analyses (not of nvcc, which has
  // its own timeout).
  std::chrono::milliseconds max_time{30'000};
};

// The stack the front end runs on (a thread of its own): Clang's recursive
// descent takes ~5 KiB per nesting level of `- - - x`. Reserved address
// space; only what is used is ever touched.
inline constexpr std::size_t kParseStackBytes = std::size_t{512} << 20;
// The parse stops, as too deeply nested, when this fraction of that stack
// is used; the rest is for what walks the finished AST.
inline constexpr double kParseStackFraction = 0.5;

}  // namespace warplens
