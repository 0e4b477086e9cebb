#include "scan/prebuilt_link.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "gate/prebuilt.h"
#include "python/syntax.h"
#include "python/tokenizer.h"
#include "util/identifier.h"
#include "util/input_file.h"
#include "util/parallel.h"

namespace archpatch::scan {
namespace {

using LoaderSet = std::set<size_t>;  // indices into ArtifactIndex::loaders

bool PathEndsWith(std::string_view path, std::string_view tail) {
  if (path == tail) return true;
  return path.size() > tail.size() && path.ends_with(tail) && path[path.size() - tail.size() - 1] == '/';
}

bool SameFile(std::string_view a, std::string_view b) { return PathEndsWith(a, b) || PathEndsWith(b, a); }

// One scope inside the other (or the same), at '.' boundaries.
bool Nested(std::string_view a, std::string_view b) {
  if (a.size() < b.size()) std::swap(a, b);
  return a == b || (a.starts_with(b) && a[b.size()] == '.');
}

std::string LastPart(const std::string& scope) {
  const size_t dot = scope.rfind('.');
  return scope.substr(dot == std::string::npos ? 0 : dot + 1);
}

// One logical line of a module: where it starts, its depth and scope, the names it calls
// (`f(`, `self.f(` -> "f"; `mod.f(` -> ".f"), and whether it opens an if/elif/else/while arm.
struct CallLine {
  size_t begin = 0, end = 0;  // bytes
  int depth = 0;
  const std::string* scope = nullptr;  // in ModuleCalls::scopes: a module's lines share a few
  std::vector<std::string> calls;      // as found (ModuleCalls::by_scope has them once each)
  bool opens_arm = false;
};

}  // namespace

struct ModuleCalls {
  std::deque<std::string> scopes;  // the lines' scopes, each once (a deque keeps them in place)
  std::vector<CallLine> lines;
  std::map<std::string, std::set<std::string>> by_scope;  // every name a scope calls
  std::map<std::string, LoaderSet> reached;               // per scope: the loaders it reaches
  std::map<std::string, std::vector<std::string>> local;  // a function's name -> its scopes here
};

namespace {

ModuleCalls ReadCalls(const python::TokenStream& ts, const std::vector<python::LogicalLine>& lines) {
  ModuleCalls out;
  // The lines of a scope share its names (python::Scope): each scope's name is made once.
  std::map<const std::vector<std::string>*, const std::string*> names;
  for (const python::LogicalLine& line : lines) {
    if (line.scope.empty() || line.first >= line.last) continue;
    auto name = names.find(&line.scope.names());
    if (name == names.end()) {
      name = names.emplace(&line.scope.names(), &out.scopes.emplace_back(python::ScopeName(line.scope))).first;
    }
    CallLine c{ts.tokens[line.first].begin, ts.tokens[line.last - 1].end, line.depth, name->second, {}, false};
    for (std::string_view kw : {"if", "elif", "else", "while"}) c.opens_arm = c.opens_arm || ts.Is(line.first, kw);
    for (size_t i = line.first; i + 1 < line.last; ++i) {
      if (!ts.IsName(i) || !ts.Is(i + 1, "(")) continue;
      // `x.f(` on another object is marked ".f": it may be a loader, never this module's f.
      const bool other_object =
          i > line.first + 1 && ts.Is(i - 1, ".") && !ts.Is(i - 2, "self") && !ts.Is(i - 2, "cls");
      c.calls.push_back(std::string(other_object ? "." : "") + std::string(ts.Text(i)));
    }
    out.by_scope[*c.scope].insert(c.calls.begin(), c.calls.end());
    out.lines.push_back(std::move(c));
  }
  for (const auto& [scope, names] : out.by_scope) out.local[LastPart(scope)].push_back(scope);
  return out;
}

// The same from the module's bytes, tokenized here.
ModuleCalls ReadCalls(const std::string& file, std::string_view source) {
  Result<std::vector<python::Token>> tokens = python::Tokenize(file, source);
  if (!tokens) return {};
  const python::TokenStream ts = python::MakeStream(source, std::move(*tokens));
  return ReadCalls(ts, python::SplitLines(ts));
}

// The loaders `names` reach: loaders of that name anywhere, and the functions of this module of
// that name (through what they reach).
LoaderSet Reach(const std::set<std::string>& names, const ModuleCalls& m, const ArtifactIndex& index) {
  LoaderSet out;
  for (const std::string& called : names) {
    const bool other_object = called.starts_with('.');
    const std::string name = other_object ? called.substr(1) : called;
    if (auto it = index.loaders_by_name.find(name); it != index.loaders_by_name.end()) {
      out.insert(it->second.begin(), it->second.end());
    }
    if (other_object) continue;
    auto local = m.local.find(name);
    if (local == m.local.end()) continue;
    for (const std::string& scope : local->second) {
      if (auto it = m.reached.find(scope); it != m.reached.end()) out.insert(it->second.begin(), it->second.end());
    }
  }
  return out;
}

// Per scope of the module: the loaders it reaches (named in it, or called, or called through
// functions of the module, at most kMaxCallDepth deep).
void ResolveReached(const std::string& file, ModuleCalls& m, const ArtifactIndex& index) {
  for (size_t l = 0; l < index.loaders.size(); ++l) {
    if (SameFile(index.loaders[l].file, file)) m.reached[index.loaders[l].scope].insert(l);
  }
  for (int round = 0; round <= kMaxCallDepth; ++round) {
    bool grew = false;
    for (const auto& [scope, names] : m.by_scope) {
      const LoaderSet more = Reach(names, m, index);
      LoaderSet& into = m.reached[scope];
      const size_t before = into.size();
      into.insert(more.begin(), more.end());
      grew = grew || into.size() != before;
    }
    if (!grew) break;
  }
}

// What a Python gate's module loads. A gate whose true branch does the work (direction
// "enables") reaches what its own arm calls, not what the function's other arms call
// (`if backend == "cutlass": ... is_sm100a_supported ...` beside `elif backend == "trtllm":`);
// any other gate reaches what its function and the functions nested in it call.
LoaderSet GateReaches(const Finding& f, const ModuleCalls& m, const ArtifactIndex& index) {
  LoaderSet out;
  if (f.direction == gate::Direction::kEnables) {
    auto at = std::find_if(m.lines.begin(), m.lines.end(),
                           [&](const CallLine& c) { return c.begin <= f.span.begin && f.span.begin < c.end; });
    if (at != m.lines.end() && at->opens_arm) {
      std::set<std::string> calls(at->calls.begin(), at->calls.end());
      for (auto it = at + 1; it != m.lines.end() && it->depth > at->depth; ++it) {
        calls.insert(it->calls.begin(), it->calls.end());
      }
      return Reach(calls, m, index);
    }
  }
  for (const auto& [scope, loaders] : m.reached) {
    if (Nested(scope, f.scope)) out.insert(loaders.begin(), loaders.end());
  }
  return out;
}

void AddLinks(Finding& f, const LoaderSet& loaders, const ArtifactIndex& index, const arch::Arch& target) {
  for (size_t l : loaders) {
    for (size_t g : index.loaders[l].groups) {
      const ArtifactGroup& group = index.groups[g];
      const bool known = std::any_of(f.prebuilt.begin(), f.prebuilt.end(), [&](const gate::PrebuiltArtifacts& p) {
        return p.group == group.name && p.path == group.path;
      });
      if (!known) f.prebuilt.push_back(ToPrebuilt(group, index.loaders[l].scope, target));
    }
  }
}

LoaderSet CompilingLoaders(const std::string& file, const ArtifactIndex& index) {
  LoaderSet out;
  for (size_t l = 0; l < index.loaders.size(); ++l) {
    for (const std::string& source : index.loaders[l].sources) {
      if (PathEndsWith(file, source)) out.insert(l);
    }
  }
  return out;
}

// Whether the module may reach a loader: it defines one, or a name of one is an identifier of it
// (a call reaches a loader only by its whole name). One pass over the module: a search for each
// loader's name was a quarter of the links' instructions on FlashInfer 0.6.16 (77 M -> 67 M).
bool NamesALoader(std::string_view source, const std::string& file, const ArtifactIndex& index) {
  for (const ArtifactLoader& l : index.loaders) {
    if (SameFile(l.file, file)) return true;
  }
  std::set<std::string, std::less<>> names;
  for (const auto& [name, loaders] : index.loaders_by_name) names.insert(name);
  return MentionsAnyName(source, names);
}

// The module's calls, resolved: from `kept` when there, else read (from `syntax` when given) and
// kept there.
std::shared_ptr<const ModuleCalls> CallsOf(const std::string& file, std::string_view source, const ArtifactIndex& index,
                                           const python::ModuleSyntax* syntax, LinkedCalls* kept) {
  if (kept) {
    if (std::shared_ptr<const ModuleCalls> known = kept->Find(file, index)) return known;
  }
  auto calls = std::make_shared<ModuleCalls>();
  if (NamesALoader(source, file, index)) {
    *calls = syntax ? ReadCalls(syntax->ts, syntax->lines) : ReadCalls(file, source);
    ResolveReached(file, *calls, index);
  }
  if (kept) kept->Keep(file, calls);
  return calls;
}

void LinkOneFile(const std::vector<Finding*>& findings, const std::string& file, std::string_view source,
                 const ArtifactIndex& index, const arch::Arch& target, const python::ModuleSyntax* syntax,
                 LinkedCalls* kept) {
  std::shared_ptr<const ModuleCalls> calls;
  for (Finding* f : findings) {
    f->prebuilt_read = true;
    if (f->kind == gate::Kind::kCppRuntimeGate) {
      AddLinks(*f, CompilingLoaders(f->file, index), index, target);
      continue;
    }
    if (f->kind != gate::Kind::kPythonGate || f->scope.empty()) continue;
    if (!calls) calls = CallsOf(file, source, index, syntax, kept);
    AddLinks(*f, GateReaches(*f, *calls, index), index, target);
  }
}

}  // namespace

bool LinkedCalls::Has(const std::string& file) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return calls_.count(file) > 0;
}

