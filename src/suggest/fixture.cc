#include "suggest/fixture.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "env/digest.h"
#include "plan/planner.h"
#include "plan/rule_fixture.h"
#include "python/syntax.h"
#include "python/tokenizer.h"
#include "rules/loader.h"
#include "scan/scan.h"
#include "suggest/slice.h"

namespace archpatch::suggest {
namespace fs = std::filesystem;
namespace {

// What an edit selects, in a form two files can be compared by: each place's bytes before and
// after, whether it is satisfied, and its description (scope included, line numbers not).
using Signature = std::vector<std::tuple<std::string, std::string, bool, std::string>>;

std::optional<Signature> SignatureOf(const rules::Edit& edit, std::string_view text, const arch::Arch& target) {
  Result<plan::FilePlaces> places = LocateEdit(edit, text, {target});
  if (!places) return std::nullopt;
  Signature s;
  for (const plan::Place& p : places->places) s.emplace_back(p.before, p.after, p.satisfied, p.description);
  return s;
}

// `text` with every changing place of `edits` applied (places of one file never overlap in a
// draft: assemble.cc refuses an edit that would), or nullopt when an edit does not locate.
std::optional<std::string> Applied(const std::vector<const rules::Edit*>& edits, std::string_view text,
                                   const arch::Arch& target) {
  std::vector<plan::Place> all;
  for (const rules::Edit* e : edits) {
    Result<plan::FilePlaces> places = LocateEdit(*e, text, {target});
    if (!places) return std::nullopt;
    for (plan::Place& p : places->places) {
      if (Changes(p)) all.push_back(std::move(p));
    }
  }
  std::sort(all.begin(), all.end(), [](const plan::Place& a, const plan::Place& b) { return a.begin > b.begin; });
  std::string out(text);
  for (const plan::Place& p : all) out.replace(p.begin, p.end - p.begin, p.after);
  return out;
}

// Whether every edit selects as many places in `after` as it did before, all satisfied: what
// `rules test` asks of after/.
bool SatisfiedAfter(const std::vector<const rules::Edit*>& edits, const std::vector<std::optional<Signature>>& whole,
                    std::string_view before, const arch::Arch& target) {
  const std::optional<std::string> after = Applied(edits, before, target);
  if (!after) return false;
  for (size_t i = 0; i < edits.size(); ++i) {
    const std::optional<Signature> again = SignatureOf(*edits[i], *after, target);
    if (!again || !whole[i] || again->size() != whole[i]->size()) return false;
    for (const auto& place : *again) {
      if (!std::get<2>(place)) return false;
    }
  }
  return true;
}

// A Python file's logical lines as units (a statement over several lines goes whole); none for
// other files, or when the file does not tokenize.
std::vector<LineUnit> UnitsOf(const std::string& path, std::string_view contents) {
  std::vector<LineUnit> units;
  if (scan::KindOf(path) != scan::FileKind::kPython) return units;
  Result<std::vector<python::Token>> tokens = python::Tokenize(path, contents);
  if (!tokens) return units;
  const python::TokenStream ts = python::MakeStream(contents, std::move(*tokens));
  for (const python::LogicalLine& line : python::SplitLines(ts)) {
    if (line.first >= line.last || line.last > ts.tokens.size()) continue;
    const int first = ts.tokens[line.first].line;
    const auto& end = ts.tokens[line.last - 1];
    const int last =
        first + static_cast<int>(std::count(contents.begin() + static_cast<long>(ts.tokens[line.first].begin),
                                            contents.begin() + static_cast<long>(end.end), '\n'));
    units.push_back({first, last, line.depth});
  }
  return units;
}

std::string Metadata(const env::Distribution& dist) {
  return fmt::format("Metadata-Version: 2.1\nName: {}\nVersion: {}\n", dist.name, dist.version);
}

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "archpatch-suggest-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

Status WriteScratch(const fs::path& path, std::string_view bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out.flush()) return Error{fmt::format("cannot write '{}'", path.string()), {}};
  return Ok{};
}

Result<plan::EditPlan> PlanOn(const rules::Rule& rule, const fs::path& tree) {
  Result<env::Environment> env = env::LoadSitePackages(tree);
  if (!env) return env.error();
  return plan::PlanRules({rule}, *env);
}

// after/ from the plan against before/.
Status FillAfter(SuggestedRule& draft, const rules::Rule& rule, const fs::path& before) {
  Result<plan::EditPlan> plan = PlanOn(rule, before);
  if (!plan) return Error{fmt::format("planning against the fixture failed: {}", plan.error().str()), {}};
  for (FixtureFile& f : draft.fixture) f.after = f.before;
  for (const plan::FilePlan& planned : plan->rules[0].files) {
    for (FixtureFile& f : draft.fixture) {
      if (f.path == planned.path) f.after = plan::ApplyEdits(f.before, planned);
    }
  }
  return Ok{};
}

}  // namespace

