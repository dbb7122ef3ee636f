// The nvcc/ptxas/nvlink output parser against recorded outputs:
// tests/fixtures/ptxas/cuda13/ (recorded with record.sh from kernels.cu on
// CUDA 13.0) and tests/fixtures/ptxas/older/ (CUDA 9-12 formats, written
// after public logs cited in each file).
#include <doctest/doctest.h>

#include "analysis/ptxas_report.h"
#include "occupancy_test_support.h"

using namespace warplens;
using warplens::test::read_fixture;

namespace {

const FunctionResources& fn(const ToolOutput& out, const std::string& symbol,
                            ResourceOrigin origin = ResourceOrigin::Ptxas) {
  const FunctionResources* f = out.find(symbol, origin);
  REQUIRE_MESSAGE(f != nullptr, "no record for " << symbol);
  return *f;
}

const FunctionResources& by_demangled(const ToolOutput& out, const std::string& demangled) {
  for (const auto& f : out.functions)
    if (f.demangled == demangled) return f;
  FAIL("no record demangling to " << demangled);
  throw 0;
}

}  // namespace

TEST_CASE("CUDA 13 sm_90: every kernel, demangled, with barriers, smem and stack") {
  ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/kernels_sm_90.txt"));
  CHECK_FALSE(out.has_errors());
  CHECK(out.gmem_bytes == 4);
  // 10 entry functions + the __noinline__ helper.
  CHECK(out.functions.size() == 11);

  const auto& t = fn(out, "_Z9transposePKfPfi");
  CHECK(t.demangled == "transpose(float const*, float*, int)");
  CHECK(t.is_entry);
  CHECK(t.arch == "sm_90");
  CHECK(t.registers == 14);
  CHECK(t.barriers == 1);
  CHECK(t.shared_static_bytes == 4224);  // 32 x 33 floats
  CHECK(t.cmem.empty());                 // sm_90 prints no cmem
  CHECK(t.spill_store_bytes == 0);

  const auto& h = fn(out, "_Z5heavyPKfPfi");
  CHECK(h.registers == 128);
  CHECK(h.stack_frame_bytes == 528);
  CHECK(h.cumulative_stack_bytes == 528);
  CHECK(h.spill_store_bytes == 272);
  CHECK(h.spill_load_bytes == 272);

  const auto& helper = fn(out, "_Z6helperf");
  CHECK_FALSE(helper.is_entry);
  CHECK_FALSE(helper.registers.has_value());
  CHECK(helper.demangled == "helper(float)");

  CHECK(fn(out, "_ZN2ns5scaleIfLi256EEEvPT_PKS1_S1_i").demangled ==
        "void ns::scale<float, 256>(float*, float const*, float, int)");
  CHECK(fn(out, "c_kernel").demangled == "c_kernel");
  // The anonymous namespace's mangled id depends on the file; match by demangled name.
  CHECK(by_demangled(out, "(anonymous namespace)::hidden(int*)").registers == 8);
  CHECK(fn(out, "_Z8big_smemPf").shared_static_bytes == 49152);
  CHECK(fn(out, "_Z10uses_constPf").cumulative_stack_bytes == 8);  // printf's buffer
  CHECK(fn(out, "_Z10accumulatePK6float4Pfi").registers == 54);
}

TEST_CASE("CUDA 13 on sm_75/80/86/89 prints cmem[0]; sm_100/120 do not") {
  for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_89"}) {
    CAPTURE(arch);
    ToolOutput out = parse_nvcc_output(read_fixture(std::string("ptxas/cuda13/kernels_") + arch + ".txt"));
    const auto& t = fn(out, "_Z9transposePKfPfi");
    CHECK(t.arch == arch);
    CHECK(t.registers.value_or(0) > 0);
    CHECK(t.barriers == 1);
    CHECK(t.shared_static_bytes == 4224);
    CHECK(t.cmem_bank(0) > 300);
    CHECK(out.functions.size() == 11);
  }
  for (const char* arch : {"sm_100", "sm_120"}) {
    CAPTURE(arch);
    ToolOutput out = parse_nvcc_output(read_fixture(std::string("ptxas/cuda13/kernels_") + arch + ".txt"));
    const auto& t = fn(out, "_Z9transposePKfPfi");
    CHECK(t.arch == arch);
    CHECK(t.cmem.empty());
    CHECK(t.shared_static_bytes == 4224);
    CHECK(out.functions.size() == 11);
  }
  // Recorded values, so a parser change that shifts fields shows up.
  ToolOutput sm86 = parse_nvcc_output(read_fixture("ptxas/cuda13/kernels_sm_86.txt"));
  CHECK(fn(sm86, "_Z9transposePKfPfi").registers == 12);
  CHECK(fn(sm86, "_Z9transposePKfPfi").cmem_bank(0) == 372);
  CHECK(fn(sm86, "_Z10uses_constPf").cumulative_stack_bytes == 8);
}

