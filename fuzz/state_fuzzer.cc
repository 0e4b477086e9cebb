// libFuzzer target for what archpatch reads back from the state folder and the caches table:
// manifest.json and journal.json (writable by whoever may write the state folder, see
// docs/manifest.md) and caches.yaml with its root templates. Any bytes load or fail cleanly.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "store/caches.h"
#include "store/manifest.h"
#include "store/state_dir.h"

using namespace archpatch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) {
    (void)store::ManifestFromJson(j, "fuzz/manifest.json");
    (void)store::JournalFromJson(j, "fuzz/journal.json");
  }
  Result<std::vector<store::CacheKind>> kinds = store::ParseCacheKinds(text, "fuzz/caches.yaml");
  const store::EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME") return "/home/u";
    return std::nullopt;
  };
  if (kinds) {
    for (const store::CacheKind& kind : *kinds) {
      if (Result<store::fs::path> root = store::ExpandRoot(kind.root, env)) (void)store::CheckCacheRoot(*root, env);
    }
  }
  (void)store::ExpandRoot(text, env);
  return 0;
}
