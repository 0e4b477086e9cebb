#include "suggest/fixture.h"

#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "env/digest.h"
#include "plan/planner.h"
#include "plan/rule_fixture.h"
#include "rules/loader.h"
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
                                      const std::map<std::string, std::string>& contents,
                                      const env::Distribution& dist, const arch::Arch& target) {
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
    const SamePlaces same = [&](std::string_view text) {
      for (size_t i = 0; i < mine.size(); ++i) {
        if (SignatureOf(*mine[i], text, target) != whole[i]) return false;
      }
      return true;
    };
    out.push_back({path, SliceAroundGates(bytes, lines, same), ""});
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