TEST_CASE("-maxrregcount=32: spills and register limits") {
  ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/kernels_sm_90_maxrregcount32.txt"));
  const auto& a = fn(out, "_Z10accumulatePK6float4Pfi");
  CHECK(a.registers == 32);
  CHECK(a.register_limit == 32);
  CHECK(a.spill_store_bytes == 144);
  CHECK(a.spill_load_bytes == 148);
  CHECK(a.stack_frame_bytes == 152);
  // __launch_bounds__(256, 2) overrides the global cap: no override line names it.
  CHECK_FALSE(fn(out, "_Z5heavyPKfPfi").register_limit.has_value());
  CHECK(fn(out, "_Z5heavyPKfPfi").registers == 128);
}

TEST_CASE("--resource-usage -c prints the same ptxas blocks") {
  ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/kernels_sm_80_resource_usage.txt"));
  CHECK(fn(out, "_Z9transposePKfPfi").arch == "sm_80");
  CHECK(out.functions.size() == 11);
}

TEST_CASE("relocatable device code: ptxas per function, nvlink's final numbers") {
  ToolOutput ptx = parse_nvcc_output(read_fixture("ptxas/cuda13/kernels_sm_90_rdc_ptxas.txt"));
  CHECK(fn(ptx, "_Z5heavyPKfPfi").spill_store_bytes > 0);
  ToolOutput link = parse_nvcc_output(read_fixture("ptxas/cuda13/kernels_sm_90_rdc_nvlink.txt"));
  CHECK_FALSE(link.has_errors());
  const auto& t = fn(link, "_Z9transposePKfPfi", ResourceOrigin::Nvlink);
  CHECK(t.is_entry);
  CHECK(t.registers == 14);
  CHECK(t.barriers == 1);
  CHECK(t.shared_static_bytes == 4224 + 1024);  // nvlink counts the driver's reservation
  CHECK(t.cmem_bank(0) == 548);
  CHECK(t.local_bytes == 0);
  CHECK(fn(link, "_Z5heavyPKfPfi", ResourceOrigin::Nvlink).cumulative_stack_bytes == 544);
  // Internal linkage gets nvlink's "__nv_static_<n>__<id>_" prefix.
  const auto& hidden = by_demangled(link, "(anonymous namespace)::hidden(int*)");
  CHECK(hidden.origin == ResourceOrigin::Nvlink);
  CHECK(hidden.symbol.rfind("_ZN", 0) == 0);
}

TEST_CASE("build errors are diagnostics with file, line and context") {
  SUBCASE("EDG front end") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/error_frontend_sm_90.txt"));
    REQUIRE(out.diagnostics.size() == 1);
    const auto& d = out.diagnostics[0];
    CHECK(d.tool == "cudafe");
    CHECK(d.level == ToolDiagnostic::Level::Error);
    CHECK(d.file == "err_frontend.cu");
    CHECK(d.line == 1);
    CHECK(d.message == "identifier \"undefined_thing\" is undefined");
    CHECK(d.context.size() == 2);  // the source line and the caret
    CHECK(out.functions.empty());
  }
  SUBCASE("host preprocessor") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/error_include_sm_90.txt"));
    REQUIRE(out.diagnostics.size() == 1);
    const auto& d = out.diagnostics[0];
    CHECK(d.tool == "preprocessor");
    CHECK(d.level == ToolDiagnostic::Level::Fatal);
    CHECK(d.file == "err_include.cu");
    CHECK(d.line == 1);
    CHECK(d.column == 10);
    CHECK(d.message == "missing_header.h: No such file or directory");
  }
  SUBCASE("ptxas: too much shared memory, with the usage still printed") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/error_too_much_smem_sm_90.txt"));
    REQUIRE(out.diagnostics.size() == 1);
    CHECK(out.diagnostics[0].tool == "ptxas");
    CHECK(out.diagnostics[0].message.find("uses too much shared data") != std::string::npos);
    CHECK(fn(out, "_Z1kPf").shared_static_bytes == 65536);
  }
  SUBCASE("unsupported architecture") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/error_unsupported_arch_sm_70.txt"));
    REQUIRE(out.diagnostics.size() == 1);
    CHECK(out.diagnostics[0].tool == "nvcc");
    CHECK(out.diagnostics[0].level == ToolDiagnostic::Level::Fatal);
    CHECK(out.diagnostics[0].message == "Unsupported gpu architecture 'sm_70'");
  }
  SUBCASE("unresolved extern function") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/error_undefined_extern_sm_90.txt"));
    REQUIRE(out.diagnostics.size() == 1);
    CHECK(out.diagnostics[0].message == "Unresolved extern function '_Z3extf'");
  }
  SUBCASE("nvlink undefined reference, with the device runtime's functions listed") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/cuda13/error_rdc_extern_nvlink_sm_90.txt"));
    REQUIRE(out.has_errors());
    CHECK(out.diagnostics[0].tool == "nvlink");
    CHECK(out.diagnostics[0].message.find("Undefined reference to '_Z3extf'") == 0);
    // nvlink still lists the kernel (and the device runtime's helpers).
    CHECK(out.find("_Z1kPf", ResourceOrigin::Nvlink) != nullptr);
  }
  SUBCASE("ptxas rejecting PTX, located form") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/older/ptx_syntax_error.txt"));
    REQUIRE(out.diagnostics.size() == 2);
    CHECK(out.diagnostics[0].level == ToolDiagnostic::Level::Fatal);
    CHECK(out.diagnostics[0].file == "/tmp/tmpxft_0000a1b2_00000000-7_gemm.compute_80.ptx");
    CHECK(out.diagnostics[0].line == 208);
    CHECK(out.diagnostics[0].message == "Parsing error near ':': syntax error");
  }
}

