#include <doctest/doctest.h>

#include "agent/verifier/kernel_signature.h"
#include "agent/verifier/source_tokens.h"

using namespace warplens::verifier;

TEST_CASE("tokenizer: comments and strings never produce identifiers; directives and macros are kept") {
  auto src = tokenize_source(R"(
#define N 1024
#define IDX(r, c) ((r) * n + (c))
// warplens: block=(256,1,1)
/* n in a comment */ const char* s = "n in a string";
__global__ void k(int n) { int v = IDX(1, 2); }
)");
  int n_count = 0;
  for (const auto& t : src.tokens)
    if (t.kind == TokenKind::Identifier && t.text == "n") ++n_count;
  CHECK(n_count == 1);  // only the parameter declaration
  REQUIRE(src.directives.size() == 1);
  CHECK(src.directives[0].text == "block=(256,1,1)");
  CHECK(src.directives[0].line == 4);
  const Macro* idx = src.find_macro("IDX");
  REQUIRE(idx);
  CHECK(idx->function_like);
  CHECK(idx->params == std::vector<std::string>{"r", "c"});
  const Macro* nmac = src.find_macro("N");
  REQUIRE(nmac);
  CHECK_FALSE(nmac->function_like);
  CHECK(nmac->body.at(0).text == "1024");
}

TEST_CASE("numeric literals") {
  bool is_int = false;
  CHECK(numeric_literal_value("1024", &is_int) == 1024.0);
  CHECK(is_int);
  CHECK(numeric_literal_value("0x400u") == 1024.0);
  CHECK(numeric_literal_value("1'048'576") == 1048576.0);
  CHECK(numeric_literal_value("2.5f", &is_int) == 2.5);
  CHECK_FALSE(is_int);
  CHECK(numeric_literal_value("1e-3") == doctest::Approx(1e-3));
  CHECK(numeric_literal_value("010") == 8.0);
  CHECK_FALSE(numeric_literal_value("abc"));
}

TEST_CASE("kernel declarations: names, pointer/element types, aliases, templates, launch bounds") {
  auto src = tokenize_source(R"(
typedef float real;
using index_t = int;
#define SCALAR double
struct Params { float* p; int n; };
template <typename T, int B>
__global__ void __launch_bounds__(256, 2) templ(const T* __restrict__ in, T* out, int n) {}
extern "C" __global__ void plain(const real* a, real *b, index_t n, SCALAR s, Params p, __half* h,
                                 float4* v, unsigned long long count, float arr[], int** table) { }
__global__ void decl_only(float*);
)");
  auto kernels = find_kernels(src);
  REQUIRE(kernels.size() == 3);
  const KernelDefinition* t = find_kernel(kernels, "templ");
  REQUIRE(t);
  CHECK(t->template_params == std::vector<std::string>{"T", "B"});
  CHECK(t->launch_bounds == "__launch_bounds__(256,2)");
  CHECK(t->params.at(0).element == ElementType::Bytes);  // T is a template parameter
  CHECK(t->params.at(0).is_pointer);
  CHECK(t->params.at(0).pointee_const);
  CHECK(t->params.at(2).name == "n");

  const KernelDefinition* p = find_kernel(kernels, "plain");
  REQUIRE(p);
  CHECK(p->has_body);
  REQUIRE(p->params.size() == 10);
  CHECK(p->params[0].name == "a");
  CHECK(p->params[0].element == ElementType::F32);  // through typedef
  CHECK(p->params[0].pointee_const);
  CHECK(p->params[1].is_pointer);
  CHECK_FALSE(p->params[1].pointee_const);
  CHECK(p->params[2].element == ElementType::I32);  // using
  CHECK_FALSE(p->params[2].is_pointer);
  CHECK(p->params[3].element == ElementType::F64);  // macro alias
  CHECK(p->params[4].element == ElementType::Bytes);  // struct by value
  CHECK(p->params[5].element == ElementType::F16);
  CHECK(p->params[6].element == ElementType::F32);  // float4 -> components
  CHECK(p->params[7].element == ElementType::U64);
  CHECK(p->params[8].is_pointer);                   // array parameter
  CHECK(p->params[8].name == "arr");
  CHECK(p->params[9].element == ElementType::Bytes);  // pointer to pointers

  const KernelDefinition* d = find_kernel(kernels, "decl_only");
  REQUIRE(d);
  CHECK_FALSE(d->has_body);
  CHECK(d->params.at(0).name.empty());
  CHECK(d->params.at(0).element == ElementType::F32);
}

TEST_CASE("symbols: demangling gives exact types; names come from the source") {
  CHECK(demangle_symbol("_Z9scale_addPKfS0_Pffi") == "scale_add(float const*, float const*, float*, float, int)");
  CHECK(kernel_base_name("_Z9scale_addPKfS0_Pffi") == "scale_add");
  CHECK(kernel_base_name("scale_add") == "scale_add");
  CHECK(kernel_base_name("_ZN2ns6kernelIfLi4EEEvPT_i") == "kernel");
  auto sig = signature_from_symbol("_Z9scale_addPKfS0_Pffi");
  REQUIRE(sig);
  REQUIRE(sig->params.size() == 5);
  CHECK(sig->params[0].is_pointer);
  CHECK(sig->params[0].pointee_const);
  CHECK(sig->params[0].element == ElementType::F32);
  CHECK_FALSE(sig->params[2].pointee_const);
  CHECK(sig->params[3].element == ElementType::F32);
  CHECK_FALSE(sig->params[3].is_pointer);
  CHECK(sig->params[4].element == ElementType::I32);

  auto templ = signature_from_symbol("_ZN2ns6kernelIfLi4EEEvPT_i");
  REQUIRE(templ);
  CHECK(templ->name == "kernel");
  CHECK(templ->qualified == "ns::kernel<float, 4>");
  CHECK(templ->params.at(0).element == ElementType::F32);  // T substituted

  CHECK_FALSE(signature_from_symbol("scale_add"));  // extern "C"

  auto src = tokenize_source("__global__ void scale_add(const float* x, const float* y, float* out, float a, int n) {}");
  auto kernels = find_kernels(src);
  std::string error;
  auto merged = resolve_signature("_Z9scale_addPKfS0_Pffi", find_kernel(kernels, "scale_add"), &error);
  REQUIRE(merged);
  CHECK(merged->params[2].name == "out");
  CHECK(merged->origin == "symbol");

  auto bad = tokenize_source("__global__ void scale_add(const float* x, int n) {}");
  auto bad_kernels = find_kernels(bad);
  CHECK_FALSE(resolve_signature("_Z9scale_addPKfS0_Pffi", find_kernel(bad_kernels, "scale_add"), &error));
  CHECK(error.find("2 parameters") != std::string::npos);
}
