#include "scan/artifacts.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <span>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "arch/arch.h"
#include "binary/cubin.h"
#include "python/syntax.h"
#include "python/tokenizer.h"
#include "scan/file_bytes.h"
#include "scan/jit_cache.h"
#include "scan/walk.h"
#include "util/input_file.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDeclaringClass = "ArtifactPath";
constexpr std::string_view kArchListSuffix = "_ARCHS";

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool EndsWith(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

// A literal naming a C++/CUDA source a module compiles ("trtllm_fused_moe_kernel_launcher.cu").
bool NamesCompiledSource(std::string_view text) {
  for (std::string_view ext : {".cu", ".cpp", ".cc", ".cxx"}) {
    if (EndsWith(text, ext) && text.size() > ext.size()) return true;
  }
  return false;
}

// A string that names a binary to load: "cubin" anywhere in it (any case: `-DTLLM_GEN_GEMM_CUBIN_PATH=`,
// ".cubin"), or a shared object (f"{variant}.so").
bool NamesABinary(std::string_view token_text) {
  std::string lower(token_text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("cubin") != std::string::npos) return true;
  const std::string_view body = python::StringBody(token_text);
  return EndsWith(body, ".so");
}

std::string TrimSlashes(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  while (!text.empty() && text.front() == '/') text.erase(text.begin());
  return text;
}

std::vector<std::string> Components(std::string_view path) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t slash = std::min(path.find('/', at), path.size());
    if (slash > at) out.emplace_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

// `NAME [: annotation] = literal` in the declaring class's body: a group, or its arch list.
void ReadDeclaration(const python::TokenStream& ts, const python::LogicalLine& line, const std::string& file,
                     ModuleArtifacts& out, std::map<std::string, std::vector<std::string>>& arch_lists) {
  if (line.last - line.first < 3 || !ts.IsName(line.first)) return;
  size_t eq = line.first + 1;
  if (!ts.Is(eq, ":") && !ts.Is(eq, "=")) return;
  while (eq < line.last && !ts.Is(eq, "=")) ++eq;
  size_t next = 0;
  const std::optional<python::Literal> value = python::ParseLiteral(ts, eq + 1, line.last, next, nullptr);
  if (eq >= line.last || !value) return;
  const std::string name(ts.Text(line.first));
  if (value->kind == python::LiteralKind::kString) {
    ArtifactGroup group;
    group.name = name;
    group.path = TrimSlashes(value->text);
    group.declared = fmt::format("{}:{}", file, ts.tokens[line.first].line);
    out.groups.push_back(std::move(group));
  } else if (value->IsCollection() && EndsWith(name, kArchListSuffix)) {
    std::vector<std::string>& arches = arch_lists[name.substr(0, name.size() - kArchListSuffix.size())];
    for (const python::Literal& item : value->items) {
      if (item.kind == python::LiteralKind::kString) {
        for (std::string& a : ArchNamesIn(item.text)) arches.push_back(std::move(a));
      }
    }
  }
}

// `ArtifactPath.NAME` written inside a string (an f-string's replacement field).
void RefsInString(std::string_view text, const std::string& scope, ModuleArtifacts& out) {
  const std::string needle = std::string(kDeclaringClass) + ".";
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
    size_t end = at + needle.size();
    while (end < text.size() && IsIdentChar(text[end])) ++end;
    if (end > at + needle.size())
      out.refs.emplace_back(scope, std::string(text.substr(at + needle.size(), end - at - needle.size())));
  }
}

// Module-level `ALIAS = ArtifactPath.NAME`: ALIAS names the group in this module.
void ReadAlias(const python::TokenStream& ts, const python::LogicalLine& line,
               std::map<std::string, std::string>& aliases) {
  if (line.last - line.first != 5 || !ts.IsName(line.first) || !ts.Is(line.first + 1, "=")) return;
  if (!ts.Is(line.first + 2, kDeclaringClass) || !ts.Is(line.first + 3, ".") || !ts.IsName(line.first + 4)) return;
  aliases[std::string(ts.Text(line.first))] = std::string(ts.Text(line.first + 4));
}

