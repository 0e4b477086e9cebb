#include "plan/rule_fixture.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "env/digest.h"
#include "env/environment.h"
#include "plan/planner.h"
#include "util/input_file.h"

namespace archpatch::plan {
namespace fs = std::filesystem;
namespace {

// Every regular file under `dir`, root-relative, '/'-separated.
std::set<std::string> FilesUnder(const fs::path& dir) {
  std::set<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it); it.increment(ec)) {
    if (it->is_regular_file()) files.insert(it->path().lexically_relative(dir).generic_string());
  }
  return files;
}

std::string ReadOrEmpty(const fs::path& path) {
  Result<std::string> bytes = ReadInputFile(path, kMaxSourceBytes);
  return bytes ? *bytes : "";
}

Result<EditPlan> PlanAgainst(const rules::Rule& rule, const fs::path& tree) {
  Result<env::Environment> env = env::LoadSitePackages(tree);
  if (!env) return env.error();
  return PlanRules({rule}, *env);
}

// Compares before/ with planned edits against after/, file by file.
FixtureResult CompareTrees(const fs::path& before, const fs::path& after, const EditPlan& plan) {
  std::map<std::string, std::string> planned;
  for (const FilePlan& f : plan.rules[0].files) planned[f.path] = ApplyEdits(ReadOrEmpty(before / f.path), f);
  std::set<std::string> paths = FilesUnder(before);
  for (const std::string& p : FilesUnder(after)) paths.insert(p);
  FixtureResult result{true, "", ""};
  std::vector<std::string> differing;
  for (const std::string& path : paths) {
    const std::string expected = ReadOrEmpty(after / path);
    const std::string actual = planned.count(path) ? planned[path] : ReadOrEmpty(before / path);
    const bool missing = !fs::exists(after / path) || !fs::exists(before / path);
    if (expected == actual && !missing) continue;
    differing.push_back(path);
    result.diff += missing ? fmt::format("only in {}: {}\n", fs::exists(after / path) ? "after/" : "before/", path)
                           : UnifiedDiff(path, expected, actual);
  }
  if (!differing.empty()) {
    result.passed = false;
    result.message = fmt::format("{} differ{}", fmt::join(differing, ", "), differing.size() == 1 ? "s" : "");
  }
  return result;
}

}  // namespace

fs::path FixtureDir(const rules::Rule& rule) { return rule.path.parent_path() / "tests" / rule.id; }

FixtureResult TestRuleFixture(const rules::Rule& rule) {
  const fs::path dir = FixtureDir(rule), before = dir / "before", after = dir / "after";
  std::error_code ec;
  if (!fs::is_directory(before, ec) || !fs::is_directory(after, ec)) {
    return {false, fmt::format("no fixture: '{}' needs before/ and after/", dir.string()), ""};
  }
  Result<EditPlan> plan = PlanAgainst(rule, before);
  if (!plan) return {false, fmt::format("planning against before/ failed: {}", plan.error().str()), ""};
  FixtureResult result = CompareTrees(before, after, *plan);
  if (!result.passed) return result;
  Result<EditPlan> again = PlanAgainst(rule, after);
  if (!again) return {false, fmt::format("planning against after/ failed: {}", again.error().str()), ""};
  if (!again->rules[0].satisfied) {
    return {false, fmt::format("after/ is not satisfied: {} file(s) would change again", again->rules[0].files.size()),
            ""};
  }
  return {true, "", ""};
}

}  // namespace archpatch::plan
