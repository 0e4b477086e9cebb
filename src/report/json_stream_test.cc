// The streamed object must read, byte for byte, as the document's dump(2): --json is a contract.
#include "report/json_stream.h"

#include <cstdio>
#include <string>

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

// Several threads make the elements, batch by batch (2048 a batch: 5000 cross two boundaries);
// the bytes and their order stay the dump's.
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

TEST(JsonObjectStream, AnEmptyObjectIsBraces) {
  EXPECT_EQ(Streamed([](JsonObjectStream&) {}), Json::object().dump(2) + "\n");
}

}  // namespace
}  // namespace archpatch::report
