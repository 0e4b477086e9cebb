#include "scan/prefilter.h"

#include <cstring>

#include "cuda/runtime_gates.h"

namespace archpatch::scan {
namespace {

constexpr std::string_view kArchNeedles[] = {"__CUDA_ARCH", "NV_PROVIDES_SM_", "NV_IS_EXACTLY_SM_", "_NV_TARGET_",
                                             "NV_IS_DEVICE", "NV_IS_HOST", "NV_ANY_TARGET", "NV_NO_TARGET"};
constexpr std::string_view kNvTargetNeedles[] = {"NV_IF_TARGET", "NV_IF_ELSE_TARGET", "NV_DISPATCH_TARGET"};

bool Contains(std::string_view haystack, std::string_view needle) {
  return memmem(haystack.data(), haystack.size(), needle.data(), needle.size()) != nullptr;
}

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The identifier around [at, at+len), checked against IsCapabilityName.
bool CapabilityAt(std::string_view s, size_t at, size_t len) {
  size_t b = at, e = at + len;
  while (b > 0 && IsIdentChar(s[b - 1])) --b;
  while (e < s.size() && IsIdentChar(s[e])) ++e;
  if (!cuda::IsCapabilityName(s.substr(b, e - b))) return false;
  size_t next = e;
  while (next < s.size() && (s[next] == ' ' || s[next] == '\t')) ++next;
  return !(next + 1 < s.size() && s[next] == ':' && s[next + 1] == ':');  // `arch::` is a namespace
}

}  // namespace

bool MentionsCapability(std::string_view contents) {
  for (std::string_view needle : cuda::CapabilityNeedles()) {
    const char* base = contents.data();
    size_t from = 0;
    while (from < contents.size()) {
      const void* hit = memmem(base + from, contents.size() - from, needle.data(), needle.size());
      if (!hit) break;
      size_t at = static_cast<const char*>(hit) - base;
      if (CapabilityAt(contents, at, needle.size())) return true;
      // Skip the rest of this identifier: its other occurrences give the same answer.
      from = at + needle.size();
      while (from < contents.size() && IsIdentChar(contents[from])) ++from;
    }
  }
  return false;
}

Prefilter::Prefilter(const cuda::MacroEnv& env) {
  for (std::string_view n : kArchNeedles) directive_needles_.emplace_back(n);
  // -D NAME=__CUDA_ARCH__... makes NAME arch-dependent: look for NAME too.
  for (const auto& [name, value] : env.defines) {
    for (std::string_view n : kArchNeedles) {
      if (Contains(value, n)) directive_needles_.push_back(name);
    }
  }
}

cuda::GateKinds Prefilter::Check(std::string_view contents) const {
  cuda::GateKinds kinds{false, false, false};
  for (const std::string& n : directive_needles_) {
    if (Contains(contents, n)) {
      kinds.directives = true;
      break;
    }
  }
  for (std::string_view n : kNvTargetNeedles) {
    if (Contains(contents, n)) {
      kinds.nv_target = true;
      break;
    }
  }
  kinds.runtime = MentionsCapability(contents);
  return kinds;
}

}  // namespace archpatch::scan
