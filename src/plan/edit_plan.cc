#include "plan/edit_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/result.h"

namespace archpatch::plan {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kPlanFormatVersion = 1;

Json ToJson(const TextEdit& e) {
  return Json{{"begin", e.begin},
              {"end", e.end},
              {"line", e.line},
              {"column", e.column},
              {"edit_index", e.edit_index},
              {"kind", e.kind},
              {"before", e.before},
              {"after", e.after},
              {"description", e.description}};
}

Json ToJson(const FilePlan& f) {
  Json edits = Json::array();
  for (const TextEdit& e : f.edits) edits.push_back(ToJson(e));
  return Json{{"path", f.path}, {"sha256_before", f.sha256_before}, {"sha256_after", f.sha256_after}, {"edits", edits}};
}

Json ToJson(const RulePlan& r) {
  Json files = Json::array();
  for (const FilePlan& f : r.files) files.push_back(ToJson(f));
  return Json{{"rule", r.rule_id},
              {"rule_sha256", r.rule_sha256},
              {"rule_path", r.rule_path},
              {"distribution", r.distribution},
              {"version", r.version},
              {"root", r.root},
              {"targets", r.targets},
              {"caches", r.caches},
              {"satisfied", r.satisfied},
              {"notes", r.notes},
              {"files", files}};
}

// Reads JSON fields with messages that name the path of the bad one ("rules[0].files[2].path").
class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string where) : object_(object), where_(std::move(where)) {}

  Status Check() const {
    if (!object_.is_object()) return Error{fmt::format("plan: {} must be an object", where_), {}};
    return Ok{};
  }
  Result<std::string> String(const char* key) const {
    if (!object_.contains(key) || !object_[key].is_string()) return Missing(key, "a string");
    return object_[key].get<std::string>();
  }
  Result<size_t> Size(const char* key) const {
    if (!object_.contains(key) || !object_[key].is_number_integer() || object_[key].get<long long>() < 0) {
      return Missing(key, "a number >= 0");
    }
    return object_[key].get<size_t>();
  }
  Result<int> Int(const char* key) const {
    if (!object_.contains(key) || !object_[key].is_number_integer()) return Missing(key, "a whole number");
    return object_[key].get<int>();
  }
  Result<bool> Bool(const char* key) const {
    if (!object_.contains(key) || !object_[key].is_boolean()) return Missing(key, "true or false");
    return object_[key].get<bool>();
  }
  Result<std::vector<std::string>> Strings(const char* key) const {
    if (!object_.contains(key) || !object_[key].is_array()) return Missing(key, "a list of strings");
    std::vector<std::string> out;
    for (const auto& item : object_[key]) {
      if (!item.is_string()) return Missing(key, "a list of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  Result<const nlohmann::json*> Array(const char* key) const {
    if (!object_.contains(key) || !object_[key].is_array()) return Missing(key, "a list");
    return &object_[key];
  }
  std::string Child(const char* key, size_t i) const { return fmt::format("{}.{}[{}]", where_, key, i); }

 private:
  Error Missing(const char* key, const char* what) const {
    return Error{fmt::format("plan: {}.{} must be {}", where_, key, what), {}};
  }
  const nlohmann::json& object_;
  std::string where_;
};

// Expands to "read a field or return its error".
#define PLAN_READ(target, expr)         \
  do {                                  \
    auto value_ = (expr);               \
    if (!value_) return value_.error(); \
    (target) = std::move(*value_);      \
  } while (0)

Result<TextEdit> EditFromJson(const nlohmann::json& json, const std::string& where) {
  FieldReader r(json, where);
  if (Status ok = r.Check(); !ok) return ok.error();
  TextEdit e;
  PLAN_READ(e.begin, r.Size("begin"));
  PLAN_READ(e.end, r.Size("end"));
  PLAN_READ(e.line, r.Int("line"));
  PLAN_READ(e.column, r.Int("column"));
  PLAN_READ(e.edit_index, r.Int("edit_index"));
  PLAN_READ(e.kind, r.String("kind"));
  PLAN_READ(e.before, r.String("before"));
  PLAN_READ(e.after, r.String("after"));
  PLAN_READ(e.description, r.String("description"));
  if (e.end < e.begin || e.end - e.begin != e.before.size()) {
    return Error{fmt::format("plan: {}: [begin, end) does not cover 'before'", where), {}};
  }
  return e;
}

Result<FilePlan> FileFromJson(const nlohmann::json& json, const std::string& where) {
  FieldReader r(json, where);
  if (Status ok = r.Check(); !ok) return ok.error();
  FilePlan f;
  PLAN_READ(f.path, r.String("path"));
  PLAN_READ(f.sha256_before, r.String("sha256_before"));
  PLAN_READ(f.sha256_after, r.String("sha256_after"));
  const nlohmann::json* edits = nullptr;
  PLAN_READ(edits, r.Array("edits"));
  for (size_t i = 0; i < edits->size(); ++i) {
    Result<TextEdit> e = EditFromJson((*edits)[i], r.Child("edits", i));
    if (!e) return e.error();
    if (!f.edits.empty() && e->begin < f.edits.back().end) {
      return Error{fmt::format("plan: {}: edits overlap or are not sorted", r.Child("edits", i)), {}};
    }
    f.edits.push_back(std::move(*e));
  }
  return f;
}

Result<RulePlan> RuleFromJson(const nlohmann::json& json, const std::string& where) {
  FieldReader r(json, where);
  if (Status ok = r.Check(); !ok) return ok.error();
  RulePlan rule;
  PLAN_READ(rule.rule_id, r.String("rule"));
  PLAN_READ(rule.rule_sha256, r.String("rule_sha256"));
  PLAN_READ(rule.rule_path, r.String("rule_path"));
  PLAN_READ(rule.distribution, r.String("distribution"));
  PLAN_READ(rule.version, r.String("version"));
  PLAN_READ(rule.root, r.String("root"));
  PLAN_READ(rule.targets, r.Strings("targets"));
  PLAN_READ(rule.caches, r.Strings("caches"));
  PLAN_READ(rule.satisfied, r.Bool("satisfied"));
  PLAN_READ(rule.notes, r.Strings("notes"));
  const nlohmann::json* files = nullptr;
  PLAN_READ(files, r.Array("files"));
  for (size_t i = 0; i < files->size(); ++i) {
    Result<FilePlan> f = FileFromJson((*files)[i], r.Child("files", i));
    if (!f) return f.error();
    rule.files.push_back(std::move(*f));
  }
  return rule;
}

}  // namespace

