// The measured profile of one program run: what the injection library writes
// and everything downstream (findings, code lenses, the CLI views) reads.
//
// The JSON form is the versioned file format "warplens-profile/1",
// documented field by field in docs/profile-format.md. This header is the
// single definition of that format: the injection library and the host side
// share this code, so writer and reader cannot drift apart.
//
// Conventions: line numbers are 1-based (as CUPTI and compilers print them);
// times are nanoseconds (integers) or milliseconds (doubles, suffix _ms);
// counters are totals over the launches that were measured with SASS metrics
// (Kernel::metric_launches), never averages.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplens::profile {

inline constexpr std::string_view kSchema = "warplens-profile/1";

// The warplens version that writes profiles ("0.1.0").
const char* tool_version();

struct Dim3 {
  std::int64_t x = 1, y = 1, z = 1;
  std::int64_t count() const { return x * y * z; }
  bool operator==(const Dim3&) const = default;
};

struct Device {
  int index = 0;
  std::string name;                  // "NVIDIA H200"
  std::string chip;                  // CUPTI chip name, "GH100"; empty when unknown
  int cc_major = 0, cc_minor = 0;    // compute capability
  int sm_count = 0;
  std::int64_t memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  std::int64_t l2_cache_bytes = 0;
  // Theoretical DRAM bandwidth: 2 (double data rate) x memory clock x bus
  // width / 8, in GB/s (1e9 bytes). 0 when the driver did not report it.
  double peak_bandwidth_gbs = 0;
  int driver_version = 0;            // cuDriverGetVersion, e.g. 13000

  std::string arch() const;          // "sm_90"; empty when unknown
  bool operator==(const Device&) const = default;
};

// One kernel launch as the Activity API saw it.
struct Launch {
  std::uint64_t index = 0;           // 0-based launch number of this kernel within its pass
  std::string pass = "metrics";      // which run of the program: "metrics" or "timing"
  Dim3 grid, block;
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  int local_bytes_per_thread = 0;
  std::uint64_t duration_ns = 0;
  // Ran with SASS instrumentation: the duration is not representative and is
  // left out of Kernel::timing.
  bool instrumented = false;
  std::uint32_t stream = 0;
  int device = 0;
  bool operator==(const Launch&) const = default;
};

// Durations of the launches that ran uninstrumented.
struct Timing {
  std::uint64_t launches = 0;
  std::uint64_t total_ns = 0;
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  double mean_ns() const { return launches ? double(total_ns) / double(launches) : 0.0; }
  void add(std::uint64_t ns);
  void merge(const Timing& other);
  bool operator==(const Timing&) const = default;
};

// SASS metric totals of a kernel over its measured launches (every PC,
// including those that could not be mapped to a source line).
struct KernelCounters {
  std::uint64_t inst_executed = 0;          // warp instructions
  std::uint64_t thread_inst_executed = 0;   // thread instructions
  std::uint64_t global_load_requests = 0;   // warp-level global load instructions
  std::uint64_t global_store_requests = 0;
  std::uint64_t global_sectors = 0;         // 32-byte sectors touched by global accesses
  std::uint64_t global_sectors_ideal = 0;   // ... had every access been perfectly coalesced
  std::uint64_t shared_load_requests = 0;
  std::uint64_t shared_store_requests = 0;
  std::uint64_t shared_wavefronts = 0;      // shared-memory wavefronts
  std::uint64_t shared_wavefronts_ideal = 0;
  std::uint64_t local_sectors = 0;          // local memory (spills, local arrays)
  std::uint64_t branch_divergent = 0;       // branch executions whose threads split
  std::uint64_t branch_uniform = 0;
  std::uint64_t unmapped_inst_executed = 0; // instructions without a source line (no -lineinfo)
  void merge(const KernelCounters& other);
  bool operator==(const KernelCounters&) const = default;
};

struct Kernel {
  std::string name;                  // demangled, "transpose_naive(float*, float const*, int)"
  std::string mangled;               // "_Z15transpose_naivePfPKfi"; the kernel's identity
  std::uint64_t launch_count = 0;    // launches seen in the metrics pass (or the only pass)
  std::uint64_t metric_launches = 0; // launches measured with SASS metrics
  std::vector<Launch> launches;      // the first few launches of each pass (see settings)
  Timing timing;                     // uninstrumented launches, all passes
  std::optional<KernelCounters> counters;  // absent when no SASS data was collected
  bool operator==(const Kernel&) const = default;
};

// What kind of instruction a per-line record sums. A source line usually
// holds several (a load and a store of `o[x*N+y] = i[y*N+x]`): they are kept
// apart using the per-PC opcode counts (inst_executed_op_global_ld/st, ...).
enum class LineKind : std::uint8_t {
  All,           // every instruction on the line (hotness, SIMT efficiency)
  GlobalLoad,
  GlobalStore,
  GlobalOther,   // global traffic that is neither a plain load nor store: ATOM, RED, LDGSTS
  SharedLoad,
  SharedStore,
  SharedOther,   // shared traffic that is neither: ATOMS, LDSM, LDGSTS (cp.async), ...
  LocalLoad,
  LocalStore,
  Branch,
};
inline constexpr std::array<LineKind, 10> kAllLineKinds = {
    LineKind::All,        LineKind::GlobalLoad,  LineKind::GlobalStore,  LineKind::GlobalOther,
    LineKind::SharedLoad, LineKind::SharedStore, LineKind::SharedOther, LineKind::LocalLoad,
    LineKind::LocalStore, LineKind::Branch};
