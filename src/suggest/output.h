// Writing what suggest drafted into the output folder: DIR/<id>.yaml and DIR/tests/<id>/before/,
// after/ (the layout `archpatch rules test --dir DIR` reads). Every path stays inside DIR (written
// through store::RealDisk confined to it: no symlink is followed); each file is replaced
// atomically (temp file, fsync, rename); a file that is already there is left alone when its bytes
// are the same, and refused otherwise: then nothing at all is written.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "suggest/suggest.h"
#include "util/result.h"

namespace archpatch::suggest {

struct WriteReport {
  std::vector<std::filesystem::path> written;    // new files
  std::vector<std::filesystem::path> unchanged;  // already there, byte-identical
  std::vector<std::string> conflicts;            // "DIR/x.yaml exists and differs": nothing written
};

// Every file of every rule, relative to DIR, with its bytes.
std::vector<std::pair<std::string, std::string>> OutputFiles(const std::vector<SuggestedRule>& rules);

// Errors: a path that would leave DIR, an I/O failure (what was written before it stays, each
// file whole).
Result<WriteReport> WriteSuggestions(const std::vector<SuggestedRule>& rules, const std::filesystem::path& dir);

}  // namespace archpatch::suggest
