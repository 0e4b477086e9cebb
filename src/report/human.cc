#include "report/human.h"

#include <algorithm>
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
  if (!f.block) return "";
  std::string out;
  for (const std::string& k : f.block->kernels) out += (out.empty() ? "" : ", ") + k;
  return out;
}

std::string BlockLine(const Finding& f) {
  if (!f.block) return "";
  const int first = f.block->first_line, last = f.block->last_line, lines = f.block->lines();
  std::string out =
      lines == 0 ? "empty" : fmt::format("lines {}-{} ({} line{})", first, last, lines, lines == 1 ? "" : "s");
  std::string kernels = Kernels(f);
  if (!kernels.empty()) out += ", __global__ kernels: " + kernels;
  return out;
}

// "#if __CUDA_ARCH__ >= 900", "#else", "NV_IF_TARGET(NV_PROVIDES_SM_90, ...)", or the text.
std::string Headline(const Finding& f) {
  if (const gate::DirectiveForm* d = f.directive()) {
    return d->directive == gate::DirectiveKind::kElse
               ? "#else"
               : fmt::format("#{} {}", gate::DirectiveName(d->directive), f.text);
  }
  if (const gate::NvTargetForm* n = f.nv_target()) {
    return n->branch == "else" ? fmt::format("{}({}, ..., <else>)", n->macro, f.text)
                               : fmt::format("{}({}, ...)", n->macro, f.text);
  }
  return f.text;
}

}  // namespace

std::string OneLine(std::string_view text) {
  std::string folded;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (folded.empty() || folded.back() == ' ')) continue;
    folded += space ? ' ' : c;
  }
  return folded;
}

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
static std::string ViaLine(const gate::Place& step, const std::string& target) {
  std::string place = fmt::format("{}:{} '{}'", step.file, step.line, step.text);
  if (step.name.empty()) return place;
  const bool false_on_target =
      step.false_on && std::find(step.false_on->begin(), step.false_on->end(), target) != step.false_on->end();
  return fmt::format("{} is {} on {}: {}", step.name, false_on_target ? "false" : "not false", target, place);
}

std::string WhatItMeans(const Finding& f, const std::string& target) {
  if (!f.summary.empty()) return f.summary;
  std::string kernels = Kernels(f);
  if (f.kind == gate::Kind::kCudaGate && f.directive()) {
    if (!kernels.empty()) {
      return fmt::format(
          "built for {}, kernels {} are not compiled at all: launching them fails "
          "(no kernel image) or the build fails",
          target, kernels);
    }
    if (!f.scope.empty()) {
      return fmt::format(
          "built for {}, these lines of {} are left out: if that is a kernel's body, it "
          "launches and silently does nothing",
          target, f.scope);
    }
    return fmt::format(
        "built for {}, this code is left out; what it does (a fast path, a feature macro, "
        "a check) does not exist on {}",
        target, target);
  }
  if (f.kind == gate::Kind::kCudaGate) {
    return fmt::format("on {} this <nv/target> branch is not compiled; the code falls to another branch or to nothing",
                       target);
  }
  if (f.kind == gate::Kind::kCppRuntimeGate) {
    return fmt::format(
        "at run time on a {} GPU this check refuses or skips the operation, even where the kernels "
        "could run",
        target);
  }
  if (f.kind == gate::Kind::kPythonGate) {
    return fmt::format("the Python package refuses or skips {} here (JIT build flags or dispatch)", target);
  }
  return fmt::format("this gate is false on {}", target);
}

void PrintFinding(std::FILE* out, const Finding& f, const std::string& target,
                  const std::vector<std::string>& arch_order, bool color) {
  const auto bold = fmt::emphasis::bold;
  fmt::print(out, "{}: {}: {}\n", Paint(color, bold, fmt::format("{}:{}:{}", f.file, f.line, f.column)),
             Paint(color, fmt::fg(fmt::terminal_color::magenta), gate::KindName(f.kind)), Headline(f));
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
  for (const gate::Place& step : f.via) fmt::print(out, "    via:     {}\n", ViaLine(step, target));
  fmt::print(out, "    means:   {}\n", WhatItMeans(f, target));
  // The hazard checks' plain-words lines (src/hazard: empty kernels, whether widening is safe).
  for (const std::string& line : f.explain) fmt::print(out, "    hazard:  {}\n", line);
}

}  // namespace archpatch::report
