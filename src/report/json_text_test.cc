// IndentedText walks dump(2)'s layout itself, so that strings it printed before are copied: its
// bytes must stay nlohmann's, at any depth, for every kind of value, the copied strings included.
#include "report/json_text.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace archpatch::report {
namespace {

using Json = nlohmann::ordered_json;

// What dump(2) prints for `value` nested four spaces deep (an element of a member's array).
std::string AsAnElement(const Json& value) {
  const std::string doc = Json{{"x", Json::array({value})}}.dump(2, ' ', false, Json::error_handler_t::replace);
  const std::string head = "{\n  \"x\": [\n    ", tail = "\n  ]\n}";
  return doc.substr(head.size(), doc.size() - head.size() - tail.size());
}

Json Finding(int i) {
  const std::string citation(400, 'c');
  return {{"file", "/site/flashinfer/csrc/f" + std::to_string(i % 7) + ".cu"},
          {"line", i},
          {"column", -i},
          {"ratio", i / 3.0},
          {"big", 18446744073709551615ull},
          {"text", "defined(__CUDA_ARCH__) && \"quoted\"\t\\ \x01 caf\xc3\xa9 \xe2\x82\xac"},
          {"verdict", {{"sm_120", "false"}, {"sm_90a", i % 2 ? "true" : "false"}, {"sm_100", nullptr}}},
          {"uses", Json::array({{{"feature", "tcgen05"}, {"source", citation}, {"arches", {"sm_100a", "sm_103a"}}}})},
          {"empty_object", Json::object()},
          {"empty_array", Json::array()},
          {"nested", Json::array({Json::array(), Json::array({true, false}), Json::object({{"k", Json::array({1})}})})},
          {"not_utf8", std::string("k\xff") + ".cu"},
          {"late_escapes", std::string(40, 'a') + "\x7f" + std::string(17, 'b') + "\"" + std::string(20, 'c') + "\x1f"},
          {"late_utf8", std::string(33, 'p') + "caf\xc3\xa9 " + std::string(16, 'q') + "\xc3"}};
}

TEST(IndentedText, SameBytesAsDumpAtTheTopAndNestedDeep) {
  for (int i = 0; i < 50; ++i) {  // the second time round, every string comes from the table
    const Json value = Finding(i);
    EXPECT_EQ(IndentedText(value, 0), value.dump(2, ' ', false, Json::error_handler_t::replace)) << i;
    EXPECT_EQ(IndentedText(value, 4), AsAnElement(value)) << i;
  }
}

TEST(IndentedText, ScalarsAndEmptyContainersPrintAsDumpDoes) {
  for (const Json& value : {Json(nullptr), Json(true), Json(0), Json(-7), Json(1e300), Json(0.1), Json(""),
                            Json("\"\\/\b\f\n\r\t"), Json::object(), Json::array(), Json(std::string("\xc3"))}) {
    EXPECT_EQ(IndentedText(value, 4), AsAnElement(value)) << value.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

// Each thread keeps its own table: threads printing the same strings at once print the same bytes.
TEST(IndentedText, ThreadsPrintingTheSameStringsAgree) {
  const std::string expected = AsAnElement(Finding(3));
  std::vector<std::string> texts(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < texts.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) texts[t] = IndentedText(Finding(3), 4);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& text : texts) EXPECT_EQ(text, expected);
}

}  // namespace
}  // namespace archpatch::report