void ReadReferences(const python::TokenStream& ts, const python::LogicalLine& line,
                    const std::map<std::string, std::string>& aliases, ModuleArtifacts& out) {
  const std::string scope = python::ScopeName(line.scope);
  for (size_t i = line.first; i < line.last; ++i) {
    const python::Token& t = ts.tokens[i];
    if (t.kind == python::TokenKind::kString) {
      RefsInString(ts.Text(i), scope, out);
      if (NamesABinary(ts.Text(i))) out.loading.insert(scope);
      const std::string_view body = python::StringBody(ts.Text(i));
      if (!t.fstring && NamesCompiledSource(body)) out.sources.emplace_back(scope, std::string(body));
    } else if (ts.IsName(i) && ts.Is(i + 1, "(")) {
      out.calls[scope].emplace(ts.Text(i));
    }
    if (ts.IsName(i) && !ts.Is(i - 1, ".")) {
      if (ts.Text(i) == kDeclaringClass && ts.Is(i + 1, ".") && ts.IsName(i + 2)) {
        out.refs.emplace_back(scope, std::string(ts.Text(i + 2)));
      } else if (auto alias = aliases.find(std::string(ts.Text(i))); alias != aliases.end()) {
        out.refs.emplace_back(scope, alias->second);
      }
    }
  }
}

// How much an arch source is worth: a cubin's own header over a name over a declared list.
int Rank(gate::ArchesFrom from) {
  switch (from) {
    case gate::ArchesFrom::kUnknown: return 0;
    case gate::ArchesFrom::kDeclaredList: return 1;
    case gate::ArchesFrom::kFileNames: return 2;
    case gate::ArchesFrom::kCubinHeaders: return 3;
  }
  return 0;
}

void AddArches(ArtifactGroup& group, const std::vector<std::string>& arches, gate::ArchesFrom from) {
  if (arches.empty()) return;
  group.arches.insert(arches.begin(), arches.end());
  if (Rank(from) > Rank(group.from)) group.from = from;
}

// The arch of a cubin by its ELF header, when its names say none.
void ReadCubinHeader(ArtifactGroup& group, const std::string& path) {
  if (group.headers_read >= kMaxHeaderReads) return;
  ++group.headers_read;
  Result<std::string> bytes = ReadInputFile(path, kMaxSourceBytes);
  if (!bytes) return;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes->data());
  Result<binary::CubinInfo> info = binary::ReadCubinInfo(std::span<const uint8_t>(data, bytes->size()));
  if (info) AddArches(group, {info->arch.name()}, gate::ArchesFrom::kCubinHeaders);
}

// checksums.txt: "SHA256 NAME" per line, the names of every file of the group.
void ReadChecksums(ArtifactGroup& group, const std::string& path) {
  Result<std::string> text = ReadInputFile(path, kMaxRecordBytes);
  if (!text) return;
  std::vector<std::string> arches;
  size_t at = 0;
  while (at < text->size()) {
    const size_t end = std::min(text->find('\n', at), text->size());
    const std::string_view line = std::string_view(*text).substr(at, end - at);
    const size_t space = line.find_last_of(" \t");
    if (space != std::string_view::npos && EndsWith(line, ".cubin")) {
      for (std::string& a : ArchNamesIn(line.substr(space + 1))) arches.push_back(std::move(a));
    }
    at = end + 1;
  }
  AddArches(group, arches, gate::ArchesFrom::kFileNames);
}

// One installed file below a group's folder; `below` is its path from that folder.
void AddEvidence(ArtifactGroup& group, const std::string& path, const std::string& below) {
  if (fs::path(path).filename() == "checksums.txt") return ReadChecksums(group, path);
  ++group.binary_count;
  if (group.binaries.size() < kMaxListed) group.binaries.push_back(path);
  const std::vector<std::string> named = ArchNamesIn(below);
  AddArches(group, named, gate::ArchesFrom::kFileNames);
  if (named.empty() && EndsWith(path, ".cubin")) ReadCubinHeader(group, path);
}

bool IsEvidenceName(const std::string& name) {
  return name == "checksums.txt" || EndsWith(name, ".cubin") || EndsWith(name, ".so");
}

struct Walked {
  std::vector<std::string> python;      // holding the declaring class's name
  std::vector<std::string> all_python;  // every Python file (for prebuilt modules' names)
  std::vector<std::string> evidence;    // cubins, .so files, checksums.txt
  // Every Python file is searched for the class's name: read into one reused buffer (a string
  // per file, grown 64 KiB at a time, was 4% of an audit's CPU on FlashInfer + CUTLASS).
  FileBytes bytes;
};

