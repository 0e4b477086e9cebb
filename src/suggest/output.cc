#include "suggest/output.h"

#include <fmt/format.h>

#include "store/disk.h"

namespace archpatch::suggest {
namespace fs = std::filesystem;
namespace {

bool StaysInside(const std::string& relative) {
  const fs::path p(relative);
  if (p.empty() || p.is_absolute()) return false;
  for (const fs::path& part : p) {
    if (part == ".." || part == ".") return false;
  }
  return true;
}

// What is at `path` now: nothing (write it), the same bytes (leave it), or a conflict.
enum class Found { kNothing, kSame, kConflict };

Found Existing(store::Disk& disk, const fs::path& path, std::string_view bytes, std::string& why) {
  const store::FileInfo info = disk.Stat(path);
  if (!info.exists()) return Found::kNothing;
  if (info.kind != store::FileKind::file) {
    why = fmt::format("{} exists and is not a regular file", path.string());
    return Found::kConflict;
  }
  Result<std::string> old = disk.Read(path);
  if (old && *old == bytes) return Found::kSame;
  why = old ? fmt::format("{} exists and differs", path.string()) : old.error().str();
  return Found::kConflict;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> OutputFiles(const std::vector<SuggestedRule>& rules) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const SuggestedRule& r : rules) {
    out.emplace_back(r.id + ".yaml", r.yaml);
    for (const FixtureFile& f : r.fixture) {
      out.emplace_back(fmt::format("tests/{}/before/{}", r.id, f.path), f.before);
      out.emplace_back(fmt::format("tests/{}/after/{}", r.id, f.path), f.after);
    }
  }
  return out;
}

Result<WriteReport> WriteSuggestions(const std::vector<SuggestedRule>& rules, const fs::path& dir) {
  const auto files = OutputFiles(rules);
  for (const auto& [relative, bytes] : files) {
    if (!StaysInside(relative)) return Error{fmt::format("'{}' would leave '{}'", relative, dir.string()), {}};
  }
  WriteReport report;
  if (files.empty()) return report;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{fmt::format("cannot create '{}': {}", dir.string(), ec.message()), {}};
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return Error{fmt::format("'{}': {}", dir.string(), ec.message()), {}};
  store::RealDisk disk(root);
  std::vector<std::pair<fs::path, std::string_view>> to_write;
  for (const auto& [relative, bytes] : files) {
    std::string why;
    const fs::path path = root / relative;
    switch (Existing(disk, path, bytes, why)) {
      case Found::kNothing: to_write.emplace_back(path, bytes); break;
      case Found::kSame: report.unchanged.push_back(dir / relative); break;
      case Found::kConflict: report.conflicts.push_back(why); break;
    }
  }
  if (!report.conflicts.empty()) return report;
  for (const auto& [path, bytes] : to_write) {
    if (Status s = disk.MakeDirs(path.parent_path()); !s) return s.error();
    if (Status s = disk.Replace(path, bytes); !s) return s.error();
    report.written.push_back(dir / path.lexically_relative(root));
  }
  return report;
}

}  // namespace archpatch::suggest
