// PlanRules: for each rule, check the distribution and its version, then locate every edit's
// places in the files its pattern selects, and turn them into byte-range edits. Nothing is
// written. Rules are planned in order against the bytes earlier rules would leave, so a plan
// with two rules touching one file applies rule by rule.
#include "plan/planner.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "env/digest.h"
#include "env/glob.h"
#include "env/safe_path.h"
#include "env/version.h"
#include "plan/locate.h"
#include "util/input_file.h"

namespace archpatch::plan {
namespace {

// Bytes of files as earlier rules of the same plan would leave them (absolute path -> bytes).
using Overlay = std::map<std::string, std::string>;

// One file's edits within one rule, against `original`.
struct FileWork {
  std::string original;
  std::vector<TextEdit> edits;
};

std::string EditLabel(const rules::Rule& rule, size_t index) {
  return fmt::format("rule '{}' edit {} ({})", rule.id, index + 1, rule.edits[index].file);
}

// What an edit selects, for messages: "python-gate (scope 'f', name 'x')".
std::string Selector(const rules::Edit& edit) {
  if (const auto* g = std::get_if<rules::CudaGate>(&edit.action)) {
    return fmt::format("cuda-gate on '{}'{}", g->macro, g->scope.empty() ? "" : fmt::format(" in '{}'", g->scope));
  }
  if (const auto* g = std::get_if<rules::PythonGate>(&edit.action)) {
    return fmt::format("python-gate (scope '{}', name '{}')", g->scope, g->name);
  }
  const auto& r = std::get<rules::Replace>(edit.action);
  return fmt::format("replace of '{}'{}", r.old_text, r.scope.empty() ? "" : fmt::format(" in '{}'", r.scope));
}

// "demo/jit.py: gen_a, Builder, Builder.gen" (at most 30 names), for the message of an edit
// whose scope names nothing in the file.
std::string ScopeList(const std::string& path, const std::vector<std::string>& scopes) {
  constexpr size_t kLimit = 30;
  if (scopes.empty()) return path + ": none";
  std::vector<std::string> shown(scopes.begin(), scopes.begin() + std::min(kLimit, scopes.size()));
  std::string out = fmt::format("{}: {}", path, fmt::join(shown, ", "));
  if (scopes.size() > kLimit) out += fmt::format(" and {} more", scopes.size() - kLimit);
  return out;
}

std::string EditScope(const rules::Edit& edit) {
  if (const auto* g = std::get_if<rules::CudaGate>(&edit.action)) return g->scope;
  if (const auto* g = std::get_if<rules::PythonGate>(&edit.action)) return g->scope;
  return std::get<rules::Replace>(edit.action).scope;
}

Result<std::string> ReadText(const std::filesystem::path& root, const std::string& relative, const PlanOptions& options,
                             const Overlay& overlay) {
  Result<std::filesystem::path> path = env::ResolveInside(root, relative);
  if (!path) return path.error();
  if (auto it = overlay.find(path->string()); it != overlay.end()) return it->second;
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(*path, ec);
  if (ec) return Error{fmt::format("cannot read '{}': {}", relative, ec.message()), {}};
  if (size > options.max_file_bytes) {
    return Error{fmt::format("'{}' has {} bytes, over the {} MiB limit for files a rule edits", relative, size,
                             options.max_file_bytes >> 20),
                 {}};
  }
  Result<std::string> bytes = options.read ? options.read(*path) : ReadInputFile(*path, kMaxSourceBytes);
  if (!bytes) return bytes.error();
  if (size_t nul = bytes->find('\0'); nul != std::string::npos) {
    return Error{fmt::format("'{}' is binary (a NUL byte at offset {}); rules edit text files only", relative, nul),
                 {}};
  }
  return bytes;
}

Result<FilePlaces> Locate(const rules::Edit& edit, const std::string& path, std::string_view contents,
                          const std::vector<arch::Arch>& targets) {
  if (const auto* g = std::get_if<rules::CudaGate>(&edit.action)) return LocateCudaGates(*g, path, contents, targets);
  if (const auto* g = std::get_if<rules::PythonGate>(&edit.action))
    return LocatePythonGates(*g, path, contents, targets);
  return LocateReplacements(std::get<rules::Replace>(edit.action), path, contents);
}

bool IsGlob(std::string_view pattern) { return pattern.find_first_of("*?[") != std::string_view::npos; }

std::string ListSome(const std::vector<std::string>& items, size_t limit = 5) {
  std::vector<std::string> shown(items.begin(), items.begin() + std::min(limit, items.size()));
  std::string out = fmt::format("{}", fmt::join(shown, "; "));
  if (items.size() > limit) out += fmt::format("; and {} more", items.size() - limit);
  return out;
}

// The distribution the rule is for, installed and in range; nullptr for a plain --root tree
// without its dist-info.
Result<const env::Distribution*> CheckDistribution(const rules::Rule& rule, const env::Environment& env,
                                                   const PlanOptions& options) {
  const env::Distribution* dist = env.Find(rule.distribution);
  if (!dist) {
    if (env.plain_root) return dist;
    return Error{fmt::format("rule '{}': distribution '{}' is not installed in '{}'", rule.id, rule.distribution,
                             env.site_packages.string()),
                 {}};
  }
  if (!options.check_version) return dist;
  Result<env::SpecifierSet> range = env::SpecifierSet::Parse(rule.versions);
  if (!range) return Error{fmt::format("rule '{}': {}", rule.id, range.error().message), {}};
  // The installed version is the only candidate, so pre-releases count (docs/rules.md).
  if (!range->Contains(dist->version, /*allow_prereleases=*/true)) {
    return Error{fmt::format("rule '{}': {} {} is outside the rule's versions '{}'", rule.id, dist->normalized_name,
                             dist->version, rule.versions),
                 {}};
  }
  return dist;
}

// Locates one edit in every file its pattern selects; adds its changes to `files`.
Status PlanEdit(const rules::Rule& rule, size_t index, const std::filesystem::path& root, const PlanOptions& options,
                const Overlay& overlay, std::map<std::string, FileWork>& files, RulePlan& out) {
  const rules::Edit& edit = rule.edits[index];
  Result<std::vector<std::string>> paths = env::GlobInside(root, edit.file);
  if (!paths) return Error{fmt::format("{}: {}", EditLabel(rule, index), paths.error().message), {}};
  if (paths->empty())
    return Error{fmt::format("{}: no file matches in '{}'", EditLabel(rule, index), root.string()), {}};
  std::vector<std::string> found, near_misses;
  std::vector<std::string> scope_lists;  // "path: a, b, c" for files where a scoped edit found nothing
  size_t satisfied = 0;
  for (const std::string& path : *paths) {
    Result<std::string> contents =
        files.count(path) ? Result<std::string>(files[path].original) : ReadText(root, path, options, overlay);
    if (!contents) return Error{fmt::format("{}: {}", EditLabel(rule, index), contents.error().str()), {}};
    Result<FilePlaces> places = Locate(edit, path, *contents, rule.targets);
    if (!places && IsGlob(edit.file)) {
      // One unreadable file among many a glob selects (a stray Python 2 script) holds no gate the
      // rule can reason about; a file named exactly must scan.
      out.notes.push_back(fmt::format("edit {}: skipped {}", index + 1, places.error().str()));
      continue;
    }
    if (!places) return Error{fmt::format("{}: {}", EditLabel(rule, index), places.error().str()), {}};
    near_misses.insert(near_misses.end(), places->near_misses.begin(), places->near_misses.end());
    if (places->places.empty() && !EditScope(edit).empty()) {
      if (Result<std::vector<std::string>> scopes = ScopesIn(path, *contents))
        scope_lists.push_back(ScopeList(path, *scopes));
    }
    for (const Place& p : places->places) {
      found.push_back(fmt::format("{}:{}", path, p.line));
      if (p.satisfied) {
        ++satisfied;
        continue;
      }
      FileWork& work = files[path];
      work.original = *contents;
      work.edits.push_back({p.begin, p.end, p.before, p.after, p.line, p.column, static_cast<int>(index),
                            std::string(edit.KindName()), p.description});
    }
  }
  const bool counted_wrong = edit.expect ? found.size() != static_cast<size_t>(*edit.expect) : found.empty();
  if (counted_wrong) {
    std::string message =
        fmt::format("{}: expected {} {}, found {}", EditLabel(rule, index),
                    edit.expect ? fmt::format("{}", *edit.expect) : "at least 1", Selector(edit), found.size());
    if (!found.empty()) message += fmt::format(" ({})", ListSome(found, 20));
    if (!near_misses.empty()) message += fmt::format("; not selected: {}", ListSome(near_misses));
    if (found.empty() && !scope_lists.empty()) message += fmt::format("; scopes in {}", ListSome(scope_lists, 3));
    return Error{message, {}};
  }
  out.notes.push_back(fmt::format("edit {} ({}): {} place{}, {} already admit{} {}", index + 1, edit.KindName(),
                                  found.size(), found.size() == 1 ? "" : "s", satisfied, satisfied == 1 ? "s" : "",
                                  fmt::join(out.targets, ", ")));
  return Ok{};
}

// Sorted, non-overlapping edits with hashes; the new bytes go into the overlay for later rules.
Result<FilePlan> FinishFile(const rules::Rule& rule, const std::string& path, FileWork& work,
                            const std::filesystem::path& root, Overlay& overlay) {
  std::sort(work.edits.begin(), work.edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < work.edits.size(); ++i) {
    const TextEdit &a = work.edits[i - 1], &b = work.edits[i];
    if (b.begin < a.end) {
      return Error{fmt::format("rule '{}': edits {} and {} overlap in {}:{}:{}", rule.id, a.edit_index + 1,
                               b.edit_index + 1, path, b.line, b.column),
                   {}};
    }
  }
  FilePlan file{path, env::Sha256Hex(work.original), "", work.edits};
  const std::string after = ApplyEdits(work.original, file);
  file.sha256_after = env::Sha256Hex(after);
  Result<std::filesystem::path> absolute = env::ResolveInside(root, path);
  if (!absolute) return absolute.error();
  overlay[absolute->string()] = after;
  return file;
}

Result<RulePlan> PlanRule(const rules::Rule& rule, const env::Environment& env, const PlanOptions& options,
                          Overlay& overlay) {
  Result<const env::Distribution*> dist = CheckDistribution(rule, env, options);
  if (!dist) return dist.error();
  RulePlan out;
  out.rule_id = rule.id;
  out.rule_sha256 = rules::Sha256Of(rule);
  out.rule_path = rule.path.string();
  out.distribution = rule.distribution;
  out.version = *dist ? (*dist)->version : "";
  const std::filesystem::path root = *dist ? (*dist)->root : env.site_packages;
  out.root = root.string();
  out.targets = rule.target_names;
  out.caches = rule.caches;
  if (!*dist) out.notes.push_back(fmt::format("no dist-info for '{}': version not checked", rule.distribution));
  std::map<std::string, FileWork> files;  // sorted by path: plans are deterministic
  for (size_t i = 0; i < rule.edits.size(); ++i) {
    if (Status ok = PlanEdit(rule, i, root, options, overlay, files, out); !ok) return ok.error();
  }
  for (auto& [path, work] : files) {
    Result<FilePlan> file = FinishFile(rule, path, work, root, overlay);
    if (!file) return file.error();
    out.files.push_back(std::move(*file));
  }
  out.satisfied = out.files.empty();
  return out;
}

}  // namespace

Result<EditPlan> PlanRules(const std::vector<rules::Rule>& rules, const env::Environment& env,
                           const PlanOptions& options) {
  EditPlan plan;
  plan.root = env.site_packages.string();
  Overlay overlay;
  for (const rules::Rule& rule : rules) {
    Result<RulePlan> planned = PlanRule(rule, env, options, overlay);
    if (!planned) return planned.error();
    spdlog::info("rule '{}': {} file(s) to change", rule.id, planned->files.size());
    plan.rules.push_back(std::move(*planned));
  }
  return plan;
}

}  // namespace archpatch::plan