void Consider(const fs::path& path, bool read_python, Walked& out) {
  const std::string name = path.filename().string();
  if (EndsWith(name, ".py")) {
    if (!read_python) return;
    if (IsTestFileName(name)) return;
    out.all_python.push_back(path.string());
    if (out.bytes.Load(path.string()) && out.bytes.view().find(kDeclaringClass) != std::string_view::npos) {
      out.python.push_back(path.string());
    }
  } else if (IsEvidenceName(name)) {
    out.evidence.push_back(path.string());
  }
}

void Walk(const std::vector<std::string>& roots, bool read_python, Walked& out) {
  for (const std::string& root : roots) {
    std::error_code ec;
    if (fs::is_regular_file(root, ec)) {
      Consider(root, read_python, out);
      continue;
    }
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        if (IsSkippedDirectory(name) || IsNonShippingDirectory(name)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec)) Consider(it->path(), read_python, out);
    }
  }
}

// What the functions of the walked modules name, before group names are resolved.
struct Named {
  std::string file, scope;
  std::vector<std::string> groups;
  std::vector<std::string> sources;
  bool loads = false;
};
using NamedByScope = std::map<std::pair<std::string, std::string>, Named>;

void Merge(ModuleArtifacts module, const std::string& file, ArtifactIndex& index, NamedByScope& named) {
  for (ArtifactGroup& g : module.groups) {
    const bool known = std::any_of(index.groups.begin(), index.groups.end(),
                                   [&](const ArtifactGroup& o) { return o.name == g.name && o.path == g.path; });
    if (!known) index.groups.push_back(std::move(g));
  }
  for (auto& [scope, name] : module.refs) {
    if (scope == kDeclaringClass) continue;
    Named& n = named[{file, scope}];
    n.file = file;
    n.scope = scope;
    n.groups.push_back(std::move(name));
  }
  for (auto& [scope, literal] : module.sources) {
    if (auto it = named.find({file, scope}); it != named.end()) it->second.sources.push_back(std::move(literal));
  }
  for (auto& [key, n] : named) {
    if (key.first != file) continue;
    const std::string last = n.scope.substr(n.scope.rfind('.') == std::string::npos ? 0 : n.scope.rfind('.') + 1);
    n.loads = module.loading.contains(n.scope) ||
              std::any_of(module.loading.begin(), module.loading.end(), [&](const std::string& caller) {
                auto calls = module.calls.find(caller);
                return calls != module.calls.end() && calls->second.contains(last);
              });
  }
}

// A function naming at least one group and at most kMaxGroupsPerLoader becomes a loader.
void AddLoaders(const NamedByScope& named, ArtifactIndex& index) {
  for (const auto& [key, n] : named) {
    ArtifactLoader loader{n.file, n.scope, {}, n.sources};
    for (size_t g = 0; g < index.groups.size(); ++g) {
      if (std::find(n.groups.begin(), n.groups.end(), index.groups[g].name) != n.groups.end())
        loader.groups.push_back(g);
    }
    if (!n.loads) {
      spdlog::debug("{}: {} names artifact groups but loads no binary (headers only?)", n.file, n.scope);
      continue;
    }
    if (loader.groups.empty() || loader.groups.size() > kMaxGroupsPerLoader) continue;
    const size_t dot = n.scope.rfind('.');
    index.loaders_by_name[n.scope.substr(dot == std::string::npos ? 0 : dot + 1)].push_back(index.loaders.size());
    index.loaders.push_back(std::move(loader));
  }
}

// Installed files below a group's folder: the folder's components appear in their path in order.
void AddInstalled(const std::vector<std::string>& evidence, ArtifactIndex& index) {
  std::map<std::string, std::vector<size_t>, std::less<>> by_first;
  std::vector<std::vector<std::string>> parts(index.groups.size());
  for (size_t g = 0; g < index.groups.size(); ++g) {
    parts[g] = Components(index.groups[g].path);
    if (!parts[g].empty()) by_first[parts[g].front()].push_back(g);
  }
  for (const std::string& path : evidence) {
    const std::vector<std::string> comps = Components(path);
    for (size_t i = 0; i < comps.size(); ++i) {
      auto it = by_first.find(comps[i]);
      if (it == by_first.end()) continue;
      for (size_t g : it->second) {
        const std::vector<std::string>& want = parts[g];
        if (i + want.size() >= comps.size() || !std::equal(want.begin(), want.end(), comps.begin() + i)) continue;
        std::string below;
        for (size_t k = i + want.size(); k < comps.size(); ++k) below += (below.empty() ? "" : "/") + comps[k];
        AddEvidence(index.groups[g], path, below);
      }
    }
  }
}

}  // namespace

