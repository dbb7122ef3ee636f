#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>

#include "profiler/capture_format.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens;
using namespace warplens::capture;
using warplens::verifier::test::TempDir;

TEST_CASE("capture manifest: JSON round trip keeps every field") {
  TempDir dir;
  CaptureManifest m = verifier::test::write_scale_add_capture(dir.path());
  m.refusals.push_back({"_Z3bigPf", 4, "needs 3 GiB, over the 1 GiB cap"});
  m.notes.push_back("a note");
  m.launches[0].cluster = {2, 1, 1};
  m.launches[0].attributes.num_regs = 17;
  std::string text = to_json_text(m);
  CaptureManifest back = parse_manifest(text);
  CHECK(to_json_text(back) == text);
  REQUIRE(back.launches.size() == 1);
  const auto& l = back.launches[0];
  CHECK(l.kernel == "_Z9scale_addPKfS0_Pffi");
  CHECK(l.grid == std::array<std::uint32_t, 3>{2, 1, 1});
  CHECK(l.param_buffer == m.launches[0].param_buffer);
  CHECK(l.allocations[2].address == 0x7f0000200000ULL);
  CHECK(l.allocations[2].modified);
  CHECK_FALSE(l.allocations[0].modified);
  CHECK(l.pointers.size() == 3);
  CHECK(back.refusals.at(0).reason == "needs 3 GiB, over the 1 GiB cap");
  CHECK(back.device.arch() == "sm_90");
  CHECK(back.complete);
}

TEST_CASE("capture manifest: module variables round-trip; their blobs are checked; older captures have none") {
  TempDir dir;
  CaptureManifest m = verifier::test::write_scale_add_capture(dir.path());
  CHECK_FALSE(parse_manifest(to_json_text(m)).launches[0].globals_recorded);  // a capture from before the field
  const float filter[3] = {0.25f, 0.5f, 0.25f};
  ModuleGlobalRecord g;
  g.name = "_ZN2ns8c_filterE";
  g.address = 0x7f9000000000ULL;
  g.bytes = sizeof filter;
  g.constant = true;
  g.before_blob = global_blob_name(0, 0, false);
  g.after_blob = global_blob_name(0, 0, true);
  g.before_hash = g.after_hash = content_hash(filter, sizeof filter);
  write_blob(dir.path(), g.before_blob, filter, sizeof filter);
  write_blob(dir.path(), g.after_blob, filter, sizeof filter);
  m.launches[0].globals = {g};
  m.launches[0].globals_recorded = true;
  save_manifest(dir.path(), m);
  CaptureManifest back = load_capture(dir.path());
  REQUIRE(back.launches[0].globals.size() == 1);
  const auto& b = back.launches[0].globals[0];
  CHECK(back.launches[0].globals_recorded);
  CHECK(b.name == "_ZN2ns8c_filterE");
  CHECK(b.bytes == 12);
  CHECK(b.constant);
  CHECK_FALSE(b.modified);
  CHECK(b.before_blob == "launch0/global0.before.bin");
  CHECK(to_json_text(back) == to_json_text(m));

  std::filesystem::resize_file(dir.path() / g.after_blob, 8);
  CHECK_THROWS_WITH_AS(load_capture(dir.path()), doctest::Contains("global0.after.bin has 8 bytes"),
                       CaptureFormatError);
  m.launches[0].globals[0].name = "";
  CHECK_THROWS_WITH_AS(parse_manifest(to_json_text(m)), doctest::Contains("globals[0].name: empty"),
                       CaptureFormatError);
}

