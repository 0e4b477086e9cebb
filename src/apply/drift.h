// Drift: whether the files the manifest records are still as archpatch left them. Rules stack:
// when a later entry patched a file again starting from an earlier entry's result, the earlier
// entry's file counts as "patched" as long as the later one's does (two rules on one file).
#pragma once

#include <string>

#include "store/manifest.h"
#include "store/state_dir.h"

namespace archpatch::apply {

enum class FileState { patched, original, modified, missing };
const char* Name(FileState s);  // "patched", "original", "modified", "missing"

// The state of a file a journal names: its bytes against the two hashes, nothing stacked.
FileState StateOf(store::StateDir& state, const std::string& path, const std::string& original_sha256,
                  const std::string& patched_sha256);

// The state of `file` of `entry`, following later entries of `manifest` that patched it again.
FileState StateOf(store::StateDir& state, const store::Manifest& manifest, const store::Entry& entry,
                  const store::FileRecord& file);

// Whether every file of `entry` is patched (as above).
bool StillAsLeft(store::StateDir& state, const store::Manifest& manifest, const store::Entry& entry);

}  // namespace archpatch::apply
