#include "agent/verifier/replay/gpu_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace warplens::replay {

namespace {

int open_lock(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  return fd;
}

void lock_fd(int fd, int op) {
  while (::flock(fd, op) != 0 && errno == EINTR) {
  }
}

}  // namespace

std::string GpuLock::path_for(CUdevice device, const char* suffix) {
  char bus[64] = "device0";
  if (cuDeviceGetPCIBusId(bus, sizeof bus, device) != CUDA_SUCCESS) std::snprintf(bus, sizeof bus, "device%d", device);
  std::string id;
  for (const char* c = bus; *c; ++c) id += (std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_');
  std::filesystem::path dir;
  if (const char* d = std::getenv("WARPLENS_GPU_LOCK_DIR"); d && *d) dir = d;
  else dir = std::filesystem::temp_directory_path();
  return (dir / ("warplens-gpu-" + std::to_string(::getuid()) + "-" + id + suffix)).string();
}

GpuLock::GpuLock(CUdevice device, Mode mode) {
  const auto t0 = std::chrono::steady_clock::now();
  fd_ = open_lock(path_for(device, ".lock"));
  if (fd_ < 0) return;  // no lock file: run unlocked rather than not at all
  const int turnstile = open_lock(path_for(device, ".turnstile"));
  if (mode == Mode::Exclusive) {
    // Hold the turnstile while waiting: new shared holders queue behind us.
    if (turnstile >= 0) lock_fd(turnstile, LOCK_EX);
    lock_fd(fd_, LOCK_EX);
  } else {
    if (turnstile >= 0) {
      lock_fd(turnstile, LOCK_EX);
      lock_fd(turnstile, LOCK_UN);
    }
    lock_fd(fd_, LOCK_SH);
  }
  if (turnstile >= 0) ::close(turnstile);
  waited_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

GpuLock::~GpuLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace warplens::replay
