#include "apply/assess.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "hazard/branches.h"
#include "hazard/check.h"
#include "hazard/classify.h"
#include "report/finding.h"
#include "hazard/source.h"
#include "scan/scan.h"

namespace archpatch::apply {
namespace {

namespace fs = std::filesystem;
using namespace hazard;  // the analysis of bytes and spans: branches, classification, kernels

constexpr size_t kMaxIndexedFiles = 50000;  // a package bigger than this is not searched for sources

std::vector<arch::Arch> Targets(const plan::RulePlan& rule) {
  std::vector<arch::Arch> out;
  for (const std::string& t : rule.targets) {
    if (Result<arch::Arch> a = arch::ParseArch(t)) out.push_back(*a);
  }
  return out;
}

// The CUDA/C++ files of one package folder, by file name (for sources a Python file names).
class SourceIndex {
 public:
  SourceIndex(const fs::path& root, const std::string& package) : root_(root) {
    std::error_code ec;
    fs::recursive_directory_iterator it(root / package, fs::directory_options::skip_permission_denied, ec), end;
    for (size_t n = 0; !ec && it != end && n < kMaxIndexedFiles; it.increment(ec), ++n) {
      if (!it->is_regular_file(ec) || scan::KindOf(it->path().string()) != scan::FileKind::kCuda) continue;
      by_name_[it->path().filename().string()].push_back(it->path().lexically_relative(root).generic_string());
    }
  }

  // Paths (relative to the root) whose end matches `name` ("comm/x.cuh" matches "pkg/inc/comm/x.cuh").
  std::vector<std::string> Find(const std::string& name) const {
    std::vector<std::string> out;
    auto it = by_name_.find(fs::path(name).filename().string());
    if (it == by_name_.end()) return out;
    for (const std::string& p : it->second) {
      if (p == name || (p.size() > name.size() && p.compare(p.size() - name.size(), name.size(), name) == 0 &&
                        p[p.size() - name.size() - 1] == '/')) {
        out.push_back(p);
      }
    }
    return out;
  }