std::vector<FixtureFile> SliceFixture(const std::vector<ChosenEdit>& edits,
                                      const std::map<std::string, std::string>& contents, const env::Distribution& dist,
                                      const arch::Arch& target) {
  std::vector<FixtureFile> out;
  for (const auto& [path, bytes] : contents) {
    std::vector<const rules::Edit*> mine;
    std::vector<int> lines;
    for (const ChosenEdit& e : edits) {
      if (e.edit.file != path) continue;
      mine.push_back(&e.edit);
      for (const plan::Place& p : e.places) lines.push_back(p.line);
    }
    if (mine.empty()) continue;
    std::vector<std::optional<Signature>> whole;
    for (const rules::Edit* e : mine) whole.push_back(SignatureOf(*e, bytes, target));
    // Signatures alone on each try (a scan per edit); that after/ is satisfied again is checked on
    // the result, and only when it is not does every try check it too (three scans per edit).
    const SamePlaces same = [&](std::string_view text) {
      for (size_t i = 0; i < mine.size(); ++i) {
        if (SignatureOf(*mine[i], text, target) != whole[i]) return false;
      }
      return true;
    };
    const SamePlaces same_and_satisfied = [&](std::string_view text) {
      return same(text) && SatisfiedAfter(mine, whole, text, target);
    };
    const auto start = std::chrono::steady_clock::now();
    const std::vector<LineUnit> units = UnitsOf(path, bytes);
    std::string slice = SliceAroundGates(bytes, lines, same, units);
    if (!SatisfiedAfter(mine, whole, slice, target)) slice = SliceAroundGates(bytes, lines, same_and_satisfied, units);
    spdlog::debug(
        "suggest: fixture {}: {} of {} bytes kept ({} ms)", path, slice.size(), bytes.size(),
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
    out.push_back({path, std::move(slice), ""});
  }
  out.push_back({dist.dist_info.filename().string() + "/METADATA", Metadata(dist), ""});
  return out;
}

Status CheckDraft(SuggestedRule& draft, const env::Environment& env) {
  ScratchDir scratch;
  if (scratch.path().empty()) return Error{"cannot make a scratch folder to check the draft", {}};
  const fs::path rule_file = scratch.path() / (draft.id + ".yaml");
  const fs::path fixture = scratch.path() / "tests" / draft.id;
  if (Status s = WriteScratch(rule_file, draft.yaml); !s) return s;
  for (const FixtureFile& f : draft.fixture) {
    if (Status s = WriteScratch(fixture / "before" / f.path, f.before); !s) return s;
  }
  Result<rules::Rule> rule = rules::LoadRuleFile(rule_file);
  if (!rule) return Error{fmt::format("the rule does not load: {}", rule.error().str()), {}};
  if (Status s = FillAfter(draft, *rule, fixture / "before"); !s) return s;
  for (const FixtureFile& f : draft.fixture) {
    if (Status s = WriteScratch(fixture / "after" / f.path, f.after); !s) return s;
  }
  const plan::FixtureResult tested = plan::TestRuleFixture(*rule);
  if (!tested.passed) return Error{fmt::format("its fixture fails `rules test`: {}", tested.message), {}};
  Result<plan::EditPlan> installed = plan::PlanRules({*rule}, env);
  if (!installed) return Error{fmt::format("it does not plan on the installed files: {}", installed.error().str()), {}};
  if (installed->rules[0].satisfied) return Error{"it changes nothing on the installed files", {}};
  return Ok{};
}

}  // namespace archpatch::suggest
