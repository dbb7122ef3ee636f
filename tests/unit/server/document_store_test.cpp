#include <doctest/doctest.h>

#include "server/document_store.h"
#include "formats/uri.h"

using namespace warplens::server;
using namespace warplens::formats;
using warplens::protocol::Range;
using warplens::protocol::TextDocumentContentChangeEvent;

namespace {
TextDocumentContentChangeEvent edit(int l0, int c0, int l1, int c1, std::string text) {
  return {Range{{l0, c0}, {l1, c1}}, std::move(text)};
}
}  // namespace

TEST_CASE("open, incremental edits, versions") {
  DocumentStore store;
  auto doc = store.open("file:///w/k.cu", "cuda", 1, "__global__ void k() {\n}\n");
  CHECK(doc->path == "/w/k.cu");
  CHECK(doc->version == 1);

  auto r = store.change("file:///w/k.cu", 2, {edit(0, 16, 0, 17, "kernel"), edit(1, 0, 1, 0, "  // body\n")},
                        PositionEncoding::Utf16);
  REQUIRE(r.document);
  CHECK(r.document->text.text() == "__global__ void kernel() {\n  // body\n}\n");
  CHECK(r.document->version == 2);
  CHECK(doc->text.text() == "__global__ void k() {\n}\n");  // old snapshot untouched
  CHECK(store.get("file:///w/k.cu") == r.document);
}

TEST_CASE("a full change replaces the text") {
  DocumentStore store;
  store.open("file:///a.cu", "cuda", 1, "old");
  auto r = store.change("file:///a.cu", 2, {{std::nullopt, "new text"}}, PositionEncoding::Utf16);
  REQUIRE(r.document);
  CHECK(r.document->text.text() == "new text");
}

TEST_CASE("incremental edits count UTF-16 code units on lines with emoji and accents") {
  DocumentStore store;
  // Line 0: float é = 1; // 😀 x
  std::string line = "float \xC3\xA9 = 1; // \xF0\x9F\x98\x80 x";
  store.open("file:///u.cu", "cuda", 1, line);
  // In UTF-16: "float " is 0-5, é 6, " = 1; // " 7-15, 😀 16-17 (a surrogate pair), " " 18, "x" 19.
  auto r = store.change("file:///u.cu", 2, {edit(0, 19, 0, 20, "y")}, PositionEncoding::Utf16);
  REQUIRE(r.document);
  CHECK(r.document->text.text() == "float \xC3\xA9 = 1; // \xF0\x9F\x98\x80 y");
  // Delete the emoji: characters 16..18 in UTF-16.
  r = store.change("file:///u.cu", 3, {edit(0, 16, 0, 18, "")}, PositionEncoding::Utf16);
  REQUIRE(r.document);
  CHECK(r.document->text.text() == "float \xC3\xA9 = 1; //  y");
  // Same edit expressed in UTF-8 bytes: replace é (bytes 6..8).
  r = store.change("file:///u.cu", 4, {edit(0, 6, 0, 8, "e")}, PositionEncoding::Utf8);
  REQUIRE(r.document);
  CHECK(r.document->text.text() == "float e = 1; //  y");
}

TEST_CASE("an edit inside a surrogate pair never splits the character") {
  DocumentStore store;
  store.open("file:///s.cu", "cuda", 1, "a\xF0\x9F\x98\x80z");
  auto r = store.change("file:///s.cu", 2, {edit(0, 2, 0, 2, "|")}, PositionEncoding::Utf16);
  REQUIRE(r.document);
  CHECK(r.document->text.text() == "a|\xF0\x9F\x98\x80z");
}

TEST_CASE("documents with invalid UTF-8 can be edited") {
  DocumentStore store;
  store.open("file:///bad.cu", "cuda", 1, "x\xFF\xFEy\n");
  auto r = store.change("file:///bad.cu", 2, {edit(0, 3, 0, 4, "Y")}, PositionEncoding::Utf16);
  REQUIRE(r.document);
  CHECK(r.document->text.text() == "x\xFF\xFEY\n");
}

TEST_CASE("bad changes are refused and leave the document as it was") {
  DocumentStore store;
  store.open("file:///a.cu", "cuda", 1, "ab\ncd\n");
  auto r = store.change("file:///a.cu", 2, {edit(0, 0, 0, 1, "X"), edit(7, 0, 7, 1, "Y")}, PositionEncoding::Utf16);
  CHECK_FALSE(r.document);
  CHECK(r.error.find("change 2") != std::string::npos);
  CHECK(store.get("file:///a.cu")->text.text() == "ab\ncd\n");
  CHECK(store.get("file:///a.cu")->version == 1);
  CHECK_FALSE(store.change("file:///a.cu", 2, {edit(1, 1, 0, 0, "")}, PositionEncoding::Utf16).document);
  CHECK(store.change("file:///nope.cu", 2, {}, PositionEncoding::Utf16).error == "the document is not open");
}

TEST_CASE("close and lookups") {
  DocumentStore store;
  store.open("file:///a%20b.cu", "cuda", 1, "");
  CHECK(store.find_by_path("/a b.cu"));
  CHECK(store.all().size() == 1);
  CHECK(store.close("file:///a%20b.cu"));
  CHECK_FALSE(store.close("file:///a%20b.cu"));
  CHECK_FALSE(store.get("file:///a%20b.cu"));
  auto untitled = store.open("untitled:Untitled-1", "cuda", 1, "");
  CHECK(untitled->path.empty());
}

TEST_CASE("file URIs and paths") {
  CHECK(path_from_uri("file:///home/me/k.cu") == "/home/me/k.cu");
  CHECK(path_from_uri("file:///home/me/a%20b%C3%A9.cu") == "/home/me/a b\xC3\xA9.cu");
  CHECK(path_from_uri("FILE://localhost/x.cu") == "/x.cu");
  CHECK_FALSE(path_from_uri("untitled:Untitled-1"));
  CHECK_FALSE(path_from_uri("file://server/share/x.cu"));
  CHECK_FALSE(path_from_uri("file:///bad%2"));
  CHECK(uri_from_path("/home/me/a b\xC3\xA9.cu") == "file:///home/me/a%20b%C3%A9.cu");
  CHECK(path_from_uri(uri_from_path("/tmp/x+y#z.cu")) == "/tmp/x+y#z.cu");
}
