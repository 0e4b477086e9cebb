#include "report/json_stream.h"

#include <string>

namespace archpatch::report {

void JsonObjectStream::Key(std::string_view key) {
  std::fputs(first_ ? "{\n  " : ",\n  ", out_);
  first_ = false;
  const std::string quoted = nlohmann::ordered_json(std::string(key)).dump();
  std::fwrite(quoted.data(), 1, quoted.size(), out_);
  std::fputs(": ", out_);
}

// dump(2) of a value nested `indent` deep: its own dump with the indent after every newline
// (a newline in dumped JSON is always structure: strings escape theirs).
void JsonObjectStream::Indented(const nlohmann::ordered_json& value, std::string_view indent) {
  const std::string text = value.dump(2);
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    std::fwrite(text.data() + from, 1, nl + 1 - from, out_);
    std::fwrite(indent.data(), 1, indent.size(), out_);
    from = nl + 1;
  }
  std::fwrite(text.data() + from, 1, text.size() - from, out_);
}

void JsonObjectStream::Member(std::string_view key, const nlohmann::ordered_json& value) {
  Key(key);
  Indented(value, "  ");
}

void JsonObjectStream::ArrayMember(std::string_view key, size_t count,
                                   const std::function<nlohmann::ordered_json(size_t)>& element) {
  Key(key);
  if (count == 0) {
    std::fputs("[]", out_);
    return;
  }
  std::fputs("[\n", out_);
  for (size_t i = 0; i < count; ++i) {
    std::fputs(i ? ",\n    " : "    ", out_);
    Indented(element(i), "    ");
  }
  std::fputs("\n  ]", out_);
}

void JsonObjectStream::Close() {
  std::fputs(first_ ? "{}\n" : "\n}\n", out_);
  first_ = true;
}

}  // namespace archpatch::report
