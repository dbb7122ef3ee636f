// The nvcc -> clang translation table (docs/frontend.md mirrors it).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "analysis/compile_db.h"

using namespace warplens;

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

struct Row {
  const char* command;   // as in compile_commands.json "command"
  const char* args;      // expected translated clang flags
  const char* archs;     // expected architectures
};

// Each row: a real-looking command line, the clang flags it becomes, the
// architectures it targets. Source /p/src/k.cu, directory /p/build.
const Row kRows[] = {
    // CMake's CUDA language with nvcc (3.2x style).
    {"/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DUSE_X -I/p/include -isystem=/usr/include/eigen3 "
     "-O3 -DNDEBUG -std=c++17 \"--generate-code=arch=compute_90,code=[compute_90,sm_90]\" -Xcompiler=-fPIC "
     "-x cu -c /p/src/k.cu -o CMakeFiles/k.dir/k.cu.o",
     "-DUSE_X -I/p/include -isystem /usr/include/eigen3 -DNDEBUG -std=c++17", "sm_90"},
    // Dependency files, -MD/-MT/-MF.
    {"nvcc -MD -MT k.o -MF k.o.d -arch=sm_80 -c ../src/k.cu -o k.o", "", "sm_80"},
    // Several -gencode: all collected (the front end picks the highest it can parse).
    {"nvcc -gencode arch=compute_70,code=sm_70 -gencode=arch=compute_80,code=sm_80 "
     "--generate-code arch=compute_90a,code=sm_90a -c k.cu",
     "", "sm_70 sm_80 sm_90a"},
    // -arch with compute_ and -code lists.
    {"nvcc -arch=compute_86 -code=sm_86,compute_86 -c k.cu", "", "sm_86"},
    {"nvcc --gpu-architecture sm_100 -c k.cu", "", "sm_100"},
    {"nvcc -arch=native -c k.cu", "", ""},
    // -Xcompiler lists: only preprocessor/dialect flags survive.
    {"nvcc -Xcompiler -fopenmp,-Wall,-DFROM_HOST -Xcompiler \"-I inc -fno-exceptions\" -c k.cu",
     "-DFROM_HOST -I /p/build/inc -fno-exceptions", ""},
    {"nvcc --compiler-options=-fPIC,-O2 -c k.cu", "", ""},
    // nvcc-only flags dropped; those with macros define them.
    {"nvcc -rdc=true --expt-relaxed-constexpr --extended-lambda -G -lineinfo --use_fast_math "
     "-maxrregcount=32 --resource-usage -Xptxas -v -Xnvlink --verbose -Xcudafe --diag_suppress=177 "
     "-ccbin /usr/bin/g++-12 -dc --keep -c k.cu -o k.o",
     "-D__CUDACC_RDC__ -fgpu-rdc -D__CUDACC_RELAXED_CONSTEXPR__ -D__CUDACC_EXTENDED_LAMBDA__ -D__CUDACC_DEBUG__ "
     "-D__USE_FAST_MATH__",
     ""},
    {"nvcc -rdc=false --expt-extended-lambda -c k.cu", "-D__CUDACC_EXTENDED_LAMBDA__", ""},
    {"nvcc --relocatable-device-code true -c k.cu", "-D__CUDACC_RDC__ -fgpu-rdc", ""},
    {"nvcc -dc k.cu", "-D__CUDACC_RDC__ -fgpu-rdc", ""},
    // Separate-value and glued preprocessor forms; relative paths made absolute.
    {"nvcc -I include -Iinclude2 -D FOO=1 -DBAR -U BAZ --include-path=../third -isystem sys "
     "--pre-include pre.h -c k.cu",
     "-I/p/build/include -I/p/build/include2 -DFOO=1 -DBAR -UBAZ -I/p/third -isystem /p/build/sys "
     "-include /p/build/pre.h",
     ""},
    // Language standard spellings.
    {"nvcc --std c++20 -c k.cu", "-std=c++20", ""},
    {"nvcc -std=c++14 -c k.cu", "-std=c++14", ""},
    // nvcc -Werror kinds, diag flags, warnings of nvcc's front end.
    {"nvcc -Werror all-warnings -Werror=cross-execution-space-call --diag-suppress 20012 "
     "-Wno-deprecated-gpu-targets -Wreorder -w -c k.cu",
     "-w", ""},
    // Default stream.
    {"nvcc --default-stream per-thread -c k.cu", "-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1", ""},
    {"nvcc -default-stream=legacy -c k.cu", "", ""},
    // Linking and tools.
    {"nvcc -o app k.cu -lcublas -L/opt/lib -l cudart --cudart shared -Xlinker -rpath,/x -m64", "", ""},
    // Launchers in front of the compiler.
    {"ccache /usr/local/cuda/bin/nvcc -DX -c k.cu", "-DX", ""},
    // Host-only flags forwarded by -forward-unknown-to-host-compiler.
    {"nvcc -forward-unknown-to-host-compiler -fPIC -Wall -Wextra -pthread -march=native -DKEEP -c k.cu",
     "-DKEEP", ""},
    // A clang CUDA compile: flags kept, outputs/arch/side dropped.
    {"clang++ -x cuda --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 --cuda-path=/opt/cuda -O2 -Wall -Iinc "
     "-DX -std=c++17 -c /p/src/k.cu -o k.o -MD -MF k.d",
     "-O2 -Wall -I/p/build/inc -DX -std=c++17", "sm_80 sm_90"},
    {"clang-19 --offload-arch=sm_75 -xcuda --cuda-device-only -nocudalib -resource-dir /x -c k.cu",
     "", "sm_75"},
    {"clang++ -Xclang -fno-pch-timestamp -isystem /usr/include/x -c k.cu", "-Xclang -fno-pch-timestamp -isystem /usr/include/x", ""},
    // g++ entry (a .cu compiled as C++ by some build): host filter.
    {"g++ -Iinc -DX -O2 -Wall -fPIC -std=gnu++17 -c k.cu -o k.o", "-I/p/build/inc -DX -std=gnu++17", ""},
};

}  // namespace

