#include "suggest/owner.h"

#include <fstream>
#include <sstream>

namespace archpatch::suggest {
namespace fs = std::filesystem;
namespace {

// `file` relative to `root`, or "" when it is not below it.
std::string Below(const fs::path& root, const fs::path& file) {
  const fs::path rel = file.lexically_normal().lexically_relative(root.lexically_normal());
  if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") return "";
  return rel.generic_string();
}

bool TopLevelNames(const env::Distribution& dist, const std::string& first) {
  std::ifstream in(dist.dist_info / "top_level.txt");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == first) return true;
  }
  return false;
}

}  // namespace

Owned OwnerOf(const env::Environment& env, const fs::path& file) {
  const fs::path absolute = fs::absolute(file);
  for (const env::Distribution& dist : env.distributions) {
    const std::string rel = Below(dist.root, absolute);
    if (!rel.empty() && dist.FindRecord(rel)) return {&dist, rel, "RECORD"};
  }
  for (const env::Distribution& dist : env.distributions) {
    const std::string rel = Below(dist.root, absolute);
    if (!rel.empty() && dist.record.empty() && TopLevelNames(dist, rel.substr(0, rel.find('/')))) {
      return {&dist, rel, "top_level.txt"};
    }
  }
  Owned by_name;
  int matches = 0;
  for (const env::Distribution& dist : env.distributions) {
    const std::string rel = Below(dist.root, absolute);
    if (rel.empty() || !dist.record.empty()) continue;
    const std::string first = env::NormalizeName(rel.substr(0, rel.find('/')));
    if (dist.normalized_name == first || dist.normalized_name.starts_with(first + "-")) {
      by_name = {&dist, rel, "name"};
      ++matches;
    }
  }
  return matches == 1 ? by_name : Owned{};
}

}  // namespace archpatch::suggest
