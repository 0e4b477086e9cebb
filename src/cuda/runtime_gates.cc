#include "cuda/runtime_gates.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace archpatch::cuda {

const std::vector<std::string_view>& CapabilityNeedles() {
  static const std::vector<std::string_view> needles = {"ajor", "AJOR", "inor", "INOR", "sm",  "SM",       "Sm",
                                                        "rch",  "RCH",  "cc",   "CC",   "apabilit", "APABILIT"};
  return needles;
}

bool IsCapabilityName(std::string_view name) {
  static const std::set<std::string> kNames = {
      "major", "minor", "ccmajor", "ccminor", "smmajor", "smminor", "devicemajor", "deviceminor",
      "computemajor", "computeminor", "capabilitymajor", "capabilityminor", "archmajor", "archminor",
      "sm", "smversion", "smver", "smarch", "getsmversion", "getsm", "getsmarch", "currentsm",
      "devicesm", "arch", "archversion", "cudaarch", "getcudaarch", "devicearch", "cc",
      "computecapability", "getcomputecapability", "devicecapability", "getdevicecapability",
      "capability", "computecap"};
  bool has_needle = std::any_of(CapabilityNeedles().begin(), CapabilityNeedles().end(),
                                [&](std::string_view n) { return name.find(n) != std::string_view::npos; });
  if (!has_needle) return false;
  std::string_view rest = name;
  // Member prefixes: mSM, m_sm, mMajor.
  if (rest.size() > 2 && rest[0] == 'm' && (rest[1] == '_' || std::isupper(static_cast<unsigned char>(rest[1])))) {
    rest.remove_prefix(1);
  }
  std::string normal;
  for (char c : rest) {
    if (c != '_') normal += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return kNames.count(normal) > 0;
}

Result<std::vector<Finding>> FindRuntimeGates(const std::string&, std::string_view,
                                              const std::vector<arch::Arch>&) {
  return std::vector<Finding>{};
}

}  // namespace archpatch::cuda