 private:
  fs::path root_;
  std::map<std::string, std::vector<std::string>> by_name_;
};

std::vector<std::string> Matches(const std::string& text, const std::regex& re) {
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) out.push_back((*it)[1].str());
  return out;
}

int Indent(const std::string& line) {
  const size_t i = line.find_first_not_of(" \t");
  return i == std::string::npos ? -1 : static_cast<int>(i);
}

// The text of the innermost `def` around 1-based `line` of Python source (the whole file when
// no function holds it): a widened gate makes reachable what its own builder compiles, not what
// the other builders of the same file do (FlashInfer keeps MNNVL and allreduce side by side).
std::string EnclosingDef(const std::string& py, int line) {
  std::vector<std::string> lines;
  std::istringstream in(py);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  if (line < 1 || line > static_cast<int>(lines.size())) return py;
  static const std::regex kDef(R"(^\s*(async\s+)?def\s)");
  int indent = Indent(lines[line - 1]);
  for (int i = line - 1; i >= 0; --i) {
    const int here = Indent(lines[i]);
    if (here < 0 || here >= indent) continue;
    indent = here;
    if (!std::regex_search(lines[i], kDef)) continue;
    std::string text = lines[i] + "\n";
    for (size_t j = i + 1; j < lines.size() && (Indent(lines[j]) < 0 || Indent(lines[j]) > here); ++j) {
      text += lines[j] + "\n";
    }
    return text;
  }
  return py;
}

// The CUDA files a Python JIT file builds: the sources it names and, transitively, the quoted
// #includes of those found in the same package.
std::vector<std::string> ReachableSources(Snapshot& snapshot, const fs::path& root, const std::string& py_path,
                                          const std::string& py_text) {
  static const std::regex kNamed(R"re(["']([^"'\s]+\.(?:cu|cuh|cpp|cc|h|hpp|inl))["'])re");
  static const std::regex kInclude(R"re(#\s*include\s*"([^"]+)")re");
  const std::string package = fs::path(py_path).begin()->string();
  SourceIndex index(root, package);
  std::vector<std::string> queue, seen;
  for (const std::string& n : Matches(py_text, kNamed)) {
    for (const std::string& p : index.Find(n)) queue.push_back(p);
  }
  while (!queue.empty() && seen.size() < 500) {
    std::string p = queue.back();
    queue.pop_back();
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    if (Result<std::string> text = snapshot.Read(root / p)) {
      for (const std::string& inc : Matches(*text, kInclude)) {
        for (const std::string& q : index.Find(inc)) queue.push_back(q);
      }
    }
  }
  std::sort(seen.begin(), seen.end());
  return seen;
}

Finding GateFinding(const plan::RulePlan& rule, const plan::TextEdit& e, const std::string& path,
                    const Classification& c, const arch::Arch& target) {
  Finding f;
  f.file = path;
  f.line = e.line;
  f.column = e.column;
  f.kind = c.safety == Safety::kUnsafe ? gate::Kind::kWidenUnsafe : gate::Kind::kWidenUnknown;
  f.severity = c.safety == Safety::kUnsafe ? Severity::kError : Severity::kWarning;
  f.text = e.before;
  f.span = {e.begin, e.end};
  f.summary = WidenSentence(c, target);
  f.rule = rule.rule_id;
  f.widen = WidenOf(c, target);
  return f;
}

void AssessCudaEdit(const plan::RulePlan& rule, const plan::FilePlan& file, const plan::TextEdit& e,
                    const std::string& original, const std::string& after, const ParsedSource& parse,
                    const std::vector<Branch>& branches, const cuda::MacroEnv& env, PlanAssessment& out) {
  EditAssessment a{rule.rule_id, file.path, e.line, e.column, e.kind, e.before, e.after, {}, "", ""};
  a.radius = ArchNames(FileBlastRadius(file.path, original, after, env, arch::AllArches(), e.begin, e.end));
  const int k = BranchOfCondition(branches, e.begin, e.end);
  if (k >= 0) {
    // unsafe outranks unknown outranks safe: the verdict of the edit is its worst target's.
    auto rank = [](Safety s) { return s == Safety::kUnsafe ? 2 : s == Safety::kUnknown ? 1 : 0; };
    Safety worst = Safety::kSafe;
    for (const arch::Arch& target : Targets(rule)) {
      Classification c =
          ClassifyBlock(parse, original, branches[k].body_begin, branches[k].body_end, target, DefaultFeatures());
      if (a.reason.empty() || rank(c.safety) > rank(worst)) a.reason = WidenSentence(c, target);
      if (rank(c.safety) > rank(worst)) worst = c.safety;
      if (c.safety != Safety::kSafe) out.findings.push_back(GateFinding(rule, e, file.path, c, target));
    }
    a.widen = SafetyName(worst);
  } else {
    out.notes.push_back(
        fmt::format("{}:{}: the edit is not inside an #if condition; its block was not checked", file.path, e.line));
  }
  out.edits.push_back(std::move(a));
}

// Assesses each edit, and records the file's blast radius as the manifest keeps it: the whole
// file's arches, and each edit's (the same figure the edit's assessment shows).
void AssessCudaFile(const StagedFile& staged, const cuda::MacroEnv& env, PlanAssessment& out) {
  const plan::RulePlan& rule = *staged.rule;
  const plan::FilePlan& file = *staged.file;
  const std::string& original = staged.before;
  const size_t first = out.edits.size();
  Result<ParsedSource> parse = Parse(file.path, original);
  if (!parse) {
    out.notes.push_back(parse.error().str());
  } else {
    const std::vector<Branch> branches = FindBranches(original, parse->tokens, {}, env);
    for (const plan::TextEdit& e : file.edits) {
      AssessCudaEdit(rule, file, e, original, staged.after, *parse, branches, env, out);
    }
  }
  nlohmann::json radius;
  radius["arches"] = ArchNames(FileBlastRadius(file.path, original, staged.after, env));
  radius["edits"] = nlohmann::json::array();
  for (size_t i = 0; i < file.edits.size(); ++i) {
    const plan::TextEdit& e = file.edits[i];
    radius["edits"].push_back({{"line", e.line},
                               {"arches", parse ? out.edits[first + i].radius
                                                : ArchNames(FileBlastRadius(file.path, original, staged.after, env,
                                                                            arch::AllArches(), e.begin, e.end))}});
  }
  out.radius.push_back({rule.rule_id, file.path, std::move(radius)});
}

// Kernels the widened Python gate makes reachable on a target that still compile empty there.
void AssessPythonFile(const StagedPlan& staged_plan, Snapshot& snapshot, const StagedFile& staged,
                      const cuda::MacroEnv& env, std::set<std::string>& reported, PlanAssessment& out) {
  const plan::RulePlan& rule = *staged.rule;
  const plan::FilePlan& file = *staged.file;
  const fs::path root = rule.root;
  std::string scopes;
  for (const plan::TextEdit& e : file.edits) scopes += EnclosingDef(staged.before, e.line);
  const std::vector<std::string> sources = ReachableSources(snapshot, root, file.path, scopes);
  if (sources.empty()) {
    out.notes.push_back(
        fmt::format("{}: names no CUDA source found in the package; kernels it builds were not "
                    "checked for empty bodies",
                    file.path));
    return;
  }
  for (const arch::Arch& target : Targets(rule)) {
    for (const std::string& src : sources) {
      Result<std::string> text = staged_plan.After(snapshot, root / src);
      if (!text || text->find("__global__") == std::string::npos) continue;
      CheckOptions o;
      o.target = target;
      o.env = env;
      Result<FileHazards> h = CheckFile(src, *text, o);
      if (!h) continue;
      for (Finding f : h->empty_kernels) {
        if (!reported.insert(fmt::format("{}:{}:{}", src, f.line, target.name())).second) continue;
        f.rule = rule.rule_id;
        f.reached_through = file.path;
        out.findings.push_back(std::move(f));
      }
    }
  }
}

std::string ShortArchList(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  if (names.size() <= 8) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{} and {} more", fmt::join(std::vector<std::string>(names.begin(), names.begin() + 8), ", "),
                     names.size() - 8);
}

}  // namespace

