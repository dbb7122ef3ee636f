// analysis/driver_policy.h: what a compile command or cudaPath may make
// warplens run.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "analysis/driver_policy.h"
#include "analysis/nvcc_toolchain.h"

using namespace warplens;
namespace fs = std::filesystem;

namespace {

struct Workspace {
  fs::path dir;
  Workspace() {
    dir = fs::temp_directory_path() / ("warplens-driver-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "tools");
    fs::create_directories(dir / "cuda/bin");
  }
  ~Workspace() { fs::remove_all(dir); }
  std::string script(const std::string& rel, const std::string& marker) {
    std::ofstream(dir / rel) << "#!/bin/sh\necho ran >> " << marker << "\nexit 1\n";
    fs::permissions(dir / rel, fs::perms::owner_all);
    return (dir / rel).string();
  }
};

}  // namespace

TEST_CASE("globs: * within a component, ** across, ? one character") {
  CHECK(glob_matches("/usr/bin/g++-*", "/usr/bin/g++-12"));
  CHECK_FALSE(glob_matches("/usr/bin/g++-*", "/usr/bin/g++-12/x"));
  CHECK(glob_matches("/opt/cuda-*/bin/nvcc", "/opt/cuda-12.4/bin/nvcc"));
  CHECK_FALSE(glob_matches("/opt/cuda-*/bin/nvcc", "/opt/cuda-12.4/x/bin/nvcc"));
  CHECK(glob_matches("/home/me/**", "/home/me/a/b/c"));
  CHECK(glob_matches("/home/me/**/nvcc", "/home/me/a/b/nvcc"));
  CHECK(glob_matches("/usr/bin/gcc-1?", "/usr/bin/gcc-12"));
  CHECK_FALSE(glob_matches("/usr/bin/gcc-1?", "/usr/bin/gcc-123"));
  CHECK(glob_matches("/a", "/a"));
  CHECK_FALSE(glob_matches("/a", "/a/"));
  CHECK_FALSE(glob_matches("", "/a"));
  // No input makes it slow.
  CHECK_FALSE(glob_matches("/" + std::string(30, '*') + "x", "/" + std::string(3000, 'a')));
}

TEST_CASE("a compiler on PATH is allowed; a workspace script is not, unless a glob says so") {
  Workspace ws;
  std::string marker = (ws.dir / "ran").string();
  std::string cc = ws.script("tools/cc", marker);
  DriverCheck sh = check_driver("sh", "/", {});
  CHECK(sh.allowed);  // a bare name found on PATH
  CHECK(check_driver("/bin/sh", "/", {}).allowed);
  DriverCheck local = check_driver("./tools/cc", ws.dir.string(), {});
  CHECK_FALSE(local.allowed);
  CHECK(local.reason == "`" + cc + "` is neither on PATH nor in the CUDA toolkit, and no warplens.allowedDrivers glob allows it");
  CHECK(check_driver("./tools/cc", ws.dir.string(), {ws.dir.string() + "/tools/*"}).allowed);
  CHECK(check_driver("./tools/cc", ws.dir.string(), {ws.dir.string() + "/**"}).allowed);
  CHECK_FALSE(check_driver("./tools/cc", ws.dir.string(), {"/usr/bin/*"}).allowed);
  CHECK_FALSE(check_driver("no-such-compiler-xyz", "/", {}).allowed);
  // A workspace directory as -ccbin DIR.
  CHECK_FALSE(check_driver("tools", ws.dir.string(), {}).allowed);
  CHECK(check_driver("/usr/bin", "/", {}).allowed);
  // A relative PATH entry does not make the workspace's files "on PATH".
  const char* old = std::getenv("PATH");
  std::string saved = old ? old : "";
  ::setenv("PATH", ("tools:" + saved).c_str(), 1);
  DriverCheck c = check_driver("cc", ws.dir.string(), {});
  CHECK(c.resolved != fs::canonical(cc).string());
  ::setenv("PATH", saved.c_str(), 1);
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("cudaPath's nvcc runs only when allowed") {
  Workspace ws;
  std::string marker = (ws.dir / "ran").string();
  ws.script("cuda/bin/nvcc", marker);
  NvccLookup refused = find_nvcc((ws.dir / "cuda").string());
  CHECK(refused.refused);
  CHECK_FALSE(refused.toolchain);
  CHECK(refused.error.find("warplens does not run " + (ws.dir / "cuda").string() + "/bin/nvcc") != std::string::npos);
  CHECK(refused.error.find("warplens.allowedDrivers") != std::string::npos);
  CHECK_FALSE(fs::exists(marker));
  NvccLookup allowed = find_nvcc((ws.dir / "cuda").string(), {(ws.dir / "cuda/bin/nvcc").string()});
  CHECK_FALSE(allowed.refused);
  CHECK(fs::exists(marker));  // it ran (and failed: the fake exits 1)
  CHECK_FALSE(allowed.toolchain);
}

TEST_CASE("host-compiler flags that load code") {
  for (const char* f : {"-B./tools", "-B", "-fplugin=./x.so", "-specs=x", "-wrapper", "--plugin=x", "-fpass-plugin=x",
                        "-Xclang", "-fuse-ld=./ld"})
    CHECK_MESSAGE(is_program_loading_host_flag(f), f);
  for (const char* f : {"-O3", "-Wall", "-fPIC", "-DBUILD", "-fopenmp", "-I./inc", "-std=c++17"})
    CHECK_FALSE_MESSAGE(is_program_loading_host_flag(f), f);
}
