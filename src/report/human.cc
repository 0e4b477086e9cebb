#include "report/human.h"

#include <cstdlib>
#include <map>
#include <unistd.h>

#include <fmt/color.h>
#include <fmt/format.h>

namespace archpatch::report {
namespace {

std::string Paint(bool color, fmt::text_style style, std::string_view text) {
  return color ? fmt::format(style, "{}", text) : std::string(text);
}

fmt::text_style StyleOf(Tri value) {
  switch (value) {
    case Tri::kTrue: return fmt::fg(fmt::terminal_color::green);
    case Tri::kFalse: return fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold;
    case Tri::kUnknown: return fmt::fg(fmt::terminal_color::yellow);
  }
  return {};
}

std::string JoinRun(const std::vector<std::string>& run) {
  if (run.size() >= 3) return run.front() + ".." + run.back();
  std::string out;
  for (const std::string& a : run) out += (out.empty() ? "" : ", ") + a;
  return out;
}

std::string Kernels(const Finding& f) {
  auto block = f.details.find("block");
  if (block == f.details.end()) return "";
  auto kernels = block->find("kernels");
  if (kernels == block->end() || kernels->empty()) return "";
  std::string out;
  for (const auto& k : *kernels) out += (out.empty() ? "" : ", ") + k.get<std::string>();
  return out;
}

std::string BlockLine(const Finding& f) {
  auto block = f.details.find("block");
  if (block == f.details.end()) return "";
  int first = (*block)["first_line"], last = (*block)["last_line"], lines = (*block)["lines"];
  std::string out = lines == 0 ? "empty" : fmt::format("lines {}-{} ({} line{})", first, last, lines, lines == 1 ? "" : "s");
  std::string kernels = Kernels(f);
  if (!kernels.empty()) out += ", __global__ kernels: " + kernels;
  return out;
}

// "#if __CUDA_ARCH__ >= 900", "#else", "NV_IF_TARGET(NV_PROVIDES_SM_90, ...)", or the text.
std::string Headline(const Finding& f) {
  std::string form = f.details.value("form", "");
  if (form == "directive") {
    std::string directive = f.details.value("directive", "if");
    return directive == "else" ? "#else" : fmt::format("#{} {}", directive, f.text);
  }
  if (form == "nv-target") {
    std::string branch = f.details.value("branch", "");
    std::string macro = f.details.value("macro", "NV_IF_TARGET");
    return branch == "else" ? fmt::format("{}({}, ..., <else>)", macro, f.text) : fmt::format("{}({}, ...)", macro, f.text);
  }
  return f.text;
}

}  // namespace

bool UseColor(std::FILE* out) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return isatty(fileno(out));
}

std::string CompactVerdict(const Finding& f, const std::vector<std::string>& arch_order) {
  std::map<Tri, std::vector<std::vector<std::string>>> runs;  // value -> runs in table order
  Tri previous = Tri::kUnknown;
  bool first = true;
  for (const std::string& arch : arch_order) {
    auto it = std::find_if(f.verdict.begin(), f.verdict.end(), [&](const ArchVerdict& v) { return v.arch == arch; });
    if (it == f.verdict.end()) continue;
    if (first || it->value != previous) runs[it->value].emplace_back();
    runs[it->value].back().push_back(arch);
    previous = it->value, first = false;
  }
  std::string out;
  for (Tri value : {Tri::kTrue, Tri::kUnknown, Tri::kFalse}) {
    if (!runs.count(value)) continue;
    std::string list;
    for (const auto& run : runs[value]) list += (list.empty() ? "" : ", ") + JoinRun(run);
    out += fmt::format("{}{} on {}", out.empty() ? "" : "; ", TriName(value), list);
  }
  return out;
}

// One step of a resolution (docs/audit.md, "via"): `is_sm100a_supported() is false on sm_120:
// flashinfer/utils.py:616 'def ...'`, or just the place and its text.
static std::string ViaLine(const nlohmann::ordered_json& step, const std::string& target) {
  std::string place = fmt::format("{}:{} '{}'", step.value("file", ""), step.value("line", 0), step.value("text", ""));
  if (!step.contains("name")) return place;
  bool false_on_target = false;
  if (auto f = step.find("false_on"); f != step.end() && f->is_array()) {
    for (const auto& a : *f) false_on_target |= a == target;
  }
  return fmt::format("{} is {} on {}: {}", step.value("name", ""), false_on_target ? "false" : "not false", target, place);
}

std::string WhatItMeans(const Finding& f, const std::string& target) {
  if (!f.summary.empty()) return f.summary;
  std::string kernels = Kernels(f);
  std::string form = f.details.value("form", "");
  if (f.kind == "cuda-gate" && form == "directive") {
    if (!kernels.empty()) {
      return fmt::format("built for {}, kernels {} are not compiled at all: launching them fails "
                         "(no kernel image) or the build fails",
                         target, kernels);
    }
    if (!f.scope.empty()) {
      return fmt::format("built for {}, these lines of {} are left out: if that is a kernel's body, it "
                         "launches and silently does nothing",
                         target, f.scope);
    }
    return fmt::format("built for {}, this code is left out; what it does (a fast path, a feature macro, "
                       "a check) does not exist on {}",
                       target, target);
  }
  if (f.kind == "cuda-gate") {
    return fmt::format("on {} this <nv/target> branch is not compiled; the code falls to another branch or to nothing",
                       target);
  }
  if (f.kind == "cpp-runtime-gate") {
    return fmt::format("at run time on a {} GPU this check refuses or skips the operation, even where the kernels "
                       "could run",
                       target);
  }
  if (f.kind == "python-gate") {
    return fmt::format("the Python package refuses or skips {} here (JIT build flags or dispatch)", target);
  }
  return fmt::format("this gate is false on {}", target);
}

void PrintFinding(std::FILE* out, const Finding& f, const std::string& target,
                  const std::vector<std::string>& arch_order, bool color) {
  const auto bold = fmt::emphasis::bold;
  fmt::print(out, "{}: {}: {}\n", Paint(color, bold, fmt::format("{}:{}:{}", f.file, f.line, f.column)),
             Paint(color, fmt::fg(fmt::terminal_color::magenta), f.kind), Headline(f));
  std::string verdict = CompactVerdict(f, arch_order);
  if (color) {
    for (Tri v : {Tri::kTrue, Tri::kFalse, Tri::kUnknown}) {
      std::string word = fmt::format("{} on", TriName(v));
      size_t at = verdict.find(word);
      if (at != std::string::npos) verdict.replace(at, word.size(), fmt::format(StyleOf(v), "{}", word));
    }
  }
  fmt::print(out, "    verdict: {}\n", verdict);
  std::string block = BlockLine(f);
  if (!block.empty()) fmt::print(out, "    block:   {}\n", block);
  if (!f.scope.empty()) fmt::print(out, "    in:      {}\n", f.scope);
  if (auto via = f.details.find("via"); via != f.details.end() && via->is_array()) {
    for (const auto& step : *via) fmt::print(out, "    via:     {}\n", ViaLine(step, target));
  }
  fmt::print(out, "    means:   {}\n", WhatItMeans(f, target));
  // The hazard checks' plain-words lines (src/hazard: empty kernels, whether widening is safe).
  if (auto explain = f.details.find("explain"); explain != f.details.end() && explain->is_array()) {
    for (const auto& line : *explain) fmt::print(out, "    hazard:  {}\n", line.get<std::string>());
  }
}

}  // namespace archpatch::report
