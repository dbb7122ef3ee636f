// A kernel's parameter list without Clang: parameter names and types from
// the source (a small C-declaration parser over source_tokens), and exact
// types from the captured symbol when it is C++-mangled (the mangled name
// encodes every parameter type after template substitution and typedefs).
//
// The verifier needs the types to know which buffers hold floating-point data
// (re-drawn for fresh inputs, compared with tolerance) and which hold
// integers (kept, compared exactly), and the names to compare the
// candidate's source with the original's.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/verifier/element_type.h"
#include "agent/verifier/source_tokens.h"

namespace warplens::verifier {

struct ParamInfo {
  std::string name;             // empty when unknown (types from a symbol)
  std::string type;             // as written, e.g. "const float *__restrict__"
  bool is_pointer = false;      // pointer or array parameter
  bool pointee_const = false;   // `const T*`
  std::string base_type;        // "float", "float4", "Params", "T"
  ElementType element = ElementType::Bytes;  // of the pointee for pointers, else of the value
};

struct KernelSignature {
  std::string name;             // unqualified: "transpose"
  std::string qualified;        // "ns::transpose<float>" when known
  std::vector<ParamInfo> params;
  std::string origin;           // "symbol" or "source"
};

// A __global__ function found in a tokenized source.
struct KernelDefinition {
  std::string name;
  int line = 0;
  std::size_t name_token = 0;
  std::size_t params_open = 0, params_close = 0;   // token indices of ( and )
  bool has_body = false;
  std::size_t body_open = 0, body_close = 0;       // token indices of { and }
  std::vector<ParamInfo> params;
  std::vector<std::string> template_params;        // names, when a template
  std::string launch_bounds;                       // "__launch_bounds__(256)" or empty
};

bool is_mangled_symbol(std::string_view symbol);
// The demangled form, or the input itself when it is not a mangled name.
std::string demangle_symbol(std::string_view symbol);
// "transpose" for "_Z9transposePKfPfi", "ns::transpose<float>(float*)" or "transpose".
std::string kernel_base_name(std::string_view symbol);
// Types from a mangled symbol; nullopt for extern "C" names.
std::optional<KernelSignature> signature_from_symbol(std::string_view symbol);

// Every __global__ function in the source, definitions and declarations,
// with typedef / using / object-like macro aliases resolved.
std::vector<KernelDefinition> find_kernels(const TokenizedSource& source);
// The definition (preferred) or declaration of `name`; nullptr when absent.
const KernelDefinition* find_kernel(const std::vector<KernelDefinition>& kernels, std::string_view name);

// The signature the verifier uses: types from the symbol when it is mangled,
// names from the source definition. `error` explains a mismatch (different
// parameter counts) or absence.
std::optional<KernelSignature> resolve_signature(std::string_view symbol, const KernelDefinition* definition,
                                                 std::string* error);

}  // namespace warplens::verifier
