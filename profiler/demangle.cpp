#include "profiler/demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace warplens::profile {

std::string demangle(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string base_name(const std::string& demangled) {
  // Cut the parameter list: the last '(' at template depth 0. "operator()"
  // style names do not occur for kernels.
  std::string s = demangled;
  int depth = 0;
  std::size_t paren = std::string::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '(' && depth == 0) {
      paren = i;
      break;
    }
  }
  if (paren != std::string::npos) s.resize(paren);
  // Drop trailing template arguments "<...>".
  if (!s.empty() && s.back() == '>') {
    depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == '>') ++depth;
      else if (s[i] == '<' && --depth == 0) {
        s.resize(i);
        break;
      }
    }
  }
  // Return type of a template instantiation: "void foo<int>" -> "foo".
  if (auto sp = s.rfind(' '); sp != std::string::npos) s = s.substr(sp + 1);
  if (auto colon = s.rfind("::"); colon != std::string::npos) s = s.substr(colon + 2);
  return s;
}

}  // namespace warplens::profile