// Resolving reads the index alone: a module whose calls name no loader reaches none, as when
// CallsOf reads no calls for it (NamesALoader).
std::shared_ptr<const ModuleCalls> LinkedCalls::Find(const std::string& file, const ArtifactIndex& index) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = calls_.find(file);
  if (it == calls_.end()) return nullptr;
  Entry& entry = it->second;
  if (!entry.resolved) {
    ResolveReached(file, *entry.unresolved, index);
    entry.resolved = std::move(entry.unresolved);
  }
  return entry.resolved;
}

void LinkedCalls::Keep(const std::string& file, std::shared_ptr<const ModuleCalls> calls) {
  std::lock_guard<std::mutex> lock(mutex_);
  calls_.emplace(file, Entry{std::move(calls), nullptr});
}

void LinkedCalls::KeepUnresolved(const std::string& file, const python::ModuleSyntax& syntax) {
  auto calls = std::make_shared<ModuleCalls>(ReadCalls(syntax.ts, syntax.lines));
  std::lock_guard<std::mutex> lock(mutex_);
  calls_.emplace(file, Entry{nullptr, std::move(calls)});
}

void LinkFilePrebuilt(std::vector<Finding>& findings, const std::string& file, std::string_view source,
                      const ArtifactIndex& index, const arch::Arch& target, const python::ModuleSyntax* syntax,
                      LinkedCalls* kept) {
  if (index.empty()) return;
  std::vector<Finding*> mine;
  for (Finding& f : findings) {
    if (f.file == file) mine.push_back(&f);
  }
  LinkOneFile(mine, file, source, index, target, syntax, kept);
}

