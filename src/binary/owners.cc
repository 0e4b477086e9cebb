#include "binary/owners.h"

#include <fstream>
#include <sstream>
#include <string_view>

#include "util/input_file.h"

namespace archpatch::binary {
namespace {

std::string Key(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(file, ec);
  return (ec ? file : absolute).lexically_normal().string();
}

// METADATA and RECORD; what cannot be read has no lines.
std::string ReadText(const std::filesystem::path& path) {
  Result<std::string> bytes = ReadInputFile(path, kMaxRecordBytes);
  return bytes ? std::move(*bytes) : std::string();
}

// "Name: torch" -> "torch" for the header lines of METADATA (the body after a blank line is
// the description and is not read).
Owner ReadMetadata(const std::filesystem::path& path) {
  Owner owner;
  std::istringstream in(ReadText(path));
  for (std::string line; std::getline(in, line) && !line.empty() && line != "\r";) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("Name: ", 0) == 0 && owner.name.empty()) owner.name = line.substr(6);
    if (line.rfind("Version: ", 0) == 0 && owner.version.empty()) owner.version = line.substr(9);
  }
  return owner;
}

// RECORD's first CSV column; a quoted path may hold commas and doubled quotes.
std::string FirstColumn(std::string_view line) {
  if (line.empty() || line[0] != '"') return std::string(line.substr(0, line.find(',')));
  std::string path;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] != '"') {
      path += line[i];
    } else if (i + 1 < line.size() && line[i + 1] == '"') {
      path += '"';
      ++i;
    } else {
      break;
    }
  }
  return path;
}

}  // namespace

void OwnerMap::Add(const std::filesystem::path& file, const Owner& owner) { owners_[Key(file)] = owner; }

const Owner* OwnerMap::Find(const std::filesystem::path& file) const {
  auto it = owners_.find(Key(file));
  return it == owners_.end() ? nullptr : &it->second;
}

OwnerMap OwnerMap::FromSitePackages(const std::filesystem::path& dir) {
  OwnerMap map;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::filesystem::path& info = entry.path();
    if (info.extension() != ".dist-info" || !entry.is_directory(ec)) continue;
    Owner owner = ReadMetadata(info / "METADATA");
    if (owner.name.empty()) continue;
    std::istringstream record(ReadText(info / "RECORD"));
    for (std::string line; std::getline(record, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const std::string path = FirstColumn(line);
      if (!path.empty()) map.Add(dir / path, owner);
    }
  }
  return map;
}

}  // namespace archpatch::binary
