// Findings: what every analysis (static, resource, measured) reports.
//
// A Finding is the engine's diagnostic: plain data, no LSP. formats/convert
// turns it into an LSP Diagnostic (UTF-16 ranges, codeDescription, data) and
// the CLI prints it like a compiler. Codes are stable strings documented one
// page each under docs/diagnostics/.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "analysis/source_range.h"

namespace warplens {

// Same numbering as LSP's DiagnosticSeverity, so conversion is trivial, but
// defined here so the engine does not depend on protocol/.
enum class Severity : int { Error = 1, Warning = 2, Information = 3, Hint = 4 };
const char* to_string(Severity s);  // "error", "warning", "info", "hint"

namespace codes {
// Front end
inline constexpr const char* kClang = "clang";                     // Clang's own diagnostic (code = its flag/id)
inline constexpr const char* kToolchain = "cuda-toolkit";         // toolkit missing, degraded mode, arch clamp
inline constexpr const char* kCompileCommand = "compile-command"; // a compile_commands.json problem
inline constexpr const char* kAnalysisLimit = "analysis-limit";   // too large to analyse; not source text
// Static analyses
inline constexpr const char* kUncoalescedGlobal = "uncoalesced-global";
inline constexpr const char* kSharedBankConflict = "shared-bank-conflict";
inline constexpr const char* kLowOccupancy = "low-occupancy";
inline constexpr const char* kCannotLaunch = "cannot-launch";      // no block of the launch fits on an SM
inline constexpr const char* kRegisterSpill = "register-spill";
inline constexpr const char* kDivergentBarrier = "divergent-barrier";
inline constexpr const char* kWarpDivergence = "warp-divergence";
inline constexpr const char* kIndirectAccess = "indirect-access";
inline constexpr const char* kFusableIntermediate = "fusable-intermediate";
inline constexpr const char* kResourceUsage = "resource-usage";    // nvcc failed etc.
}  // namespace codes

// Machine-readable evidence attached to a finding (LSP `data`, JSON output).
using EvidenceValue = std::variant<bool, std::int64_t, double, std::string>;
struct Evidence {
  std::vector<std::pair<std::string, EvidenceValue>> fields;
  void set(std::string key, EvidenceValue v);
  const EvidenceValue* get(const std::string& key) const;
};

struct TextEdit {
  Range range;
  std::string new_text;
};

struct Fix {
  std::string title;
  std::string file;
  std::vector<TextEdit> edits;
  bool preferred = false;
};

struct RelatedInformation {
  Location location;
  std::string message;
};

struct Finding {
  std::string code;
  Severity severity = Severity::Warning;
  std::string source = "warplens";    // "clang", "warplens", "warplens-profile"
  Location location;
  std::string message;
  std::vector<RelatedInformation> related;
  std::vector<Fix> fixes;
  Evidence data;
  std::string explanation_markdown;   // hover text for this finding's range
  std::string kernel;                 // Function::key of the kernel it concerns, if any
  bool unnecessary = false;           // rendered faded (LSP DiagnosticTag.Unnecessary)
};

}  // namespace warplens