std::vector<gate::PrebuiltArtifacts> LinkPlace(const std::string& file, std::string_view source, size_t offset,
                                               const ArtifactIndex& index, const arch::Arch& target) {
  if (index.empty()) return {};
  Finding place;
  place.file = file;
  if (file.ends_with(".py")) {
    place.kind = gate::Kind::kPythonGate;
    const ModuleCalls calls = ReadCalls(file, source);
    for (const CallLine& line : calls.lines) {
      if (line.begin <= offset && offset < line.end) place.scope = *line.scope;
    }
  } else {
    place.kind = gate::Kind::kCppRuntimeGate;
  }
  LinkOneFile({&place}, file, source, index, target, nullptr, nullptr);
  return place.prebuilt;
}

void LinkPrebuilt(std::vector<Finding>& findings, const ArtifactIndex& index, const arch::Arch& target, int jobs,
                  LinkedCalls* kept) {
  if (index.empty()) return;
  std::map<std::string, std::vector<Finding*>> by_file;
  for (Finding& f : findings) {
    const bool linked = f.kind == gate::Kind::kPythonGate || f.kind == gate::Kind::kCppRuntimeGate;
    if (linked && !f.prebuilt_read) by_file[f.file].push_back(&f);  // not linked while its module was scanned
  }
  // Files on the workers: each links only its own findings.
  std::vector<const std::pair<const std::string, std::vector<Finding*>>*> files;
  for (const auto& entry : by_file) files.push_back(&entry);
  ParallelFor(files.size(), jobs, [&](size_t k) {
    const auto& [file, mine] = *files[k];
    const bool python = std::any_of(mine.begin(), mine.end(), [](const Finding* f) { return f->python(); });
    const bool read = python && !(kept && kept->Has(file));  // its calls read before: not read again
    Result<std::string> source = read ? ReadInputFile(file, kMaxSourceBytes) : std::string();
    LinkOneFile(mine, file, source ? *source : std::string(), index, target, nullptr, kept);
  });
}

