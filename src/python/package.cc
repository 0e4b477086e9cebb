#include "python/package.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "python/recognizer.h"
#include "python/verdict.h"

namespace archpatch::python {
namespace {

constexpr int kMaxDepth = 8;  // import hops and nested predicate calls

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = text.find(sep); at != std::string::npos; at = text.find(sep, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// The dotted components a module's path ends with: a/b/pkg/utils.py -> [a, b, pkg, utils].
std::vector<std::string> ModuleComponents(const std::string& file) {
  std::vector<std::string> parts = Split(file, '/');
  if (parts.empty()) return parts;
  std::string& last = parts.back();
  if (last.size() > 3 && last.ends_with(".py")) last.resize(last.size() - 3);
  if (last == "__init__") parts.pop_back();
  return parts;
}

std::string Dirname(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? "" : file.substr(0, slash);
}

Tri IfThenElse(Tri c, Tri then, Tri otherwise) {
  if (c == Tri::kTrue) return then;
  if (c == Tri::kFalse) return otherwise;
  return then == otherwise ? then : Tri::kUnknown;
}

bool AnyKnown(const std::vector<Tri>& holds) {
  return std::any_of(holds.begin(), holds.end(), [](Tri t) { return t != Tri::kUnknown; });
}

// How a literal argument reads against the capability a parameter test compares.
std::optional<Operand> ArgumentOperand(const Literal& lit) {
  const Literal* item = &lit;
  if (lit.IsCollection()) {
    auto known = std::find_if(lit.items.begin(), lit.items.end(),
                              [](const Literal& l) { return l.kind != LiteralKind::kOpaque; });
    if (known == lit.items.end()) return std::nullopt;
    item = &*known;
  }
  if (item->kind == LiteralKind::kString && arch::ReadArchName(item->text)) return Operand::kArchName;
  if (item->kind == LiteralKind::kInt) return item->number >= 30 ? Operand::kComputeCapability : Operand::kMajor;
  if (IsPair(*item)) return Operand::kCapability;
  return std::nullopt;
}

}  // namespace

PackageModel::PackageModel(std::vector<ModuleSummary> modules, const std::vector<arch::Arch>& arches)
    : modules_(std::move(modules)), arches_(arches) {
  for (size_t m = 0; m < modules_.size(); ++m) {
    by_path_[modules_[m].file] = m;
    std::vector<std::string> parts = ModuleComponents(modules_[m].file);
    if (!parts.empty()) by_stem_[parts.back()].push_back(m);
  }
}

size_t PackageModel::predicate_count() const {
  size_t n = 0;
  for (const ModuleSummary& m : modules_) n += m.predicates.size();
  return n;
}

// A relative import resolves by path; an absolute one by the longest match of its dotted name
// against the ends of the scanned paths (the tree may be audited from any folder).
size_t PackageModel::FindModule(size_t from, int level, const std::string& dotted) const {
  std::vector<std::string> parts = dotted.empty() ? std::vector<std::string>{} : Split(dotted, '.');
  if (level > 0) {
    std::string dir = Dirname(modules_[from].file);
    for (int up = 1; up < level; ++up) dir = Dirname(dir);
    std::string base = dir;
    for (const std::string& p : parts) base += (base.empty() ? "" : "/") + p;
    for (const std::string& candidate : {base + ".py", base + (base.empty() ? "" : "/") + "__init__.py"}) {
      if (auto it = by_path_.find(candidate); it != by_path_.end()) return it->second;
    }
    return npos;
  }
  if (parts.empty()) return npos;
  auto stems = by_stem_.find(parts.back());
  if (stems == by_stem_.end()) return npos;
  size_t best = npos, best_match = 0, best_prefix = 0;
  const std::string& here = modules_[from].file;
  for (size_t m : stems->second) {
    std::vector<std::string> have = ModuleComponents(modules_[m].file);
    size_t match = 0;
    while (match < parts.size() && match < have.size() &&
           have[have.size() - 1 - match] == parts[parts.size() - 1 - match]) {
      ++match;
    }
    size_t prefix = 0;
    while (prefix < here.size() && prefix < modules_[m].file.size() && here[prefix] == modules_[m].file[prefix])
      ++prefix;
    if (match > best_match || (match == best_match && prefix > best_prefix))
      best = m, best_match = match, best_prefix = prefix;
  }
  // A single component matched (`utils` for `flashinfer.utils`) is enough only when unambiguous.
  if (best_match < std::min<size_t>(parts.size(), 2) && stems->second.size() > 1) return npos;
  return best;
}

PackageModel::DefRef PackageModel::ResolveName(size_t module, const std::string& name, int depth) const {
  if (module == npos || depth > kMaxDepth) return {};
  const ModuleSummary& m = modules_[module];
  for (size_t d = 0; d < m.predicates.size(); ++d) {
    if (m.predicates[d].name == name) return {module, d};
  }
  for (const ImportBinding& b : m.imports) {
    if (b.alias != name || b.name.empty()) continue;
    return ResolveName(FindModule(module, b.level, b.module), b.name, depth + 1);  // re-exports too
  }
  return {};
}

PackageModel::DefRef PackageModel::ResolveCallee(size_t module, const std::string& callee) const {
  std::vector<std::string> parts = Split(callee, '.');
  if (parts.size() == 1) return ResolveName(module, parts[0], 0);
  if (parts.size() == 2 && (parts[0] == "self" || parts[0] == "cls")) return ResolveName(module, parts[1], 0);
  for (const ImportBinding& b : modules_[module].imports) {
    if (b.alias != parts[0]) continue;
    std::string dotted = b.name.empty() ? b.module : (b.module.empty() ? b.name : b.module + "." + b.name);
    for (size_t k = 1; k + 1 < parts.size(); ++k) dotted += "." + parts[k];
    return ResolveName(FindModule(module, b.level, dotted), parts.back(), 1);
  }
  return {};
}

gate::Place PackageModel::ViaEntry(size_t module, const Place& place, const std::string& name) const {
  return {modules_[module].file, place.line, place.column, place.text, name, std::nullopt};
}

PackageModel::Value PackageModel::Evaluate(size_t module, const CondExpr& e, const std::vector<Literal>* args,
                                           int depth) {
  if (!e.bound_name.empty()) {
    CondExpr inner = e;
    inner.bound_name.clear();
    Value v = Evaluate(module, inner, args, depth);
    if (AnyKnown(v.holds)) v.via.insert(v.via.begin(), ViaEntry(module, e.bound_at, e.bound_name));
    return v;
  }
  switch (e.kind) {
    case CondExpr::Kind::kUnknown: return Uniform(Tri::kUnknown);
    case CondExpr::Kind::kConst: return Uniform(e.value);
    case CondExpr::Kind::kGate: {
      const GateTruth& g = modules_[module].gates[e.gate];
      Value v{g.holds, {}};
      v.via.push_back(ViaEntry(module, g.where, ""));
      return v;
    }
    case CondExpr::Kind::kNot: {
      Value v = Evaluate(module, e.kids[0], args, depth);
      for (Tri& t : v.holds) t = TriNot(t);
      return v;
    }
    case CondExpr::Kind::kAnd:
    case CondExpr::Kind::kOr: {
      const bool all = e.kind == CondExpr::Kind::kAnd;
      Value v = Uniform(all ? Tri::kTrue : Tri::kFalse);
      for (const CondExpr& kid : e.kids) {
        Value k = Evaluate(module, kid, args, depth);
        for (size_t a = 0; a < v.holds.size(); ++a)
          v.holds[a] = all ? TriAnd(v.holds[a], k.holds[a]) : TriOr(v.holds[a], k.holds[a]);
        if (AnyKnown(k.holds)) v.via.insert(v.via.end(), k.via.begin(), k.via.end());
      }
      return v;
    }
    case CondExpr::Kind::kParamTest: {
      if (!args || e.param < 0 || static_cast<size_t>(e.param) >= args->size()) return Uniform(Tri::kUnknown);
      const Literal& lit = (*args)[e.param];
      std::optional<Operand> operand = ArgumentOperand(lit);
      if (!operand) return Uniform(Tri::kUnknown);
      Value v = Uniform(Tri::kUnknown);
      for (size_t a = 0; a < arches_.size(); ++a) v.holds[a] = python::Evaluate(*operand, e.op, lit, arches_[a]);
      v.via.push_back(ViaEntry(module, e.where, ""));
      return v;
    }
    case CondExpr::Kind::kCall: {
      if (depth > kMaxDepth) return Uniform(Tri::kUnknown);
      const DefRef ref = ResolveCallee(module, e.callee);
      if (ref.module == npos) return Uniform(Tri::kUnknown);
      Value v = EvaluateDef(ref, e.args, depth + 1);
      if (AnyKnown(v.holds) && !v.via.empty()) {
        gate::Place named = ViaEntry(ref.module, modules_[ref.module].predicates[ref.def].where, e.callee + "()");
        named.false_on.emplace();
        for (size_t a = 0; a < arches_.size(); ++a) {
          if (v.holds[a] == Tri::kFalse) named.false_on->push_back(arches_[a].name());
        }
        v.via.insert(v.via.begin(), std::move(named));
      }
      return v;
    }
  }
  return Uniform(Tri::kUnknown);
}

PackageModel::Value PackageModel::EvaluateDef(DefRef ref, const std::vector<Literal>& args, int depth) {
  const auto key = std::make_pair(ref.module, ref.def);
  const bool cacheable = args.empty();
  if (cacheable) {
    if (auto hit = cache_.find(key); hit != cache_.end()) return hit->second;
  }
  if (in_progress_[key]) return Uniform(Tri::kUnknown);  // a cycle: f calls g calls f
  in_progress_[key] = true;
  const PredicateDef& def = modules_[ref.module].predicates[ref.def];
  Value v = Evaluate(ref.module, def.last, &args, depth);
  for (size_t k = def.early.size(); k-- > 0;) {
    Value c = Evaluate(ref.module, def.early[k].first, &args, depth);
    Value r = Evaluate(ref.module, def.early[k].second, &args, depth);
    for (size_t a = 0; a < v.holds.size(); ++a) v.holds[a] = IfThenElse(c.holds[a], r.holds[a], v.holds[a]);
    if (AnyKnown(c.holds)) v.via.insert(v.via.begin(), c.via.begin(), c.via.end());
  }
  in_progress_[key] = false;
  if (cacheable) cache_[key] = v;
  return v;
}

void PackageModel::DropBoundComparisons(std::vector<Finding>& findings, const std::vector<Finding>& resolved) {
  std::set<std::tuple<std::string, int, int>> bound;
  for (const Finding& f : resolved) {
    if (!f.python() || f.python()->shape != "bound-condition") continue;
    for (const gate::Place& place : f.via) {  // `not (is_sm90 or is_sm8x)`: every comparison it went through
      bound.emplace(place.file, place.line, place.column);
    }
  }
  std::erase_if(findings, [&](const Finding& f) {
    return f.kind == gate::Kind::kPythonGate && bound.count({f.file, f.line, f.column}) > 0;
  });
}

std::vector<Finding> PackageModel::BranchFindings() {
  std::vector<Finding> out;
  for (size_t m = 0; m < modules_.size(); ++m) {
    for (const CallSite& site : modules_[m].calls) {
      Value v = Evaluate(m, site.call, nullptr, 0);
      if (!AnyKnown(v.holds) || v.via.empty()) continue;
      Finding f;
      f.file = modules_[m].file;
      f.line = site.where.line;
      f.column = site.where.column;
      f.kind = gate::Kind::kPythonGate;
      f.text = site.where.text;
      f.scope = site.scope;
      f.span = site.span;
      std::vector<Tri> admitted;
      for (size_t a = 0; a < arches_.size(); ++a) {
        admitted.push_back(site.direction.TrueAdmits() ? v.holds[a] : TriNot(v.holds[a]));
        f.verdict.push_back({arches_[a].name(), admitted.back()});
      }
      const std::string refused = JoinedArchNames(arches_, admitted, Tri::kFalse);
      f.severity = refused.empty() ? Severity::kInfo : Severity::kWarning;
      std::string name;  // what the condition was resolved through: the named steps of `via`
      bool through_call = false;
      for (const gate::Place& step : v.via) {
        if (step.name.empty()) continue;
        name += (name.empty() ? "" : ", ") + step.name;
        through_call |= step.false_on.has_value();
      }
      if (name.empty()) continue;  // only local gates: their own findings say it
      f.summary = fmt::format("'{}' resolved through {}: {}", f.text, name,
                              refused.empty() ? "no audited arch is refused" : refused + " refused");
      gate::PythonForm form;
      form.shape = through_call ? "predicate-call" : "bound-condition";
      form.name = name;
      form.negated = site.direction.negated;
      f.form = std::move(form);
      f.direction = site.direction.branch;
      f.via = std::move(v.via);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace archpatch::python
