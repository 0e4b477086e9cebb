// The streamed object must read, byte for byte, as the document's dump(2): --json is a contract.
#include "report/json_stream.h"

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace archpatch::report {
namespace {

using Json = nlohmann::ordered_json;

// What `write` prints through a JsonObjectStream, read back from a memory stream.
template <class F>
std::string Streamed(F write, int jobs = 1) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  {
    JsonObjectStream json(out, jobs);
    write(json);
    json.Close();
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(JsonObjectStream, SameBytesAsTheWholeDocumentsDump) {
  const Json findings = Json::array({
      {{"file", "a.cu"},
       {"line", 3},
       {"text", "#if __CUDA_ARCH__ >= 900\n  x"},
       {"verdict", {{"sm_120", "false"}}},
       {"via", Json::array({{{"name", "kSM_100"}}})},
       {"empty", Json::object()},
       {"none", Json::array()}},
      {{"file", "b.py"}, {"line", 1}, {"tabs\tand \"quotes\"", nullptr}},
  });
  Json doc;
  doc["arch"] = "sm_120";
  doc["against"] = Json::array({"sm_90", "sm_100"});
  doc["findings"] = findings;
  doc["errors"] = Json::array();
  doc["files_scanned"] = 12;
  const std::string streamed = Streamed([&](JsonObjectStream& json) {
    json.Member("arch", doc["arch"]);
    json.Member("against", doc["against"]);
    json.ArrayMember("findings", findings.size(), [&](size_t i) { return findings[i]; });
    json.ArrayMember("errors", 0, [](size_t) { return Json(); });
    json.Member("files_scanned", 12);
  });
  EXPECT_EQ(streamed, doc.dump(2) + "\n");
}

// Several threads make the elements (at most 2048 ahead of the one printed: 5000 wrap that
// window twice); the bytes and their order stay the dump's.
TEST(JsonObjectStream, ElementsMadeByWorkersPrintInOrder) {
  Json findings = Json::array();
  for (int i = 0; i < 5000; ++i) {
    findings.push_back({{"file", "f" + std::to_string(i) + ".cu"}, {"line", i}, {"verdict", {{"sm_120", "false"}}}});
  }
  Json doc;
  doc["findings"] = findings;
  for (int jobs : {2, 7}) {
    const std::string streamed = Streamed(
        [&](JsonObjectStream& json) {
          json.ArrayMember("findings", findings.size(), [&](size_t i) { return findings[i]; });
        },
        jobs);
    EXPECT_EQ(streamed, doc.dump(2) + "\n") << jobs << " jobs";
  }
}

// Arrays made by one set of threads, empty ones among them, print as the members they are.
TEST(JsonObjectStream, ArraysInARowPrintAsTheDocumentsMembers) {
  Json findings = Json::array(), groups = Json::array();
  for (int i = 0; i < 3000; ++i) findings.push_back({{"file", "f" + std::to_string(i) + ".cu"}, {"line", i}});
  for (int i = 0; i < 40; ++i) groups.push_back({{"id", "G" + std::to_string(i)}, {"places", Json::array({i})}});
  auto element = [](const Json& array) { return [&array](size_t i) { return array[i]; }; };
  for (int jobs : {1, 3, 8}) {
    for (bool empty_first : {false, true}) {
      Json doc;
      doc["arch"] = "sm_120";
      if (empty_first) doc["none"] = Json::array();
      doc["findings"] = findings;
      doc["errors"] = Json::array();
      doc["groups"] = groups;
      doc["warnings"] = Json::array();
      const std::string streamed = Streamed(
          [&](JsonObjectStream& json) {
            json.Member("arch", "sm_120");
            std::vector<JsonObjectStream::Array> arrays;
            if (empty_first) arrays.push_back({"none", 0, element(Json::array())});
            arrays.push_back({"findings", findings.size(), element(findings)});
            arrays.push_back({"errors", 0, element(Json::array())});
            arrays.push_back({"groups", groups.size(), element(groups)});
            arrays.push_back({"warnings", 0, element(Json::array())});
            json.ArrayMembers(arrays);
          },
          jobs);
      EXPECT_EQ(streamed, doc.dump(2) + "\n") << jobs << " jobs, empty first: " << empty_first;
    }
  }
}

// A file name is bytes: one that is not UTF-8 prints as U+FFFD, and the document stays JSON
// (nlohmann's default threw, half-way through the document or on a worker thread).
TEST(JsonObjectStream, BytesThatAreNotUtf8PrintAsReplacementCharacters) {
  const Json findings = Json::array({{{"file", "/site/k\xff.cu"}}, {{"file", "ok.cu"}}});
  const std::string streamed = Streamed(
      [&](JsonObjectStream& json) {
        json.Member("root", "/site/\xfe");
        json.ArrayMember("findings", findings.size(), [&](size_t i) { return findings[i]; });
      },
      2);
  const Json parsed = Json::parse(streamed);
  EXPECT_EQ(parsed["root"], "/site/\xef\xbf\xbd");
  EXPECT_EQ(parsed["findings"][0]["file"], "/site/k\xef\xbf\xbd.cu");
  EXPECT_EQ(parsed["findings"][1]["file"], "ok.cu");
}

TEST(JsonObjectStream, AnEmptyObjectIsBraces) {
  EXPECT_EQ(Streamed([](JsonObjectStream&) {}), Json::object().dump(2) + "\n");
}

}  // namespace
}  // namespace archpatch::report