bool PlanAssessment::Refuses() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::kError; });
}

nlohmann::json PlanAssessment::RadiusOf(const plan::RulePlan& rule, const plan::FilePlan& file) const {
  for (const FileRadius& r : radius) {
    if (r.rule == rule.rule_id && r.file == file.path) return r.json;
  }
  return nullptr;
}

PlanAssessment AssessPlan(const StagedPlan& staged, Snapshot& snapshot, const cuda::MacroEnv& env) {
  PlanAssessment out;
  std::set<std::string> reported;
  for (const StagedFile& file : staged.files) {
    switch (scan::KindOf(file.file->path)) {
      case scan::FileKind::kCuda: AssessCudaFile(file, env, out); break;
      case scan::FileKind::kPython: AssessPythonFile(staged, snapshot, file, env, reported, out); break;
      case scan::FileKind::kOther: break;
    }
  }
  SortFindings(out.findings);
  return out;
}

nlohmann::ordered_json ToJson(const PlanAssessment& a) {
  nlohmann::ordered_json j;
  j["refuses"] = a.Refuses();
  nlohmann::ordered_json edits = nlohmann::ordered_json::array();
  for (const EditAssessment& e : a.edits) {
    nlohmann::ordered_json x;
    x["rule"] = e.rule;
    x["file"] = e.file;
    x["line"] = e.line;
    x["column"] = e.column;
    x["kind"] = e.kind;
    x["before"] = e.before;
    x["after"] = e.after;
    x["blast_radius"] = e.radius;
    x["widen"] = e.widen;
    x["reason"] = e.reason;
    edits.push_back(x);
  }
  j["edits"] = edits;
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const Finding& f : a.findings) findings.push_back(archpatch::ToJson(f));
  j["hazards"] = findings;
  j["notes"] = a.notes;
  return j;
}

