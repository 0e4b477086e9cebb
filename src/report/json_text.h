// The text of JSON documents printed for tools (--json, SARIF, the Ansible module's answer).
// A file name is any bytes but '/' and NUL, and a gate's text is the file's own bytes: where they
// are not UTF-8, nlohmann's default (throw) left a half-printed document, or, from a worker
// thread, an abort. Such bytes print as U+FFFD instead (docs/audit.md, "Text that is not UTF-8").
// The state folder's own files (manifest, journal) keep the strict default: a path written there
// must read back as the same bytes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace archpatch::report {

// value.dump(indent), invalid UTF-8 replaced; indent -1 prints on one line.
std::string DumpText(const nlohmann::ordered_json& value, int indent = -1);
std::string DumpText(const nlohmann::json& value, int indent = -1);

// What the whole document's dump(2) prints for `value` nested `depth` spaces deep in it, invalid
// UTF-8 replaced: the same bytes (json_text_test holds it to that).
std::string IndentedText(const nlohmann::ordered_json& value, unsigned depth);

}  // namespace archpatch::report
