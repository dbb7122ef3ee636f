// The capture directory: what the injection library's launch capture writes
// and what the verifier replays. A capture holds, for the first K launches of
// the kernels a regex selects, everything needed to run the same launch again
// in another process: geometry, the raw parameter buffer, where device
// pointers sit in it, and the whole contents of every allocation they point
// into, before and after the launch.
//
// On disk: <dir>/manifest.json (this struct, versioned; documented in
// docs/capture-format.md) plus one binary blob per allocation and side
// (<dir>/launch<N>/alloc<M>.before.bin / .after.bin).
//
// Plain C++ and nlohmann/json only: this file is compiled into the injection
// library (inside the user's program) as well as into the verifier.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace warplens::capture {

// How a capture is requested: the injection library reads these from the
// environment of the program it is loaded into (docs/capture-format.md).
namespace env {
inline constexpr const char* kDir = "WARPLENS_CAPTURE_DIR";          // enables capture
inline constexpr const char* kKernel = "WARPLENS_CAPTURE_KERNEL";    // ECMAScript regex (default: every kernel)
inline constexpr const char* kLaunches = "WARPLENS_CAPTURE_LAUNCHES";  // K, first K matching launches (default 1)
inline constexpr const char* kMaxBytes = "WARPLENS_CAPTURE_MAX_BYTES"; // blob cap (default 1 GiB)
// At most this many launches of each kernel (symbol); 0 or unset: no per-kernel limit.
inline constexpr const char* kLaunchesPerKernel = "WARPLENS_CAPTURE_LAUNCHES_PER_KERNEL";
}  // namespace env
inline constexpr std::uint64_t kDefaultMaxBytes = 1ull << 30;

inline constexpr int kFormatVersion = 1;
inline constexpr const char* kFormatName = "warplens-capture";
inline constexpr const char* kManifestFile = "manifest.json";

// Any problem reading or validating a capture. The message says which file
// and which field, so the CLI can print it as is.
struct CaptureFormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class MemoryKind : std::uint8_t {
  Device,   // cuMemAlloc / cudaMalloc / stream-ordered pools
  Managed,  // cudaMallocManaged: copied like device memory, replayed as device memory
};
const char* to_string(MemoryKind k);

// One kernel parameter as cuFuncGetParamInfo reports it.
struct ParamSlot {
  int index = 0;
  std::uint64_t offset = 0;  // byte offset in the parameter buffer
  std::uint64_t size = 0;    // bytes
};

// A device pointer found in the parameter buffer: either a pointer parameter
// or an 8-byte-aligned word inside a by-value struct parameter.
struct PointerSlot {
  int param = 0;                       // parameter index the word belongs to
  std::uint64_t buffer_offset = 0;     // offset of the 8-byte word in the parameter buffer
  int allocation = 0;                  // index into LaunchRecord::allocations
  std::uint64_t offset_in_allocation = 0;
};

// The whole allocation a pointer points into, with its contents on each side
// of the launch.
struct AllocationRecord {
  std::uint64_t address = 0;           // base address in the captured program
  std::uint64_t bytes = 0;
  MemoryKind memory = MemoryKind::Device;
  std::string before_blob;             // path relative to the capture directory
  std::string after_blob;
  std::uint64_t before_hash = 0;       // content_hash of the blob
  std::uint64_t after_hash = 0;
  bool modified = false;               // before != after
};

// A module-scope variable the kernel's module defines (`__constant__` or
// `__device__`), with its contents on each side of the launch. A kernel
// reads these besides its parameters (a filter set by cudaMemcpyToSymbol);
// the replay writes the "before" contents into the same-named variable of
// each module it loads (original and candidate) before every run.
struct ModuleGlobalRecord {
  std::string name;                    // the module's symbol (cuModuleGetGlobal)
  std::uint64_t address = 0;           // in the captured program
  std::uint64_t bytes = 0;
  bool constant = false;               // __constant__ (read-only in kernels)
  std::string before_blob;
  std::string after_blob;
  std::uint64_t before_hash = 0;
  std::uint64_t after_hash = 0;
  bool modified = false;               // the launch wrote it
};

struct FunctionAttributes {
  int num_regs = 0;
  int static_shared_bytes = 0;
  int local_bytes = 0;
  int max_threads_per_block = 0;
  int ptx_version = 0;
  int binary_version = 0;
};