std::vector<std::string> DescribeAssessment(const PlanAssessment& a) {
  std::vector<std::string> out;
  for (const EditAssessment& e : a.edits) {
    out.push_back(fmt::format("{}:{}: blast radius: {} (arches whose compiled code this edit changes)", e.file, e.line,
                              ShortArchList(e.radius)));
    if (!e.reason.empty()) out.push_back(fmt::format("{}:{}: {}", e.file, e.line, e.reason));
  }
  for (const Finding& f : a.findings) {
    if (f.kind == gate::Kind::kEmptyKernel) {
      out.push_back(fmt::format("{}:{}:{}: {}: kernel '{}' is reached through {}:", f.file, f.line, f.column,
                                SeverityName(f.severity), f.text, f.reached_through.empty() ? "?" : f.reached_through));
      out.push_back("  " + f.summary + ".");
      for (const std::string& line : ExplainLines(f)) out.push_back("  " + line);
    } else if (f.kind == gate::Kind::kWidenUnsafe) {
      out.push_back(fmt::format("{}:{}:{}: {}: {}", f.file, f.line, f.column, SeverityName(f.severity), f.summary));
    }
  }
  for (const std::string& n : a.notes) out.push_back("note: " + n);
  return out;
}

bool PlanProof::ok() const {
  return std::all_of(files.begin(), files.end(), [](const FileProof& f) { return f.ok; });
}

Result<PlanProof> ProvePlan(const StagedPlan& staged, const ProofOptions& options) {
  PlanProof out;
  for (const StagedFile& s : staged.files) {
    const plan::FilePlan& file = *s.file;
    if (scan::KindOf(file.path) != scan::FileKind::kCuda) {
      out.skipped.push_back(fmt::format("{}: not a CUDA/C++ file; the compiler proof covers CUDA edits", file.path));
      continue;
    }
    std::vector<ByteSpan> edited;
    for (const plan::TextEdit& e : file.edits) edited.push_back({e.begin, e.end});
    Result<FileProof> proof = ProveEdit(file.path, s.before, s.after, edited, Targets(*s.rule), options);
    if (!proof) return proof.error();
    out.files.push_back(std::move(*proof));
  }
  return out;
}

nlohmann::ordered_json ToJson(const PlanProof& proof) {
  nlohmann::ordered_json j;
  j["ok"] = proof.ok();
  j["files"] = nlohmann::ordered_json::array();
  for (const FileProof& f : proof.files) {  // the proof of one file (hazard::ProveEdit), docs/hazards.md
    j["files"].push_back({{"file", f.path},
                          {"engine", f.engine},
                          {"ok", f.ok},
                          {"changed", f.changed},
                          {"predicted", f.predicted},
                          {"reached", f.reached},
                          {"problems", f.problems},
                          {"notes", f.notes}});
  }
  j["skipped"] = proof.skipped;
  return j;
}

std::vector<std::string> DescribeProof(const PlanProof& proof) {
  std::vector<std::string> out;
  for (const FileProof& f : proof.files) {
    if (f.ok) {
      out.push_back(
          fmt::format("proof: {}: proven with {}: the edit turns the block on for {}, and changes the "
                      "compiled code of {} only (as predicted)",
                      f.path, f.engine, ShortArchList(f.reached), ShortArchList(f.changed)));
    } else {
      out.push_back(fmt::format("proof: {}: FAILED with {}:", f.path, f.engine));
      for (const std::string& problem : f.problems) out.push_back("  " + problem);
    }
    for (const std::string& n : f.notes) out.push_back("  note: " + n);
  }
  for (const std::string& s : proof.skipped) out.push_back("proof: " + s);
  return out;
}

}  // namespace archpatch::apply
