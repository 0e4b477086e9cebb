// Disk's temporary names, the in-memory FakeDisk, FaultyDisk and MakeDisk (RealDisk: real_disk.cc).
#include "store/disk.h"

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdlib>

#include <fmt/format.h>

namespace archpatch::store {

fs::path TempPathFor(const fs::path& path) {
  return path.parent_path() / ("." + path.filename().string() + ".archpatch-tmp");
}

bool IsTempName(std::string_view name) { return name.size() > 1 && name[0] == '.' && name.ends_with(".archpatch-tmp"); }

Status Disk::ReadPieces(const fs::path& path, const std::function<void(std::string_view)>& piece) {
  Result<std::string> bytes = Read(path);
  if (!bytes) return bytes.error();
  piece(*bytes);
  return Ok{};
}

// --- FakeDisk ---

void FakeDisk::AddParents(const fs::path& path) {
  for (fs::path p = path.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    nodes_.try_emplace(p, Node{FileKind::dir, "", 0755, 1});
  }
}

void FakeDisk::AddFile(const fs::path& path, std::string bytes, uint32_t mode) {
  AddParents(path);
  nodes_[path] = Node{FileKind::file, std::move(bytes), mode, 1};
}

void FakeDisk::AddSymlink(const fs::path& path, const fs::path& target) {
  AddParents(path);
  nodes_[path] = Node{FileKind::symlink, target.string(), 0777, 1};
}

Result<std::string> FakeDisk::Read(const fs::path& path) {
  auto it = nodes_.find(path);
  if (it == nodes_.end() || it->second.kind != FileKind::file) {
    return Error{fmt::format("cannot read '{}': No such file or directory", path.string()), {}};
  }
  return it->second.bytes;
}

FileInfo FakeDisk::Stat(const fs::path& path) {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return FileInfo{};
  const Node& n = it->second;
  return FileInfo{n.kind, n.mode, 0, 0, n.nlink, n.bytes.size(), n.mtime_ns};
}

Result<std::vector<std::string>> FakeDisk::List(const fs::path& dir) {
  auto it = nodes_.find(dir);
  if (it == nodes_.end() || it->second.kind != FileKind::dir) {
    return Error{fmt::format("cannot list '{}': No such file or directory", dir.string()), {}};
  }
  std::vector<std::string> names;
  for (const auto& [p, node] : nodes_) {
    if (p.parent_path() == dir && p != dir) names.push_back(p.filename().string());
  }
  return names;
}

Status FakeDisk::Replace(const fs::path& path, std::string_view bytes, const ReplaceOptions& options) {
  ++writes_;
  auto it = nodes_.find(path.parent_path());
  if (it == nodes_.end() || it->second.kind != FileKind::dir) {
    return Error{fmt::format("cannot create '{}': No such file or directory", path.string()), {}};
  }
  auto old = nodes_.find(path);
  uint32_t mode = old != nodes_.end() && old->second.kind == FileKind::file ? old->second.mode : 0644;
  nodes_[path] = Node{FileKind::file, std::string(bytes), mode, 1, options.mtime_ns.value_or(++clock_)};
  return Ok{};
}

Status FakeDisk::Remove(const fs::path& path) {
  ++writes_;
  nodes_.erase(path);
  return Ok{};
}

Status FakeDisk::RemoveDir(const fs::path& path) {
  ++writes_;
  auto names = List(path);
  if (names && !names->empty()) return Error{fmt::format("cannot remove '{}': not empty", path.string()), {}};
  nodes_.erase(path);
  return Ok{};
}

Status FakeDisk::MakeDirs(const fs::path& path) {
  ++writes_;
  AddParents(path / "x");
  return Ok{};
}

// --- FaultyDisk ---

std::string InjectedCrash::Message(int after) {
  return fmt::format("injected crash after {} write(s) (ARCHPATCH_FAIL_AFTER_WRITES)", after);
}

bool FaultyDisk::CountWrite() {
  if (done_ == stop_before_) raise(SIGSTOP);
  if (fault_ == Fault::crash && done_ >= allowed_) throw InjectedCrash(allowed_);
  return done_++ == allowed_;
}

namespace {

Error InjectedError(const fs::path& path) {
  return Error{
      fmt::format("cannot write '{}': Input/output error (injected by ARCHPATCH_FAIL_AFTER_WRITES)", path.string()),
      {}};
}

}  // namespace

Status FaultyDisk::Replace(const fs::path& path, std::string_view bytes, const ReplaceOptions& options) {
  if (fault_ == Fault::crash && done_ >= allowed_) {
    // Die mid-write: the temporary file holds half the bytes, the target is untouched.
    (void)inner_.Replace(TempPathFor(path), bytes.substr(0, bytes.size() / 2));
  }
  if (CountWrite()) return InjectedError(path);
  return inner_.Replace(path, bytes, options);
}

Status FaultyDisk::Remove(const fs::path& path) {
  if (CountWrite()) return InjectedError(path);
  return inner_.Remove(path);
}

Status FaultyDisk::RemoveDir(const fs::path& path) {
  if (CountWrite()) return InjectedError(path);
  return inner_.RemoveDir(path);
}

Status FaultyDisk::MakeDirs(const fs::path& path) {
  if (CountWrite()) return InjectedError(path);
  return inner_.MakeDirs(path);
}

namespace {

class OwningFaultyDisk : public FaultyDisk {
 public:
  OwningFaultyDisk(std::unique_ptr<Disk> inner, int allowed, Fault fault, int stop_before)
      : FaultyDisk(*inner, allowed, fault, stop_before), owned_(std::move(inner)) {}

 private:
  std::unique_ptr<Disk> owned_;
};

}  // namespace

std::unique_ptr<Disk> MakeDisk() {
  auto real = std::make_unique<RealDisk>();
  const char* fail_after = std::getenv("ARCHPATCH_FAIL_AFTER_WRITES");
  const char* stop_before = std::getenv("ARCHPATCH_STOP_BEFORE_WRITE");
  const bool fail = fail_after && *fail_after, stop = stop_before && *stop_before;
  if (!fail && !stop) return real;
  const std::string_view spec = fail ? fail_after : "";
  const FaultyDisk::Fault fault = spec.ends_with(":eio") ? FaultyDisk::Fault::error : FaultyDisk::Fault::crash;
  return std::make_unique<OwningFaultyDisk>(std::move(real), fail ? std::atoi(fail_after) : INT_MAX, fault,
                                            stop ? std::atoi(stop_before) : -1);
}

}  // namespace archpatch::store
