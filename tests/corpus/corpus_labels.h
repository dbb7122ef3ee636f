// The corpus label convention (README.md): `// expect: CODE(ARGS)@SEVERITY`
// comments, parsed into expected findings, and the comparison of expected
// with reported findings into a per-code confusion.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"

namespace warplens::corpus {

struct Label {
  std::string file;
  int line = 0;              // 1-based
  std::string code;
  std::string kind;          // load / store / atomic; fusable-intermediate: the severity; or empty
  std::optional<int> degree;     // N-way
  std::optional<double> ratio;   // Rx
  std::optional<Severity> severity;
};

// Parses every `// expect:` comment of `text`. Malformed labels are errors
// (returned in `errors`), so a typo cannot silently drop a label.
std::vector<Label> parse_labels(const std::string& file, const std::string& text, std::vector<std::string>& errors);

// The codes the corpus labels.
const std::vector<std::string>& labelled_codes();

// Findings of the labelled codes, one per (line, code, access kind).
struct Observed {
  std::string file;
  int line = 0;  // 1-based
  std::string code;
  std::string kind;
  const Finding* finding = nullptr;
};
std::vector<Observed> observed_findings(const std::string& file, const std::vector<Finding>& findings);

struct Confusion {
  int tp = 0, fp = 0, fn = 0;
  double precision() const { return tp + fp ? double(tp) / (tp + fp) : 1.0; }
  double recall() const { return tp + fn ? double(tp) / (tp + fn) : 1.0; }
};

struct Comparison {
  std::map<std::string, Confusion> by_code;
  std::vector<std::string> false_positives;  // "file:line code(kind): message"
  std::vector<std::string> false_negatives;
  std::vector<std::string> detail_mismatches;  // matched, but degree/ratio/severity differ
};

void compare(const std::vector<Label>& expected, const std::vector<Observed>& observed, Comparison& out);

}  // namespace warplens::corpus
