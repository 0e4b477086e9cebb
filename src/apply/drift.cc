#include "apply/drift.h"

#include "env/digest.h"

namespace archpatch::apply {
namespace {

// The record of a later entry that patched `path` again, starting from `sha256`; nullptr if none.
std::pair<const store::Entry*, const store::FileRecord*> StackedOn(const store::Manifest& manifest,
                                                                   const store::Entry& entry, const std::string& path,
                                                                   const std::string& sha256) {
  bool later = false;
  for (const store::Entry& e : manifest.entries) {
    if (&e == &entry) {
      later = true;
      continue;
    }
    if (!later) continue;
    for (const store::FileRecord& f : e.files) {
      if (f.path == path && f.original_sha256 == sha256) return {&e, &f};
    }
  }
  return {nullptr, nullptr};
}

}  // namespace

const char* Name(FileState s) {
  switch (s) {
    case FileState::patched: return "patched";
    case FileState::original: return "original";
    case FileState::modified: return "modified";
    case FileState::missing: return "missing";
  }
  return "";
}

FileState StateOf(store::StateDir& state, const std::string& path, const std::string& original_sha256,
                  const std::string& patched_sha256) {
  Result<std::string> bytes = state.disk().Read(state.FilePath(path));
  if (!bytes) return FileState::missing;
  const std::string sha = env::Sha256Hex(*bytes);
  return sha == patched_sha256    ? FileState::patched
         : sha == original_sha256 ? FileState::original
                                  : FileState::modified;
}

FileState StateOf(store::StateDir& state, const store::Manifest& manifest, const store::Entry& entry,
                  const store::FileRecord& file) {
  const FileState own = StateOf(state, file.path, file.original_sha256, file.patched_sha256);
  if (own == FileState::patched || own == FileState::missing) return own;
  auto [next_entry, next_file] = StackedOn(manifest, entry, file.path, file.patched_sha256);
  if (next_entry && StateOf(state, manifest, *next_entry, *next_file) == FileState::patched) {
    return FileState::patched;
  }
  return own;
}

bool StillAsLeft(store::StateDir& state, const store::Manifest& manifest, const store::Entry& entry) {
  for (const store::FileRecord& f : entry.files) {
    if (StateOf(state, manifest, entry, f) != FileState::patched) return false;
  }
  return true;
}

}  // namespace archpatch::apply
