// Thin RAII and error handling over the CUDA driver API for warplens-replay.
// Every failing call throws CudaError carrying the call, the CUresult and its
// name, so the result files say exactly what went wrong.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "agent/verifier/replay_protocol.h"

namespace warplens::replay {

struct CudaError : std::runtime_error {
  CudaError(CUresult code, const std::string& what);
  CUresult code;
  // True for errors that leave the context unusable (a kernel faulted):
  // nothing more can run in this process.
  bool sticky() const;
};

std::string error_name(CUresult r);  // "CUDA_ERROR_ILLEGAL_ADDRESS"
void check(CUresult r, const char* what);

// Thrown when a kernel run exceeds its deadline. The process must then end
// without waiting for the GPU (the kernel may never finish).
struct KernelHang : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Waits until `event` has completed, polling rather than blocking so that a
// hung kernel cannot hang this process: throws KernelHang ("did not finish
// within N s") once `deadline_s` have passed since `since`, CudaError when
// the work before the event failed. `sleep_between_polls` trades a little
// latency for an idle CPU (off where the wait is part of a timed run).
void wait_for_event(CUevent event, std::chrono::steady_clock::time_point since, double deadline_s,
                    bool sleep_between_polls = true);

// The primary context of device 0 (after CUDA_VISIBLE_DEVICES), current on
// the calling thread for the life of the object.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  CUdevice device() const { return device_; }
  verifier::DeviceSummary summary() const;

 private:
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::uint64_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  CUdeviceptr ptr() const { return ptr_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  std::uint64_t bytes_ = 0;
};

// Stream-ordered memory operations. Everything that prepares a run is
// enqueued on the stream the kernel is then launched on, so a launch can
// never start before its inputs are in place. (The synchronous copies of the
// driver API run on the legacy default stream, which a non-blocking stream
// does not wait for; a copy from pageable memory may also return before its
// DMA has landed. Restoring in/out buffers that way raced the next launch:
// issue 14's "beta applied twice".)
void copy_dtod(CUdeviceptr dst, CUdeviceptr src, std::uint64_t bytes, CUstream s);
void fill_bytes(CUdeviceptr dst, std::uint8_t value, std::uint64_t bytes, CUstream s);
// Both return once the host memory may be reused / holds the bytes (they
// wait for the stream, so for everything enqueued before them too).
void upload(CUdeviceptr dst, const void* host, std::uint64_t bytes, CUstream s);
void download(void* host, CUdeviceptr src, std::uint64_t bytes, CUstream s);
void sync(CUstream s);

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return s_; }

 private:
  CUstream s_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return e_; }

 private:
  CUevent e_ = nullptr;
};

struct ParamLayoutEntry {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

// A loaded cubin and the kernel chosen from it.
class Module {
 public:
  explicit Module(const std::string& cubin_path);
  // From an image in memory (cubin, PTX or fatbin); `what` names it in errors.
  Module(const void* image, const std::string& what);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The exact symbol first; otherwise the one kernel whose unqualified name
  // is `name` (the candidate may mangle differently, e.g. after adding
  // `const` to a pointee). Throws std::runtime_error listing what exists.
  CUfunction find(const std::string& symbol, const std::string& name, std::string* chosen_symbol) const;
  // An extern "C" function by its exact name; throws CudaError when absent.
  CUfunction function(const char* name) const;

 private:
  CUmodule mod_ = nullptr;
};

std::vector<ParamLayoutEntry> param_layout(CUfunction f);
verifier::FunctionInfo function_info(CUfunction f, const std::string& symbol);

}  // namespace warplens::replay
