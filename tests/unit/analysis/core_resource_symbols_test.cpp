// Demangling and matching ptxas' symbols to kernel-model functions.
#include <doctest/doctest.h>

#include "analysis/kernel_symbols.h"
#include "occupancy_test_support.h"

using namespace warplens;
using warplens::test::make_kernel;

TEST_CASE("demangle: Itanium names, extern \"C\", nvlink's static prefix, bad input") {
  CHECK(demangle("_Z9transposePKfPfi") == "transpose(float const*, float*, int)");
  CHECK(demangle("c_kernel") == "c_kernel");
  CHECK(demangle("_Zgarbage") == "_Zgarbage");
  CHECK(demangle("") == "");
  CHECK(demangle("__nv_static_32__b33543f0_10_kernels_cu_7ba2a369__ZN43_GLOBAL__N__b33543f0_10_kernels_cu_"
                 "7ba2a3696hiddenEPi") == "(anonymous namespace)::hidden(int*)");
  // The prefix's length field must be honoured, not guessed.
  CHECK(strip_nvcc_static_prefix("__nv_static_3__abc_Z1fv") == "_Z1fv");
  CHECK(strip_nvcc_static_prefix("__nv_static_99__short") == "__nv_static_99__short");
  CHECK(strip_nvcc_static_prefix("__nv_static_x") == "__nv_static_x");
}

TEST_CASE("parse_demangled takes signatures apart") {
  auto s = parse_demangled("void ns::scale<float, 256>(float*, float const*, float, int)");
  CHECK(s.qualified_name == "ns::scale");
  CHECK(s.name == "scale");
  CHECK(s.template_args == "<float, 256>");
  REQUIRE(s.params.size() == 4);
  CHECK(s.params[1] == "float const*");

  auto a = parse_demangled("(anonymous namespace)::hidden(int*)");
  CHECK(a.name == "hidden");
  CHECK(a.qualified_name == "(anonymous namespace)::hidden");

  auto f = parse_demangled("void apply<AddOne>(float*, int, AddOne)");
  CHECK(f.name == "apply");
  CHECK(f.template_args == "<AddOne>");

  auto n = parse_demangled("void flash::device_kernel<flash::Kernel<128, true> >(flash::Kernel<128, true>::Params)");
  CHECK(n.name == "device_kernel");
  CHECK(n.template_args == "<flash::Kernel<128, true> >");
  REQUIRE(n.params.size() == 1);
  CHECK(n.params[0] == "flash::Kernel<128, true>::Params");

  auto c = parse_demangled("c_kernel");
  CHECK(c.name == "c_kernel");
  CHECK_FALSE(c.has_params);

  auto v = parse_demangled("noargs()");
  CHECK(v.has_params);
  CHECK(v.params.empty());

  auto fp = parse_demangled("k(void (*)(int), int (&) [4])");
  CHECK(fp.name == "k");
  CHECK(fp.params.size() == 2);
}

TEST_CASE("type spellings of Clang and the demangler normalize alike") {
  CHECK(normalize_type_spelling("const float *") == normalize_type_spelling("float const*"));
  CHECK(normalize_parameter_type("const float *__restrict__") == normalize_parameter_type("float const*"));
  CHECK(normalize_parameter_type("float *const") == "float*");
  CHECK(normalize_parameter_type("const int") == "int");
  CHECK(normalize_type_spelling("unsigned") == "unsigned int");
  CHECK(normalize_type_spelling("size_t") == "unsigned long");
  CHECK(normalize_type_spelling("long long int") == "long long");
  CHECK(normalize_type_spelling("const ns::T<int> &") == "ns::T<int>const&");
  CHECK(normalize_type_spelling("float const*") != normalize_type_spelling("float*"));
  CHECK(normalize_template_args("<float, 256u>") == normalize_template_args("<float,256>"));
  CHECK(normalize_template_args("<9u, 1248u>") == "<9,1248>");
}

TEST_CASE("matching symbols to model functions") {
  std::vector<std::string> syms = {
      "transpose(float const*, float*, int)",
      "void ns::scale<float, 256>(float*, float const*, float, int)",
      "void ns::scale<double, 128>(double*, double const*, double, int)",
      "c_kernel",
      "(anonymous namespace)::hidden(int*)",
      "over(float*)",
      "over(int*)",
      "helper(float)",
  };
  SUBCASE("plain kernel") {
    auto f = make_kernel("transpose", {"const float *", "float *", "int"});
    CHECK(match_function_symbols(f, syms) == std::vector<int>{0});
  }
  SUBCASE("instantiation by template arguments") {
    auto f = make_kernel("scale", {"float *", "const float *", "float", "int"});
    f.template_args = "<float, 256>";
    CHECK(match_function_symbols(f, syms) == std::vector<int>{1});
    f.template_args = "<double, 128>";
    CHECK(match_function_symbols(f, syms) == std::vector<int>{2});
    f.template_args = "<half, 64>";  // never guess another instantiation
    CHECK(match_function_symbols(f, syms).empty());
  }
  SUBCASE("template pattern owns every instantiation") {
    auto f = make_kernel("scale", {"T *", "const T *", "T", "int"});
    f.is_template = true;
    CHECK(match_function_symbols(f, syms) == std::vector<int>{1, 2});
  }
  SUBCASE("qualified model name") {
    auto f = make_kernel("ns::scale", {"T *", "const T *", "T", "int"});
    f.is_template = true;
    CHECK(match_function_symbols(f, syms).size() == 2);
    auto g = make_kernel("other::scale", {"T *", "const T *", "T", "int"});
    g.is_template = true;
    CHECK(match_function_symbols(g, syms).empty());
  }
  SUBCASE("extern C and anonymous namespace") {
    CHECK(match_function_symbols(make_kernel("c_kernel", {"int *"}), syms) == std::vector<int>{3});
    CHECK(match_function_symbols(make_kernel("hidden", {"int *"}), syms) == std::vector<int>{4});
  }
  SUBCASE("overloads by parameter types") {
    CHECK(match_function_symbols(make_kernel("over", {"float *"}), syms) == std::vector<int>{5});
    CHECK(match_function_symbols(make_kernel("over", {"int *__restrict__"}), syms) == std::vector<int>{6});
    // Types we cannot tell apart: no numbers rather than the wrong overload's.
    CHECK(match_function_symbols(make_kernel("over", {"MyPtr"}), syms).empty());
  }
  SUBCASE("unknown name") { CHECK(match_function_symbols(make_kernel("nope"), syms).empty()); }
}
