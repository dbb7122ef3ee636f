// Device function names as the toolchain prints them (mangled, sometimes
// with an nvcc prefix) versus as the kernel model spells them (Clang's
// printing), and how to match the two.
//
// ptxas and nvlink report Itanium-mangled names; we demangle them with the
// C++ runtime's abi::__cxa_demangle (no c++filt / cu++filt dependency). The
// demangler and Clang print types differently (`float const*` vs
// `const float *`, `unsigned long` vs `size_t`), so comparison goes through
// normalize_type_spelling(), and matching prefers the name, then template
// arguments, then parameter types, and never guesses between instantiations
// whose template arguments do not match.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernel_model.h"

namespace warplens {

// Removes nvlink's prefix for internal-linkage symbols in relocatable code:
// "__nv_static_<N>__<N characters>" + mangled name. Other names unchanged.
std::string strip_nvcc_static_prefix(std::string_view symbol);

// The demangled form of an Itanium-mangled symbol; the symbol itself when it
// is not mangled (extern "C" kernels) or already demangled (old Windows logs).
std::string demangle(std::string_view symbol);

// A demangled function signature taken apart.
struct DemangledSignature {
  std::string qualified_name;        // "ns::scale", "(anonymous namespace)::hidden"
  std::string name;                  // "scale"
  std::string template_args;         // "<float, 256>", or empty
  std::vector<std::string> params;   // as printed: "float const*"
  bool has_params = false;           // false for extern "C" names (no parameter list)
};
DemangledSignature parse_demangled(std::string_view demangled);

// Last `::` component, template arguments removed: "ns::scale<float, 1>" -> "scale".
std::string unqualified_name(std::string_view name);

// Canonical spelling for comparing types printed by Clang and by the
// demangler: east const, no __restrict__, no spaces except between words,
// builtin synonyms unified (`unsigned` = `unsigned int`, `size_t` = `unsigned long`).
std::string normalize_type_spelling(std::string_view type);
// As above, minus the parameter's own top-level const/volatile, which is not
// part of a function's type (`float *const p` has type `float *`).
std::string normalize_parameter_type(std::string_view type);
// "<float, 256u>" -> "<float,256>" (integer literal suffixes dropped).
std::string normalize_template_args(std::string_view args);

// Indices of `symbols` (demangled names) that are `fn`: one for a plain
// kernel or an instantiation, several for a template pattern (one per
// instantiation), none when nothing matches unambiguously.
std::vector<int> match_function_symbols(const Function& fn,
                                        const std::vector<std::string>& demangled_symbols);

}  // namespace warplens
