#include "cuda/runtime_gates.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <set>
#include <tuple>

#include "cuda/directives.h"
#include "cuda/header_constants.h"
#include "cuda/runtime_eval.h"
#include "cuda/runtime_tokens.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {
namespace {
// toupper of the C locale (the one archpatch runs in), without a call per byte.
char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

}  // namespace

std::string UpperCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

bool IsCheckName(std::string_view name) {
  if (name == "assert") return false;
  static constexpr std::string_view kWords[] = {"CHECK", "ASSERT", "REQUIRE", "ENSURE"};
  // Bit w: kWords[w] starts with the letter, in either case. This runs on every name of a file,
  // three times; most of a name's letters start no word and cost one look each.
  static const std::array<uint8_t, 256> kFirst = [] {
    std::array<uint8_t, 256> first{};
    for (size_t w = 0; w < std::size(kWords); ++w) {
      const auto upper = static_cast<unsigned char>(kWords[w][0]);
      first[upper] |= static_cast<uint8_t>(1u << w);
      first[upper - 'A' + 'a'] |= static_cast<uint8_t>(1u << w);
    }
    return first;
  }();
  constexpr size_t kShortest = 5;  // CHECK
  for (size_t i = 0; i + kShortest <= name.size(); ++i) {
    for (unsigned words = kFirst[static_cast<unsigned char>(name[i])]; words != 0; words &= words - 1) {
      const std::string_view word = kWords[std::countr_zero(words)];
      if (name.size() - i < word.size()) continue;
      size_t k = 1;
      while (k < word.size() && AsciiUpper(name[i + k]) == word[k]) ++k;
      if (k == word.size()) return true;
    }
  }
  return false;
}

const std::vector<std::string_view>& CapabilityNeedles() {
  static const std::vector<std::string_view> needles = {"ajor", "AJOR", "inor", "INOR", "sm",       "SM",      "Sm",
                                                        "rch",  "RCH",  "cc",   "CC",   "apabilit", "APABILIT"};
  return needles;
}

const std::vector<std::string_view>& CapabilityNames() {
  static const std::vector<std::string_view> names = {"major",
                                                      "minor",
                                                      "ccmajor",
                                                      "ccminor",
                                                      "smmajor",
                                                      "smminor",
                                                      "devicemajor",
                                                      "deviceminor",
                                                      "computemajor",
                                                      "computeminor",
                                                      "capabilitymajor",
                                                      "capabilityminor",
                                                      "archmajor",
                                                      "archminor",
                                                      "sm",
                                                      "smversion",
                                                      "smver",
                                                      "smarch",
                                                      "getsmversion",
                                                      "getsm",
                                                      "getsmarch",
                                                      "currentsm",
                                                      "devicesm",
                                                      "arch",
                                                      "archversion",
                                                      "cudaarch",
                                                      "getcudaarch",
                                                      "devicearch",
                                                      "cc",
                                                      "computecapability",
                                                      "getcomputecapability",
                                                      "devicecapability",
                                                      "getdevicecapability",
                                                      "capability",
                                                      "computecap"};
  return names;
}

namespace {

// The first and last letters, the lengths and the longest length of the normal forms
// CapabilityNames lists: most names of a file are rejected at their last or first letter, and
// most of the rest (CUTLASS's many m-, s- and c- names) by length, before the set is searched.
struct NormalForms {
  std::set<std::string_view> names;
  std::array<bool, 256> first{};
  std::array<bool, 256> last{};
  uint64_t lengths = 0;  // bit n: some name has n letters
  size_t longest = 0;
  NormalForms() : names(CapabilityNames().begin(), CapabilityNames().end()) {
    for (std::string_view n : names) {
      first[static_cast<unsigned char>(n.front())] = true, last[static_cast<unsigned char>(n.back())] = true;
      lengths |= uint64_t{1} << n.size(), longest = std::max(longest, n.size());
    }
  }
  bool HasLength(size_t letters) const { return (lengths >> letters & 1) != 0; }
};

}  // namespace

bool IsCapabilityName(std::string_view name) {
  static const NormalForms kForms;
  // Reserved names (__CUDA_ARCH__) are compiler macros, never a runtime value.
  if (name.starts_with("__")) return false;
  // The last letter first: one look settles most names of a file before any byte is copied.
  const size_t last = name.find_last_not_of('_');
  if (last == std::string_view::npos) return false;
  const char end = name[last] >= 'A' && name[last] <= 'Z' ? static_cast<char>(name[last] - 'A' + 'a') : name[last];
  if (!kForms.last[static_cast<unsigned char>(end)]) return false;
  std::string_view rest = name;
  // Member prefixes: mSM, m_sm, mMajor.
  if (rest.size() > 2 && rest[0] == 'm' && (rest[1] == '_' || (rest[1] >= 'A' && rest[1] <= 'Z')))
    rest.remove_prefix(1);
  // The normal form without a copy (this runs on every name of a file).
  char normal[24];
  size_t n = 0;
  for (char c : rest) {
    if (c == '_') continue;
    if (n == kForms.longest || n == sizeof normal) return false;
    normal[n++] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    if (n == 1 && !kForms.first[static_cast<unsigned char>(normal[0])]) return false;
  }
  if (n == 0 || !kForms.HasLength(n)) return false;  // the last letter was tested first
  if (kForms.names.count(std::string_view(normal, n)) == 0) return false;
  return std::any_of(CapabilityNeedles().begin(), CapabilityNeedles().end(),
                     [&](std::string_view needle) { return name.find(needle) != std::string_view::npos; });
}

