// The plan as data: every byte range archpatch would change, with the text before and after.
// Planning (planner.h) produces it; apply (src/store) executes it, prints it (--dry-run --json)
// or replays a reviewed one (--plan FILE). docs/rules.md documents the JSON form.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace archpatch::plan {

// One replacement of the bytes [begin, end) of the ORIGINAL file.
struct TextEdit {
  size_t begin = 0;
  size_t end = 0;
  std::string before;       // the original bytes [begin, end)
  std::string after;        // what replaces them
  int line = 0;             // 1-based position of `begin`
  int column = 0;           // 1-based, in bytes
  int edit_index = 0;       // 0-based index of the rule edit that produced it
  std::string kind;         // "cuda-gate", "python-gate", "replace"
  std::string description;  // one line for people: "widen supported_major_versions for sm_120"
};

// The edits to one file, sorted by `begin`, never overlapping.
struct FilePlan {
  std::string path;           // relative to RulePlan::root, '/'-separated, as in RECORD
  std::string sha256_before;  // hex digest of the file as planned against
  std::string sha256_after;   // hex digest of ApplyEdits(original, *this)
  std::vector<TextEdit> edits;
};

// One rule's plan. `satisfied` means every gate it names already admits every target: nothing to
// do, `files` is empty.
struct RulePlan {
  std::string rule_id;
  std::string rule_sha256;
  std::string rule_path;
  std::string distribution;          // normalised name
  std::string version;               // installed version ("" for a plain --root tree without dist-info)
  std::string root;                  // absolute folder the file paths are relative to (site-packages)
  std::vector<std::string> targets;  // "sm_120", ...
  std::vector<std::string> caches;
  std::vector<FilePlan> files;  // sorted by path
  bool satisfied = false;
  std::vector<std::string> notes;  // per-edit remarks: "edit 2: already satisfied in a.py:12"
};

struct EditPlan {
  std::string root;             // the environment's site-packages (where .archpatch/ lives)
  std::vector<RulePlan> rules;  // in the order the rules were given

  bool satisfied() const;  // every rule is satisfied
};

nlohmann::ordered_json ToJson(const EditPlan& plan);
// Reads back what ToJson wrote (for `apply --plan FILE`); errors name the bad field.
Result<EditPlan> PlanFromJson(const nlohmann::json& json);

// The new bytes of a file: `original` with every edit of `file` applied. Edits must be sorted and
// non-overlapping and their `before` must equal the original bytes (a Fatal otherwise).
std::string ApplyEdits(std::string_view original, const FilePlan& file);

// A unified diff like `diff -u` with "a/PATH" and "b/PATH" headers, 3 lines of context.
// "" when before == after. A missing final newline is marked "\ No newline at end of file".
std::string UnifiedDiff(const std::string& path, std::string_view before, std::string_view after);

}  // namespace archpatch::plan