struct LaunchRecord {
  int index = 0;                       // position in this capture
  std::uint64_t sequence = 0;          // launches of this kernel before it in the program
  std::string kernel;                  // symbol name as the driver knows it (mangled)
  std::string api;                     // "cuLaunchKernel", "cuLaunchKernelEx_ptsz", ...
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::uint32_t dynamic_shared_bytes = 0;
  std::array<std::uint32_t, 3> cluster{0, 0, 0};  // 0 = no cluster attribute
  bool cooperative = false;
  FunctionAttributes attributes;
  std::vector<ParamSlot> params;
  std::vector<std::uint8_t> param_buffer;  // the raw bytes, params.back().offset + size long
  std::vector<PointerSlot> pointers;
  std::vector<AllocationRecord> allocations;
  // The kernel's module's variables (absent in captures written before
  // they were recorded: those replay with the module's initial values).
  std::vector<ModuleGlobalRecord> globals;
  bool globals_recorded = false;       // false: this capture did not look at module variables
  double capture_ms = 0;               // time the capture added to this launch

  std::uint64_t allocation_bytes() const;
};

// A launch that matched the regex but was not captured, and why.
struct Refusal {
  std::string kernel;
  std::uint64_t sequence = 0;
  std::string reason;
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  std::uint64_t l2_bytes = 0;
  int driver_version = 0;              // cuDriverGetVersion, e.g. 13000
  std::string arch() const;            // "sm_90"
};

// How many launches the capture saw, so a missing capture can be explained
// (e.g. runtime launches that never reached the driver callback).
struct LaunchCounters {
  std::uint64_t driver_launches = 0;   // launch callbacks seen (all kernels)
  std::uint64_t matched_launches = 0;  // of those, matching the regex
  std::uint64_t runtime_launches = 0;  // cudaLaunchKernel / cudaLaunchKernelExC entered
  std::uint64_t runtime_without_driver_callback = 0;
};

struct CaptureManifest {
  int version = kFormatVersion;
  std::string producer;                // "libwarplens_inject launch_capture"
  std::vector<std::string> program;    // argv of the captured program
  DeviceInfo device;
  std::string kernel_regex;
  int max_launches = 1;
  int max_launches_per_kernel = 0;     // 0: none (the first max_launches matching launches, any kernels)
  std::uint64_t max_bytes = 0;         // cap on the blob bytes of the whole capture
  std::uint64_t total_bytes = 0;       // blob bytes written
  std::vector<LaunchRecord> launches;
  std::vector<Refusal> refusals;
  LaunchCounters counters;
  std::vector<std::string> notes;
  bool complete = false;               // the program exited normally and the capture was finalised
};

// --- serialisation -------------------------------------------------------

std::string to_json_text(const CaptureManifest& manifest);
// Throws CaptureFormatError naming the field on any problem.
CaptureManifest parse_manifest(std::string_view json_text);

// Writes manifest.json atomically (temporary file + rename), so a program
// that dies mid-capture leaves the last complete manifest behind.
void save_manifest(const std::filesystem::path& dir, const CaptureManifest& manifest);
// Reads and validates manifest.json and checks that every blob exists with
// the recorded size (contents are checked when a blob is read).
CaptureManifest load_capture(const std::filesystem::path& dir);

// Blob I/O. read_blob checks size and hash and throws CaptureFormatError
// with the path on mismatch.
void write_blob(const std::filesystem::path& dir, const std::string& relative,
                const void* data, std::size_t bytes);
std::vector<std::uint8_t> read_blob(const std::filesystem::path& dir, const std::string& relative,
                                    std::uint64_t expected_bytes, std::uint64_t expected_hash);

// A fast 64-bit content hash (not cryptographic): blob integrity, and the
// verifier's check that every timed run produced the verified output.
std::uint64_t content_hash(const void* data, std::size_t bytes);

std::string hex_encode(const std::vector<std::uint8_t>& bytes);
std::vector<std::uint8_t> hex_decode(std::string_view hex);  // throws CaptureFormatError
std::string hex_u64(std::uint64_t v);                         // "0x7f3a00000000"
std::uint64_t parse_hex_u64(std::string_view s);              // throws CaptureFormatError

// Blob names used by the writer (and documented in docs/capture-format.md).
std::string blob_name(int launch_index, int allocation_index, bool after);
std::string global_blob_name(int launch_index, int global_index, bool after);

}  // namespace warplens::capture