void MarkPrebuiltGroups(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                        const arch::Arch& target) {
  for (gate::Group& g : groups) {
    std::vector<size_t> members = {g.root};
    members.insert(members.end(), g.places.begin(), g.places.end());
    for (size_t i : members) {
      for (const gate::PrebuiltArtifacts& p : findings[i].prebuilt) {
        if (std::find(g.prebuilt.begin(), g.prebuilt.end(), p) == g.prebuilt.end()) g.prebuilt.push_back(p);
      }
    }
    if (g.prebuilt.empty()) continue;
    const Tri runs = gate::PrebuiltRuns(g.prebuilt);
    if (runs == Tri::kTrue) continue;
    if (runs == Tri::kFalse) {
      g.widen = gate::WidenSafety::kUnsafe;
    } else if (g.widen == gate::WidenSafety::kSafe) {
      g.widen = gate::WidenSafety::kUnknown;
    }
    g.widen_reasons.insert(g.widen_reasons.begin(), gate::PrebuiltSentence(g.prebuilt, target.name()));
  }
}

void LinkAndMarkPrebuilt(std::vector<Finding>& findings, std::vector<gate::Group>& groups,
                         const std::vector<std::string>& paths, const arch::Arch& target, int jobs) {
  LinkAndMarkPrebuilt(findings, groups, IndexArtifacts(paths), target, jobs);
}

void LinkAndMarkPrebuilt(std::vector<Finding>& findings, std::vector<gate::Group>& groups, const ArtifactIndex& index,
                         const arch::Arch& target, int jobs) {
  if (index.empty()) return;
  LinkPrebuilt(findings, index, target, jobs);
  MarkPrebuiltGroups(groups, findings, target);
}

}  // namespace archpatch::scan