std::vector<std::string> ArchNamesIn(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i + 3 < text.size(); ++i) {
    const char s = text[i];
    if ((s != 's' && s != 'S') || (text[i + 1] != 'm' && text[i + 1] != 'M')) continue;
    // A word boundary before: the start, a character that is no letter, or CamelCase ("FmhaSm100a").
    const bool letter_before = i > 0 && std::isalpha(static_cast<unsigned char>(text[i - 1]));
    if (letter_before && !(s == 'S' && IsLower(text[i - 1]))) continue;
    size_t j = i + 2;
    if (j < text.size() && text[j] == '_') ++j;
    const size_t digits = j;
    while (j < text.size() && IsDigit(text[j])) ++j;
    if (j - digits < 2 || j - digits > 3) continue;
    std::string candidate = "sm";
    candidate.append(text.substr(digits, j - digits));
    if (j < text.size() && (text[j] == 'a' || text[j] == 'f') && (j + 1 >= text.size() || !IsLower(text[j + 1]))) {
      candidate += text[j];
    }
    if (Result<arch::Arch> a = arch::ParseArch(candidate)) {
      const std::string name = a->name();
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    i = j - 1;
  }
  return out;
}

ModuleArtifacts ReadModuleArtifacts(const std::string& file, std::string_view source) {
  ModuleArtifacts out;
  Result<std::vector<python::Token>> tokens = python::Tokenize(file, source);
  if (!tokens) {
    spdlog::debug("{}: not read for artifacts: {}", file, tokens.error().str());
    return out;
  }
  const python::TokenStream ts = python::MakeStream(source, std::move(*tokens));
  const std::vector<python::LogicalLine> lines = python::SplitLines(ts);
  std::map<std::string, std::vector<std::string>> arch_lists;
  std::map<std::string, std::string> aliases;
  for (const python::LogicalLine& line : lines) {
    if (line.scope.empty()) ReadAlias(ts, line, aliases);
  }
  for (const python::LogicalLine& line : lines) {
    if (line.docstring) continue;
    if (line.scope.size() == 1 && line.scope.front() == kDeclaringClass) {
      ReadDeclaration(ts, line, file, out, arch_lists);
    } else if (!line.scope.empty()) {
      ReadReferences(ts, line, aliases, out);
    }
  }
  for (ArtifactGroup& g : out.groups) {
    if (auto it = arch_lists.find(g.name); it != arch_lists.end())
      AddArches(g, it->second, gate::ArchesFrom::kDeclaredList);
  }
  return out;
}

ArtifactIndex IndexArtifacts(const std::vector<std::string>& roots, const std::vector<std::string>& installed_only) {
  ArtifactIndex index;
  Walked walked;
  Walk(roots, /*read_python=*/true, walked);
  Walk(installed_only, /*read_python=*/false, walked);
  NamedByScope named;
  for (const std::string& file : walked.python) {
    Result<std::string> text = ReadInputFile(file, kMaxSourceBytes);
    if (text) Merge(ReadModuleArtifacts(file, *text), file, index, named);
  }
  if (!index.groups.empty()) {
    AddLoaders(named, index);
    AddInstalled(walked.evidence, index);
  }
  AddPrebuiltModules(FindPrebuiltModules(walked.evidence), walked.all_python, index);
  spdlog::debug("artifacts: {} groups, {} loaders, {} installed files considered", index.groups.size(),
                index.loaders.size(), walked.evidence.size());
  return index;
}

gate::PrebuiltArtifacts ToPrebuilt(const ArtifactGroup& group, const std::string& via, const arch::Arch& target) {
  gate::PrebuiltArtifacts out;
  out.group = group.name;
  out.declared = group.declared;
  out.path = group.path;
  out.via = via;
  out.arches.assign(group.arches.begin(), group.arches.end());
  out.arches_from = group.from;
  out.binaries = group.binaries;
  out.binary_count = group.binary_count;
  if (out.arches.empty()) return out;
  out.runs_on_target = Tri::kFalse;
  for (const std::string& name : out.arches) {
    Result<arch::Arch> a = arch::ParseArch(name);
    const bool ptx = name.starts_with("compute_");
    if (a && (ptx ? arch::PtxJitsOn(*a, target) : arch::SassRunsOn(*a, target))) out.runs_on_target = Tri::kTrue;
  }
  return out;
}

}  // namespace archpatch::scan