TEST_CASE("capture manifest: load_capture checks blobs; read_blob checks contents") {
  TempDir dir;
  verifier::test::write_scale_add_capture(dir.path());
  CaptureManifest m = load_capture(dir.path());
  const auto& a = m.launches[0].allocations[2];
  auto bytes = read_blob(dir.path(), a.after_blob, a.bytes, a.after_hash);
  CHECK(bytes.size() == a.bytes);

  SUBCASE("a corrupt blob is reported with its path") {
    {
      std::fstream f(dir.path() / a.after_blob, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(3);
      f.put('\x7f');
    }
    CHECK_THROWS_WITH_AS(read_blob(dir.path(), a.after_blob, a.bytes, a.after_hash),
                         doctest::Contains("corrupt"), CaptureFormatError);
  }
  SUBCASE("a missing blob fails load_capture") {
    std::filesystem::remove(dir.path() / a.before_blob);
    CHECK_THROWS_WITH_AS(load_capture(dir.path()), doctest::Contains("missing"), CaptureFormatError);
  }
  SUBCASE("a missing directory says so") {
    CHECK_THROWS_WITH_AS(load_capture(dir.path() / "nope"), doctest::Contains("does not exist"), CaptureFormatError);
  }
  SUBCASE("a manifest that is a FIFO is refused at once (it blocked the load)") {
    const auto manifest = dir.path() / kManifestFile;
    std::filesystem::remove(manifest);
    REQUIRE(::mkfifo(manifest.c_str(), 0600) == 0);
    auto load = std::async(std::launch::async, [&] { return load_capture(dir.path()); });
    const bool answered = load.wait_for(std::chrono::seconds(1)) == std::future_status::ready;
    if (!answered) {  // before the fix: blocked in open(); a writer ends it
      int w = ::open(manifest.c_str(), O_WRONLY | O_NONBLOCK);
      if (w >= 0) ::close(w);
    }
    CHECK_MESSAGE(answered, "load_capture blocked on a FIFO manifest");
    CHECK_THROWS_WITH_AS(load.get(), doctest::Contains("not a regular file"), CaptureFormatError);
  }
}

TEST_CASE("capture manifest: errors name the field") {
  TempDir dir;
  CaptureManifest m = verifier::test::write_scale_add_capture(dir.path());
  std::string good = to_json_text(m);

  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    s.replace(at, from.size(), to);
    return s;
  };
  CHECK_THROWS_WITH_AS(parse_manifest(replaced("\"version\": 1", "\"version\": 7")),
                       doctest::Contains("manifest.version: 7 is not supported"), CaptureFormatError);
  CHECK_THROWS_WITH_AS(parse_manifest(replaced("\"grid\"", "\"grod\"")),
                       doctest::Contains("manifest.launches[0].grid: missing"), CaptureFormatError);
  CHECK_THROWS_WITH_AS(parse_manifest("{not json"), doctest::Contains("not valid JSON"), CaptureFormatError);
  CHECK_THROWS_WITH_AS(parse_manifest(replaced("\"buffer_offset\": 8", "\"buffer_offset\": 28")),
                       doctest::Contains("outside parameter"), CaptureFormatError);
  CHECK_THROWS_WITH_AS(parse_manifest(replaced("\"memory\": \"device\"", "\"memory\": \"host\"")),
                       doctest::Contains("unknown memory kind 'host'"), CaptureFormatError);
}

TEST_CASE("capture manifest: the documented example parses") {
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/verifier/manifest_v1.json");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  CaptureManifest m = parse_manifest(ss.str());
  REQUIRE(m.launches.size() == 1);
  CHECK(m.launches[0].api == "cuLaunchKernel_ptsz");
  CHECK(m.launches[0].allocations.size() == 2);
  CHECK(m.launches[0].allocations[1].memory == MemoryKind::Managed);
  CHECK(m.refusals.size() == 1);
  CHECK(m.counters.runtime_without_driver_callback == 0);
}

TEST_CASE("hex helpers and content hash") {
  CHECK(hex_encode({0x00, 0xab, 0xff}) == "00abff");
  CHECK(hex_decode("00ABff") == std::vector<std::uint8_t>{0x00, 0xab, 0xff});
  CHECK_THROWS_AS(hex_decode("abc"), CaptureFormatError);
  CHECK_THROWS_AS(hex_decode("zz"), CaptureFormatError);
  CHECK(parse_hex_u64(hex_u64(0x7f3a12345678ULL)) == 0x7f3a12345678ULL);
  CHECK_THROWS_AS(parse_hex_u64("12"), CaptureFormatError);
  std::vector<std::uint8_t> a(1000, 1), b = a;
  CHECK(content_hash(a.data(), a.size()) == content_hash(b.data(), b.size()));
  b[999] = 2;
  CHECK(content_hash(a.data(), a.size()) != content_hash(b.data(), b.size()));
  b = a;
  b[3] = 0;
  CHECK(content_hash(a.data(), a.size()) != content_hash(b.data(), b.size()));
  CHECK(content_hash(a.data(), 999) != content_hash(a.data(), 1000));
}