// A check of the SM a configuration was made for (`inputs.gemm_config.sm_version == 80`) tests a
// config, not the device: TensorRT-LLM's sanity checks, no gate. (A config's constructor that
// checks the SM it is given stays: the heuristics hand it the device's SM, and users met
// "Expected SM 10x version" there, TensorRT-LLM #5018.)
bool IsConfigSanityCheck(const Finding& f) { return UpperCase(f.text).find("CONFIG") != std::string::npos; }

namespace {

// Whether the token's line is an #include. A continuation line does not start with `#`: it
// stays a candidate.
bool OnIncludeLine(std::string_view contents, size_t offset) {
  const size_t newline = contents.rfind('\n', offset);
  const size_t start = newline == std::string_view::npos ? 0 : newline + 1;
  const std::string_view line = contents.substr(start, offset - start);
  const size_t hash = line.find_first_not_of(" \t");
  return hash != std::string_view::npos && StartsIncludeDirective(line.substr(hash));
}

// Whether tokens[i], a capability name, is used where it could be a value: not as a qualifier
// (`cutlass::arch::Sm90`, `UMMA::Major::K`), a type (`UMMA::Major major_a`), the name a type
// declares (`enum class Major { K, MN }`: CUTLASS's 1 MB mma_sm90_gmma.hpp named no other, and
// its runtime pass was 37 M instructions of the file's last round), a namespace's name or an
// #include's path.
// Almost all of CUTLASS's capability names are those (356 of the 475 files that name one), and
// either reader needs a value to find a check.
bool MayBeValue(const std::vector<Token>& tokens, size_t i, std::string_view contents) {
  size_t next = i + 1;
  while (next < tokens.size() && tokens[next].kind == Token::Kind::kComment) ++next;
  if (next < tokens.size() && tokens[next].Spelling(contents) == "::") return false;
  size_t before = i;
  while (before > 0 && tokens[before - 1].kind == Token::Kind::kComment) --before;
  const std::string_view previous = before > 0 ? tokens[before - 1].Spelling(contents) : "";
  if (previous == "namespace") return false;
  if (previous == "class" || previous == "struct" || previous == "enum" || previous == "union") return false;
  // `UMMA::Major major_a`: a qualified name before a declared one is a type.
  if (previous == "::" && next < tokens.size() && tokens[next].kind == Token::Kind::kIdentifier) return false;
  return !OnIncludeLine(contents, tokens[i].begin);
}

}  // namespace

bool NamesCapabilityValue(const std::vector<Token>& tokens, std::string_view contents) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].kind == Token::Kind::kIdentifier && IsCapabilityName(tokens[i].Spelling(contents)) &&
        MayBeValue(tokens, i, contents)) {
      return true;
    }
  }
  return false;
}

std::vector<Finding> FindRuntimeGates(const std::string& file, std::string_view contents,
                                      const std::vector<arch::Arch>& arches) {
  return FindRuntimeGates(file, contents, arches, Tokenize(contents));
}

std::vector<Finding> FindRuntimeGates(const std::string& file, std::string_view contents,
                                      const std::vector<arch::Arch>& arches, const std::vector<Token>& tokens) {
  // The pass sees a capability only through an identifier of the file's code that may be a
  // value: a file whose capability names sit only in comments and strings (CUTLASS's "K-major"
  // prose, which the byte prefilter cannot tell from code), in qualifiers, types and include
  // paths holds no runtime check, and costs no pass.
  if (!NamesCapabilityValue(tokens, contents)) return {};
  const runtime_detail::View view = runtime_detail::MakeView(contents, tokens);
  LazyBodies bodies(tokens, contents);  // the constants' scopes and the findings'
  const ConstantLookup constants(
      file, [&] { return ReadFileConstants(file, contents, tokens, ConstantsOf::kScannedFile, &bodies); });
  std::vector<Finding> found;
  std::set<int> lines;  // one finding a line: the first check written on it
  for (Finding& f : FindRuntimeGatesInTokens(file, contents, arches, tokens, view, constants, bodies)) {
    if (lines.insert(f.line).second) found.push_back(std::move(f));
  }
  std::erase_if(found, IsConfigSanityCheck);
  std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return found;
}

}  // namespace archpatch::cuda
