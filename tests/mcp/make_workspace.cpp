// Makes the workspace of the scripted MCP session (session.py, session.mjs):
//
//   mcp_make_workspace DIR [N]
//
//   DIR/ws/src/scale_add.cu          the verifier's scale_add case (tests/gpu/verifier_cases)
//   DIR/ws/.warplens/capture/        a capture of its launch with N elements (default 65536),
//                                    written with the capture format's API (bench/synthetic_captures)
//   DIR/outside.cu                   a file outside the root
//   DIR/ws/escape.cu -> ../outside.cu   a link inside the root that points out of it
//
// The same capture serves the fake CUDA driver (CI) and a real GPU (the H200 run).
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "bench/synthetic_captures.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: mcp_make_workspace DIR [N]\n");
    return 2;
  }
  fs::path dir = argv[1];
  fs::path ws = dir / "ws";
  std::error_code ec;
  fs::create_directories(ws / "src", ec);
  fs::copy_file(fs::path(WARPLENS_SOURCE_DIR) / "tests/gpu/verifier_cases/scale_add.cu", ws / "src/scale_add.cu",
                fs::copy_options::overwrite_existing, ec);
  if (ec) {
    std::fprintf(stderr, "mcp_make_workspace: cannot copy scale_add.cu: %s\n", ec.message().c_str());
    return 1;
  }
  fs::copy_file(ws / "src/scale_add.cu", dir / "outside.cu", fs::copy_options::overwrite_existing, ec);
  fs::remove(ws / "escape.cu", ec);
  fs::create_symlink("../outside.cu", ws / "escape.cu", ec);
  warplens::verifier::gpu::SyntheticSizes sizes;
  sizes.scale_n = argc > 2 ? std::atoi(argv[2]) : 1 << 16;
  if (!warplens::verifier::gpu::write_synthetic_capture("scale_add", ws / ".warplens/capture", sizes)) {
    std::fprintf(stderr, "mcp_make_workspace: cannot write the capture\n");
    return 1;
  }
  std::printf("%s\n", ws.string().c_str());
  return 0;
}
