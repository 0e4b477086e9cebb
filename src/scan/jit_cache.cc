#include "scan/jit_cache.h"

#include <filesystem>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "binary/reader.h"
#include "python/syntax.h"
#include "python/tokenizer.h"
#include "util/input_file.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

// The kernel images of a prebuilt module: SASS as "sm_X", PTX as "compute_X" (ToPrebuilt).
void ReadImages(ArtifactGroup& group, const std::string& path) {
  Result<binary::BinaryFile> file = binary::ReadBinaryFile(path);
  if (!file) return;
  for (const binary::Image& image : file->images) {
    if (image.relocatable) continue;
    group.arches.insert(image.kind == binary::ImageKind::kPtx ? image.arch.compute_name() : image.arch.name());
  }
  if (!group.arches.empty()) group.from = gate::ArchesFrom::kCubinHeaders;
}

// The scopes of one module that write one of `names` as a whole string.
std::map<std::string, std::set<std::string>> ScopesNaming(const std::string& file, std::string_view source,
                                                          const std::set<std::string, std::less<>>& names) {
  std::map<std::string, std::set<std::string>> out;
  Result<std::vector<python::Token>> tokens = python::Tokenize(file, source);
  if (!tokens) return out;
  const python::TokenStream ts = python::MakeStream(source, std::move(*tokens));
  for (const python::LogicalLine& line : python::SplitLines(ts)) {
    if (line.scope.empty()) continue;
    for (size_t i = line.first; i < line.last; ++i) {
      if (ts.tokens[i].kind != python::TokenKind::kString || ts.tokens[i].fstring) continue;
      const std::string_view body = python::StringBody(ts.Text(i));
      if (names.contains(body)) out[python::ScopeName(line.scope)].emplace(body);
    }
  }
  return out;
}

bool QuotesOneOf(std::string_view text, const std::set<std::string, std::less<>>& names) {
  for (const std::string& name : names) {
    for (const char quote : {'"', '\''}) {
      const std::string quoted = quote + name + quote;
      if (text.find(quoted) != std::string_view::npos) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<ArtifactGroup> FindPrebuiltModules(const std::vector<std::string>& installed) {
  std::vector<ArtifactGroup> out;
  for (const std::string& path : installed) {
    const fs::path p(path);
    const std::string folder = p.parent_path().filename().string();
    const std::string dir = p.parent_path().parent_path().filename().string();
    if (p.extension() != ".so" || p.stem().string() != folder || (dir != "jit_cache" && dir != "aot")) continue;
    ArtifactGroup group;
    group.name = folder;
    group.path = dir + "/" + folder;
    group.declared = path;
    group.binaries = {path};
    group.binary_count = 1;
    ReadImages(group, path);
    out.push_back(std::move(group));
  }
  return out;
}

void AddPrebuiltModules(std::vector<ArtifactGroup> modules, const std::vector<std::string>& python,
                        ArtifactIndex& index) {
  if (modules.empty()) return;
  std::set<std::string, std::less<>> names;
  std::map<std::string, size_t> group_of;
  for (ArtifactGroup& m : modules) {
    names.insert(m.name);
    group_of[m.name] = index.groups.size();
    index.groups.push_back(std::move(m));
  }
  for (const std::string& file : python) {
    Result<std::string> text = ReadInputFile(file, kMaxSourceBytes);
    if (!text || !QuotesOneOf(*text, names)) continue;
    for (const auto& [scope, named] : ScopesNaming(file, *text, names)) {
      ArtifactLoader loader{file, scope, {}, {}};
      for (const std::string& name : named) loader.groups.push_back(group_of[name]);
      const size_t dot = scope.rfind('.');
      index.loaders_by_name[scope.substr(dot == std::string::npos ? 0 : dot + 1)].push_back(index.loaders.size());
      index.loaders.push_back(std::move(loader));
    }
  }
  spdlog::debug("artifacts: {} prebuilt modules", names.size());
}

}  // namespace archpatch::scan
