#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "formats/convert.h"
#include "server/document_store.h"
#include "server/kernel_info.h"

using namespace warplens;
using namespace warplens::server;
using namespace warplens::formats;

namespace {

DocumentPtr doc(const std::string& path, std::string text, std::int64_t version = 3) {
  auto d = std::make_shared<Document>();
  d->uri = "file://" + path;
  d->path = path;
  d->version = version;
  d->text = SourceText(std::move(text));
  return d;
}

}  // namespace

TEST_CASE("a finding becomes a diagnostic with converted ranges, severity, tags and data") {
  TextLookup texts;
  auto d = doc("/w/a.cu", "\xC3\xA9\xC3\xA9x = 1;\n");  // "ééx": x is byte 4, UTF-16 column 2
  pin(texts, d);
  Converter c(ConvertOptions{PositionEncoding::Utf16, ""}, texts, d->path);
  Finding f;
  f.code = "clang";
  f.severity = Severity::Error;
  f.source = "clang";
  f.location = {"", {{0, 4}, {0, 5}}};  // empty file: the main file
  f.message = "use of undeclared identifier 'x'";
  f.unnecessary = true;
  f.data.set("ratio", 4.0);
  f.data.set("flag", true);
  f.data.set("name", std::string("x"));
  auto diag = c.diagnostic(f);
  CHECK(diag.range == protocol::Range{{0, 2}, {0, 3}});
  CHECK(diag.severity == protocol::DiagnosticSeverity::Error);
  CHECK(diag.source == "clang");
  CHECK(diag.tags == std::vector<protocol::DiagnosticTag>{protocol::DiagnosticTag::Unnecessary});
  CHECK((*diag.data)["ratio"] == 4.0);
  CHECK((*diag.data)["flag"] == true);
  CHECK((*diag.data)["name"] == "x");
  CHECK_FALSE(diag.codeDescription);  // no docs page for clang's own codes

  Converter utf8(ConvertOptions{PositionEncoding::Utf8, ""}, texts, d->path);
  CHECK(utf8.diagnostic(f).range == protocol::Range{{0, 4}, {0, 5}});
}

TEST_CASE("ranges in files that are neither pinned nor open come from disk, or pass through") {
  auto dir = std::filesystem::temp_directory_path() / "warplens-convert-test";
  std::filesystem::create_directories(dir);
  auto header = (dir / "h.cuh").string();
  std::ofstream(header) << "// \xF0\x9F\x98\x80 tile\n";
  TextLookup texts;
  Converter c(ConvertOptions{}, texts, "/w/a.cu");
  auto loc = c.location({header, {{0, 8}, {0, 12}}});
  CHECK(loc.uri == "file://" + header);
  CHECK(loc.range == protocol::Range{{0, 6}, {0, 10}});  // emoji: 4 bytes, 2 UTF-16 units
  auto missing = c.location({"/no/such/file.cuh", {{3, 7}, {3, 9}}});
  CHECK(missing.range == protocol::Range{{3, 7}, {3, 9}});
  std::filesystem::remove_all(dir);
}

TEST_CASE("fixes become versioned document edits or a plain change map") {
  TextLookup texts;
  auto d = doc("/w/a.cu", "__shared__ float tile[32][32];\n", 7);
  pin(texts, d);
  Converter c(ConvertOptions{}, texts, d->path);
  Fix fix;
  fix.title = "Pad tile";
  fix.edits.push_back({{{0, 25}, {0, 27}}, "33"});
  auto versioned = c.workspace_edit(fix, true);
  REQUIRE(versioned.documentChanges);
  CHECK((*versioned.documentChanges)[0].textDocument.version == 7);
  CHECK((*versioned.documentChanges)[0].edits[0].newText == "33");
  auto plain = c.workspace_edit(fix, false);
  REQUIRE(plain.changes);
  CHECK(plain.changes->at("file:///w/a.cu")[0].range == protocol::Range{{0, 25}, {0, 27}});
}