TEST_CASE("nvcc and clang command lines translate to clang device-parse flags") {
  for (const auto& row : kRows) {
    CAPTURE(row.command);
    auto t = translate_compile_command(split_shell_command(row.command), "/p/build", "/p/src/k.cu");
    CHECK(join(t.args) == row.args);
    CHECK(join(t.gpu_archs) == row.archs);
    CHECK(t.problems.empty());
  }
}

TEST_CASE("the compiler driver is recognised") {
  CHECK(translate_compile_command({"/usr/local/cuda/bin/nvcc", "-c", "k.cu"}, "/", "").driver ==
        CompilerDriver::Nvcc);
  CHECK(translate_compile_command({"sccache", "clang++-19", "-c", "k.cu"}, "/", "").driver ==
        CompilerDriver::Clang);
  CHECK(translate_compile_command({"/usr/bin/g++", "-c", "k.cu"}, "/", "").driver == CompilerDriver::Gcc);
  CHECK(translate_compile_command({}, "/", "").args.empty());
}

TEST_CASE("clang --cuda-path is kept as a toolkit hint") {
  auto t = translate_compile_command(split_shell_command("clang++ --cuda-path=/opt/cuda-12.4 -c k.cu"), "/p", "");
  CHECK(t.cuda_path == "/opt/cuda-12.4");
  CHECK(t.args.empty());
}

TEST_CASE("options files are expanded relative to the entry directory") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "warplens_optf_test";
  fs::create_directories(dir / "CMakeFiles");
  std::ofstream(dir / "CMakeFiles" / "includes_CUDA.rsp") << "-I\"/p/with space\" -isystem=/p/sys\n-DFROM_RSP";
  std::ofstream(dir / "outer.rsp") << "--options-file CMakeFiles/includes_CUDA.rsp -DOUTER";
  auto t = translate_compile_command(
      split_shell_command("nvcc --options-file outer.rsp -optf missing.rsp -c k.cu"), dir.string(), "");
  CHECK(join(t.args) == "-I/p/with space -isystem /p/sys -DFROM_RSP -DOUTER");
  REQUIRE(t.problems.size() == 1);
  CHECK(t.problems[0].find("missing.rsp") != std::string::npos);
  // clang @response files
  std::ofstream(dir / "clang.rsp") << "-DFROM_AT -Iinc";
  auto c = translate_compile_command({"clang++", "@clang.rsp", "-c", "k.cu"}, dir.string(), "");
  CHECK(join(c.args) == "-DFROM_AT -I" + (dir / "inc").string());
  fs::remove_all(dir);
}

TEST_CASE("shell splitting follows POSIX quoting") {
  CHECK(split_shell_command("a 'b c' \"d \\\"e\\\"\" f\\ g") ==
        std::vector<std::string>{"a", "b c", "d \"e\"", "f g"});
  CHECK(split_shell_command("  -DX=\"\\\"str\\\"\"  ") == std::vector<std::string>{"-DX=\"str\""});
  CHECK(split_shell_command("'' x") == std::vector<std::string>{"", "x"});
  CHECK(split_shell_command("a\\\nb") == std::vector<std::string>{"ab"});
  CHECK(split_shell_command("").empty());
}

TEST_CASE("relocatable device code and host OpenMP are noted for the front end") {
  auto rdc = translate_compile_command(split_shell_command("nvcc -rdc=true -c k.cu"), "/p", "");
  CHECK(rdc.relocatable_device_code);
  auto dc = translate_compile_command(split_shell_command("nvcc -dc k.cu"), "/p", "");
  CHECK(dc.relocatable_device_code);
  auto plain = translate_compile_command(split_shell_command("nvcc -rdc=false -c k.cu"), "/p", "");
  CHECK_FALSE(plain.relocatable_device_code);
  CHECK_FALSE(plain.host_openmp);
  auto omp = translate_compile_command(split_shell_command("nvcc -Xcompiler -fopenmp -c k.cu"), "/p", "");
  CHECK(omp.host_openmp);
  CHECK(omp.args.empty());  // -fopenmp configures gcc, not the device parse
  auto fwd = translate_compile_command(
      split_shell_command("nvcc -forward-unknown-to-host-compiler -fopenmp=libgomp -c k.cu"), "/p", "");
  CHECK(fwd.host_openmp);
  auto clang = translate_compile_command(split_shell_command("clang++ -x cuda -fgpu-rdc -fopenmp -c k.cu"), "/p", "");
  CHECK(clang.relocatable_device_code);
  CHECK(clang.host_openmp);
}