const char* to_string(LineKind k);                        // "global_store"
std::optional<LineKind> line_kind_from_string(std::string_view s);
bool is_global(LineKind k);
bool is_shared(LineKind k);
bool is_local(LineKind k);
bool is_store(LineKind k);

// Per-PC records summed per (file, line, kernel, kind).
struct LineMetrics {
  std::string file;                  // absolute path when the cubin recorded one
  int line = 0;                      // 1-based
  std::string kernel;                // mangled name (Kernel::mangled)
  LineKind kind = LineKind::All;
  std::uint64_t executed = 0;        // warp instructions of this kind (= requests for memory kinds)
  std::uint64_t threads_executed = 0;  // thread instructions (All only)
  std::uint64_t sectors = 0;         // global/local kinds
  std::uint64_t sectors_ideal = 0;   // global kinds
  std::uint64_t wavefronts = 0;      // shared kinds
  std::uint64_t wavefronts_ideal = 0;
  std::uint64_t divergent = 0;       // Branch: executions whose active threads split
  std::uint64_t uniform = 0;         // Branch: executions whose active threads agreed
  std::vector<std::uint32_t> pcs;    // SASS offsets (within the function) that contributed

  // Adds another record's counts (not its key or PCs).
  void add_counts(const LineMetrics& o);
  // True when every count is zero.
  bool empty() const;
  bool operator==(const LineMetrics&) const = default;
};

struct Transfers {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::uint64_t total_ns = 0;
  void merge(const Transfers& o) { count += o.count; bytes += o.bytes; total_ns += o.total_ns; }
  bool operator==(const Transfers&) const = default;
};

struct MemcpyTotals {
  Transfers host_to_device, device_to_host, device_to_device, host_to_host, peer, other;
  bool operator==(const MemcpyTotals&) const = default;
};

// Something the user should know about the data (a refusal by CUPTI, a limit
// that was hit, a fallback). Codes are stable; see docs/profile-format.md.
struct Warning {
  std::string code;
  std::string message;
  bool operator==(const Warning&) const = default;
};

enum class SassMode : std::uint8_t {
  PerLaunch,  // enable/flush/disable around each measured launch (default)
  WholeRun,   // enable once, flush at context teardown
};
const char* to_string(SassMode m);
std::optional<SassMode> sass_mode_from_string(std::string_view s);

// The limits the run was made with (echoed so a profile explains itself).
struct Settings {
  std::string kernel_regex;          // empty: every kernel
  int metric_launches = 1;           // per kernel, launches measured with SASS metrics
  int launch_records = 100;          // per kernel and pass, launches listed individually
  double budget_ms = 30000;          // wall time the SASS collection may add, then activity only
  bool metrics = true;               // false: activity (timing) only
  SassMode sass_mode = SassMode::PerLaunch;
  bool operator==(const Settings&) const = default;
};

// One run of the program (the metrics pass, and possibly a timing pass).
struct Pass {
  std::string kind = "metrics";      // "metrics" or "timing"
  double wall_ms = 0;
  int exit_code = 0;                 // the program's; 128+N when killed by signal N
  bool metrics = true;
  bool operator==(const Pass&) const = default;
};

// Facts about the collector itself, for debugging a profile.
struct Collector {
  int cupti_version = 0;
  std::int64_t pid = 0;
  std::vector<std::string> metrics;  // SASS metrics that were configured
  double sass_overhead_ms = 0;       // wall time spent patching, synchronising, flushing
  std::uint64_t cubins = 0;          // modules captured
  std::uint64_t sass_records = 0;    // SASS records flushed
  std::uint64_t dropped_activity_records = 0;
  bool operator==(const Collector&) const = default;
};

struct Profile {
  std::string schema = std::string(kSchema);
  std::string tool_version;
  std::vector<std::string> command;  // argv of the profiled program
  std::string working_directory;
  std::string started_at;            // ISO 8601 UTC, "2025-01-31T12:00:00Z"
  double wall_ms = 0;                // every pass together
  int exit_code = 0;                 // the program's exit code in the metrics pass
  Settings settings;
  std::vector<Pass> passes;
  std::vector<Device> devices;
  std::vector<Kernel> kernels;
  std::vector<LineMetrics> lines;
  MemcpyTotals memcpy;
  std::vector<Warning> warnings;
  Collector collector;

  const Kernel* find_kernel(std::string_view mangled) const;
  Kernel* find_kernel(std::string_view mangled);
  void add_warning(std::string code, std::string message);
  bool has_warning(std::string_view code) const;
  bool operator==(const Profile&) const = default;
};

// Serialisation. `to_json` writes the documented format (pretty-printed with
// `indent` spaces, compact for -1). `parse_profile` accepts any
// "warplens-profile/1" document, ignores unknown fields (forward
// compatibility within a major version) and reports the first problem
// precisely ("kernels[2].launches[0].grid: expected an array of 3 integers").
std::string to_json(const Profile& p, int indent = 2);
std::optional<Profile> parse_profile(std::string_view json, std::string* error);
std::optional<Profile> load_profile(const std::string& path, std::string* error);
// Writes atomically (temporary file + rename), so a reader never sees half a file.
bool save_profile(const Profile& p, const std::string& path, std::string* error);

}  // namespace warplens::profile
