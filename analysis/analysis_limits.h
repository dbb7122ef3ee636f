// The budget of one analysis: what a document may cost before warplens
// stops and says it is too large to analyse, instead of taking a minute and
// gigabytes (a macro bomb) or the process (a parser recursion too deep for
// any stack). Every limit is far above what real CUDA code needs; hitting
// one yields a single `analysis-limit` finding naming the limit
// (docs/diagnostics/analysis-limit.md) and no other results for the file.
//
// The default values live in analysis_limits.cpp (documented there and in
// docs/server.md), so tuning them rebuilds one file.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace warplens {

struct AnalysisLimits {
  AnalysisLimits();
  std::size_t max_source_bytes;           // the document itself (the editor's text)
  std::uint64_t max_tokens;               // preprocessor tokens of the translation unit
  std::uint64_t max_expression_tokens;    // tokens of one expression run
  std::uint64_t max_unbraced_nesting;     // `if`/`for`/`while`/... nested without braces in one run
  std::size_t max_ast_bytes;              // AST, preprocessor and source manager memory
  std::chrono::milliseconds max_time;     // parse and static analyses
};

}  // namespace warplens
