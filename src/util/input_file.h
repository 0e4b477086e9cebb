// Reading a file that archpatch takes as input (a rule, a plan, the state folder's manifest and
// journal, RECORD, the cache and feature tables, Ansible's arguments): a regular file of bounded
// size, never a device, FIFO or socket. `--rule /dev/zero` used to read until memory ran out; a
// FIFO would block forever. The limits are documented in docs/cli.md.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "util/result.h"

namespace archpatch {

// Limits per kind of input, far above any real file of that kind.
inline constexpr size_t kMaxRuleBytes = size_t{1} << 20;        // rule YAML, caches.yaml
inline constexpr size_t kMaxTableBytes = size_t{8} << 20;       // features.yaml
inline constexpr size_t kMaxModuleArgsBytes = size_t{1} << 20;  // Ansible's args file
inline constexpr size_t kMaxStateBytes = size_t{256} << 20;     // --plan JSON, manifest, journal
inline constexpr size_t kMaxRecordBytes = size_t{64} << 20;     // RECORD, METADATA
inline constexpr size_t kMaxSourceBytes = size_t{64} << 20;     // a source file audit scans (the
                                                                // largest real header: 2.8 MB)

// The bytes of `path`, or an error: "PATH: not a regular file", "PATH: larger than N bytes"
// (checked before reading, and again while reading in case the file grows), or errno's text.
// Opened with O_NONBLOCK so that opening a FIFO cannot hang.
Result<std::string> ReadInputFile(const std::filesystem::path& path, size_t max_bytes);

}  // namespace archpatch
