// libFuzzer target for the hazard stage's parsers: the features table (YAML; any bytes must load
// or fail with an Error carrying file:line:col) and the PTX-word splitter of inline asm string
// literals, with the glob matcher behind both.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "hazard/classify.h"
#include "hazard/features.h"

using namespace archpatch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<hazard::FeatureTable> table = hazard::ParseFeatures(text, "fuzz.yaml");
  if (table) {
    for (const hazard::Feature& f : table->features) {
      (void)f.ArchNames();
      (void)table->MatchPtx(f.id);
      (void)table->MatchName(f.id);
    }
  }
  for (const std::string& word : hazard::PtxWords(text)) {
    (void)hazard::GlobMatch(word, text.substr(0, 64));
    (void)hazard::GlobMatch(text.substr(0, 64), word);
  }
  return 0;
}