TEST_CASE("codeDescription links only to documentation pages that exist") {
  auto dir = std::filesystem::temp_directory_path() / "warplens-docs-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "shared-bank-conflict.md") << "#\n";
  CHECK(docs_href(dir.string(), "shared-bank-conflict") == "file://" + (dir / "shared-bank-conflict.md").string());
  CHECK_FALSE(docs_href(dir.string(), "uncoalesced-global"));
  CHECK_FALSE(docs_href(dir.string(), "../etc/passwd"));
  CHECK_FALSE(docs_href("", "shared-bank-conflict"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("kernel info: lookup by name or launch, card and lens summary") {
  KernelModel m;
  Function k;
  k.name = "transpose";
  k.key = "transpose(float*)";
  k.signature = "void transpose(float *out)";
  k.kind = FunctionKind::Kernel;
  k.name_range = {{0, 16}, {0, 25}};
  k.launch_bounds = LaunchBounds{256, 2, "__launch_bounds__(256, 2)", {}};
  SharedArray tile;
  tile.name = "tile";
  tile.element_type = "float";
  tile.element_bytes = 4;
  tile.dims = {32, 33};
  k.shared_arrays.push_back(tile);
  m.functions.push_back(k);
  LaunchSite l;
  l.kernel = "transpose";
  l.range = {{9, 2}, {9, 40}};
  l.grid = {"grid", std::nullopt, {}};
  l.block = {"dim3(32, 8)", std::array<std::int64_t, 3>{32, 8, 1}, {}};
  l.shared_bytes_spelling = "bytes";
  m.launches.push_back(l);

  Range where;
  CHECK(kernel_at(m, {0, 20}, &where) == &m.functions[0]);
  CHECK(where == k.name_range);
  CHECK(kernel_at(m, {9, 10}) == &m.functions[0]);
  CHECK_FALSE(kernel_at(m, {5, 0}));
  std::string card = kernel_markdown(m, m.functions[0]);
  CHECK(card.find("256 threads per block, at least 2 blocks per SM") != std::string::npos);
  CHECK(card.find("Shared memory: `tile` `float[32][33]` (4224 bytes)") != std::string::npos);
  CHECK(card.find("line 10: grid `grid`, block 32×8×1, dynamic shared memory `bytes`") != std::string::npos);
  CHECK(launch_summary(m, m.functions[0]) == "launched 1× · block 32×8×1 · __launch_bounds__(256)");
  m.launches.clear();
  CHECK(launch_summary(m, m.functions[0]) == "no launch in this file · __launch_bounds__(256)");
}

#include "formats/model_json.h"

TEST_CASE("the report JSON: expressions in tree and affine form, ranges in UTF-16") {
  auto gid = Expr::binary(ExprOp::Add, Expr::binary(ExprOp::Mul, Expr::block_idx(0), Expr::block_dim(0)),
                          Expr::thread_idx(0));
  auto scaled = Expr::binary(ExprOp::Mul, gid, Expr::param("n"));
  auto lane = Expr::binary(ExprOp::Rem, Expr::thread_idx(0), Expr::constant(32));
  nlohmann::json affine = expression_json(scaled);
  CHECK(affine["tree"] == "(blockIdx.x * blockDim.x + threadIdx.x) * n");
  CHECK(affine["affine"] == "threadIdx.x * n + blockIdx.x * blockDim.x * n");
  CHECK(expression_json(lane)["affine"] == "not affine");
  CHECK(expression_json(nullptr).is_null());

  KernelModel m;
  m.file = "/w/r.cu";
  Function k;
  k.name = "k";
  k.kind = FunctionKind::Kernel;
  k.name_range = {{0, 25}, {0, 26}};  // "/* é */ __global__ void k": é is 2 bytes, 1 UTF-16 unit
  MemoryAccess a;
  a.space = MemorySpace::Global;
  a.kind = AccessKind::Store;
  a.index = scaled;
  a.guards = {Guard{0, true}};
  k.accesses.push_back(a);
  m.functions.push_back(k);
  LaunchSite l;
  l.kernel = "k";
  l.block = {"256", std::array<std::int64_t, 3>{256, 1, 1}, {}};
  m.launches.push_back(l);
  TextLookup texts;
  pin(texts, doc("/w/r.cu", "/* \xC3\xA9 */ __global__ void k();\n"));
  Converter c(ConvertOptions{}, texts, "/w/r.cu");
  nlohmann::json j = model_json(m, c);
  CHECK(j["functions"][0]["kind"] == "kernel");
  CHECK(j["functions"][0]["nameRange"]["start"]["character"] == 24);  // byte 25, UTF-16 unit 24
  CHECK(j["functions"][0]["accesses"][0]["space"] == "global");
  CHECK(j["functions"][0]["accesses"][0]["kind"] == "store");
  CHECK(j["functions"][0]["accesses"][0]["guards"][0] == nlohmann::json{{"condition", 0}, {"taken", true}});
  CHECK(j["functions"][0]["launchBounds"].is_null());
  CHECK(j["launches"][0]["block"]["value"] == nlohmann::json::array({256, 1, 1}));
  CHECK(j["launches"][0]["grid"]["value"].is_null());
}