TEST_CASE("-rdc -c withholds resource usage") {
  ToolOutput out = parse_nvcc_output("nvcc warning : Resource usage is not shown as the final resource "
                                     "allocation is not done.\n");
  CHECK(out.resource_usage_withheld);
  CHECK(out.diagnostics.empty());
}

TEST_CASE("older formats") {
  SUBCASE("CUDA 10, sm_70: no barriers field") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/older/cuda10_sm70.txt"));
    REQUIRE(out.functions.size() == 2);
    const auto& f = fn(out, "_Z9fft_stagePK6float2PS_i");
    CHECK(f.demangled == "fft_stage(float2 const*, float2*, int)");
    CHECK(f.registers == 40);
    CHECK(f.barriers == 0);
    CHECK(f.shared_static_bytes == 4224);
    CHECK(f.cmem_bank(0) == 368);
    CHECK(fn(out, "_Z6squarePfi").registers == 8);
  }
  SUBCASE("CUDA 11, sm_80: textures and spills") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/older/cuda11_sm80_textures.txt"));
    const auto& f = fn(out, "_Z15scrypt_core_texILi1ELi2EEvPjjj");
    CHECK(f.textures == 1);
    CHECK(f.spill_load_bytes == 388);
    CHECK(f.cmem_bank(0) == 372);
    CHECK(f.demangled == "void scrypt_core_tex<1, 2>(unsigned int*, unsigned int, unsigned int)");
  }
  SUBCASE("CUDA 12 sm_90a, indented pip log") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/older/cuda12_sm90a_indented.txt"));
    REQUIRE(out.functions.size() == 1);
    const auto& f = out.functions[0];
    CHECK(f.arch == "sm_90a");
    CHECK(f.registers == 168);
    CHECK(f.barriers == 16);
    CHECK(f.cumulative_stack_bytes == 64);
    CHECK(f.spill_store_bytes == 144);
    CHECK(out.gmem_bytes == 16);
  }
  SUBCASE("MSBuild prefixes and non-entry runtime functions") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/older/msbuild_sm50.txt"));
    REQUIRE(out.functions.size() == 2);
    const auto& f = fn(out, "_Z12digit_bucketILj9ELj1248EEvP4equi");
    CHECK(f.registers == 255);
    CHECK(f.shared_static_bytes == 8192);
    CHECK(f.cmem_bank(2) == 4);
    CHECK(f.spill_load_bytes == 312);
    CHECK_FALSE(fn(out, "cudaMalloc").is_entry);
    CHECK(fn(out, "cudaMalloc").stack_frame_bytes == 8);
  }
  SUBCASE("names printed demangled") {
    ToolOutput out = parse_nvcc_output(read_fixture("ptxas/older/demangled_sm20.txt"));
    REQUIRE(out.functions.size() == 1);
    CHECK(out.functions[0].symbol == "walk(tree, int*, double, int)");
    CHECK(out.functions[0].registers == 46);
    CHECK(out.functions[0].cmem_bank(14) == 16);
    CHECK(out.functions[0].stack_frame_bytes == 72);
  }
}

TEST_CASE("garbage and partial input do not crash or invent data") {
  CHECK(parse_nvcc_output("").functions.empty());
  CHECK(parse_nvcc_output("random text\n(((\n: : :\n").functions.empty());
  ToolOutput out = parse_nvcc_output("ptxas info    : Used 12 registers\n");  // no function yet
  CHECK(out.functions.empty());
  out = parse_nvcc_output("ptxas info    : Function properties for _Z1fv\r\n"
                          "    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\r\n");
  REQUIRE(out.functions.size() == 1);
  CHECK(out.functions[0].spill_store_bytes == 8);
}