bool EditPlan::satisfied() const {
  return std::all_of(rules.begin(), rules.end(), [](const RulePlan& r) { return r.satisfied; });
}

nlohmann::ordered_json ToJson(const EditPlan& plan) {
  Json rules = Json::array();
  for (const RulePlan& r : plan.rules) rules.push_back(ToJson(r));
  return Json{{"format", "archpatch-plan"},
              {"format_version", kPlanFormatVersion},
              {"root", plan.root},
              {"satisfied", plan.satisfied()},
              {"rules", rules}};
}

Result<EditPlan> PlanFromJson(const nlohmann::json& json) {
  FieldReader r(json, "plan");
  if (Status ok = r.Check(); !ok) return ok.error();
  std::string format;
  PLAN_READ(format, r.String("format"));
  int version = 0;
  PLAN_READ(version, r.Int("format_version"));
  if (format != "archpatch-plan" || version != kPlanFormatVersion) {
    return Error{fmt::format("plan: not an archpatch plan of format version {} (format '{}', version {})",
                             kPlanFormatVersion, format, version),
                 {}};
  }
  EditPlan plan;
  PLAN_READ(plan.root, r.String("root"));
  const nlohmann::json* rules = nullptr;
  PLAN_READ(rules, r.Array("rules"));
  for (size_t i = 0; i < rules->size(); ++i) {
    Result<RulePlan> rule = RuleFromJson((*rules)[i], r.Child("rules", i));
    if (!rule) return rule.error();
    plan.rules.push_back(std::move(*rule));
  }
  return plan;
}

std::string ApplyEdits(std::string_view original, const FilePlan& file) {
  std::string out;
  out.reserve(original.size());
  size_t at = 0;
  for (const TextEdit& e : file.edits) {
    if (e.begin < at || e.end < e.begin || e.end > original.size() ||
        original.substr(e.begin, e.end - e.begin) != e.before) {
      throw Fatal(
          fmt::format("{}:{}:{}: the planned edit does not match the file's bytes", file.path, e.line, e.column));
    }
    out.append(original.substr(at, e.begin - at));
    out.append(e.after);
    at = e.end;
  }
  out.append(original.substr(at));
  return out;
}

}  // namespace archpatch::plan
