#include "binary/output.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace archpatch::binary {
namespace {

std::string Runs(const Coverage& c) {
  if (c.status == CoverageStatus::kPtxJit) return fmt::format("{} (PTX {})", c.image, c.ptx_version);
  if (c.status == CoverageStatus::kRuntimeBuilt) return fmt::format("kernels built at run time ({})", c.runtime_note);
  return c.image;
}

// {"compute_80": "9.0"}: the PTX ISA version of each PTX image (the newest when repeated).
nlohmann::ordered_json PtxVersions(const BinaryFile& file) {
  nlohmann::ordered_json versions = nlohmann::ordered_json::object();
  for (const std::string& name : file.Names(ImageKind::kPtx)) {
    for (const Image& image : file.images) {
      if (image.kind != ImageKind::kPtx || image.name() != name) continue;
      std::string current = versions.value(name, "");
      if (image.ptx_version > current) versions[name] = image.ptx_version;
    }
  }
  return versions;
}

nlohmann::ordered_json TotalsJson(const Totals& t) {
  return {{"files", t.files},
          {"native", t.native},
          {"ptx-jit", t.ptx_jit},
          {"no-image", t.no_image},
          {"runtime-built", t.runtime_built}};
}

nlohmann::ordered_json PerTarget(const std::vector<std::string>& targets, const std::vector<Totals>& totals) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (size_t i = 0; i < targets.size() && i < totals.size(); ++i) j[targets[i]] = TotalsJson(totals[i]);
  return j;
}

// Names found only in relocatable fatbins (__nv_relfatbin): listed, but never loaded.
nlohmann::ordered_json OnlyRelocatable(const BinaryFile& file, ImageKind kind) {
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  const std::vector<std::string> loadable = file.Names(kind, false);
  for (const std::string& name : file.Names(kind, true)) {
    if (std::find(loadable.begin(), loadable.end(), name) == loadable.end()) names.push_back(name);
  }
  return names;
}

nlohmann::ordered_json FileJson(const FileReport& f) {
  nlohmann::ordered_json j;
  j["file"] = f.display_path;
  j["distribution"] = f.distribution.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.distribution);
  j["format"] = FileFormatName(f.file.format);
  j["sass"] = f.file.Names(ImageKind::kSass, false);
  j["ptx"] = f.file.Names(ImageKind::kPtx, false);
  j["ptx_versions"] = PtxVersions(f.file);
  j["relocatable_sass"] = OnlyRelocatable(f.file, ImageKind::kSass);
  j["relocatable_ptx"] = OnlyRelocatable(f.file, ImageKind::kPtx);
  j["embedded_sass"] = f.file.EmbeddedNames(ImageKind::kSass);
  j["embedded_ptx"] = f.file.EmbeddedNames(ImageKind::kPtx);
  j["images"] = f.file.images.size();
  nlohmann::ordered_json status = nlohmann::ordered_json::object();
  for (const Coverage& c : f.coverage) {
    status[c.target] = {{"status", CoverageStatusName(c.status)},
                        {"runs", c.image.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.image)}};
    if (c.status == CoverageStatus::kPtxJit) status[c.target]["ptx_version"] = c.ptx_version;
    if (c.status == CoverageStatus::kRuntimeBuilt) status[c.target]["runtime_note"] = c.runtime_note;
  }
  j["targets"] = status;
  j["lto_ir_entries"] = f.file.lto_ir_entries;
  j["runtime_compilers"] = f.file.runtime_compilers;
  j["bytes"] = f.file.file_size;
  j["bytes_read"] = f.file.bytes_read;
  if (!f.file.warnings.empty()) j["warnings"] = f.file.warnings;
  return j;
}

std::string ListOrNone(const std::vector<std::string>& names) {
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, " "));
}

std::string TotalsText(const Totals& t) {
  return fmt::format("{} file{}: {} native, {} ptx-jit, {} no-image{}", t.files, t.files == 1 ? "" : "s", t.native,
                     t.ptx_jit, t.no_image, t.runtime_built ? fmt::format(", {} runtime-built", t.runtime_built) : "");
}

std::string StatusColumn(const FileReport& f) {
  if (f.coverage.size() == 1) return std::string(CoverageStatusName(f.coverage[0].status));
  std::vector<std::string> parts;
  for (const Coverage& c : f.coverage) parts.push_back(fmt::format("{}={}", c.target, CoverageStatusName(c.status)));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string FileLine(const FileReport& f) {
  std::string runs;
  for (const Coverage& c : f.coverage) {
    if (c.status == CoverageStatus::kNoImage) continue;
    runs += fmt::format("{}{} runs {}", runs.empty() ? "" : ", ", c.target, Runs(c));
  }
  return fmt::format("  {:<9} {}\n            sass: {}; ptx: {}{}\n", StatusColumn(f), f.display_path,
                     ListOrNone(f.file.Names(ImageKind::kSass, false)),
                     ListOrNone(f.file.Names(ImageKind::kPtx, false)), runs.empty() ? "" : "; " + runs);
}

}  // namespace

std::vector<Finding> ToFindings(const BinaryScan& scan) {
  std::vector<Finding> findings;
  for (const FileReport& f : scan.files) {
    Finding finding;
    finding.file = f.display_path;
    finding.kind = gate::Kind::kBinaryCoverage;
    finding.text = fmt::format("sass: {}; ptx: {}", ListOrNone(f.file.Names(ImageKind::kSass, false)),
                               ListOrNone(f.file.Names(ImageKind::kPtx, false)));
    bool any_missing = false, any_jit = false;
    for (const Coverage& c : f.coverage) {
      finding.verdict.push_back({c.target, c.status == CoverageStatus::kRuntimeBuilt
                                               ? Tri::kUnknown
                                               : TriOf(c.status != CoverageStatus::kNoImage)});
      any_missing = any_missing || c.status == CoverageStatus::kNoImage;
      any_jit = any_jit || c.status == CoverageStatus::kPtxJit;
    }
    finding.severity = any_missing ? Severity::kError : any_jit ? Severity::kWarning : Severity::kInfo;
    const Coverage& first = f.coverage.front();
    finding.summary = first.status == CoverageStatus::kNoImage
                          ? fmt::format("no kernel image for {}: launching fails", first.target)
                      : first.status == CoverageStatus::kRuntimeBuilt
                          ? fmt::format(
                                "no image for {}, but the library builds its kernels at run time ({}): "
                                "it does not fail for want of an image; whether {} works depends on that path",
                                first.target, first.runtime_note, first.target)
                      : first.status == CoverageStatus::kPtxJit
                          ? fmt::format("{} JIT-compiles {} at first launch", first.target, Runs(first))
                          : fmt::format("{} runs {} natively", first.target, first.image);
    gate::BinaryCoverage coverage;
    coverage.sass = f.file.Names(ImageKind::kSass, false);
    coverage.ptx = f.file.Names(ImageKind::kPtx, false);
    for (const Coverage& c : f.coverage) {
      gate::TargetCoverage t{c.target, std::string(CoverageStatusName(c.status)), std::nullopt, std::nullopt,
                             std::nullopt};
      if (!c.image.empty()) t.runs = c.image;
      if (c.status == CoverageStatus::kPtxJit) t.ptx_version = c.ptx_version;
      if (c.status == CoverageStatus::kRuntimeBuilt) t.runtime_note = c.runtime_note;
      coverage.targets.push_back(std::move(t));
    }
    coverage.distribution = f.distribution;
    finding.binary = std::move(coverage);
    findings.push_back(std::move(finding));
  }
  return findings;
}

nlohmann::ordered_json ToJson(const BinaryScan& scan) {
  nlohmann::ordered_json j;
  j["targets"] = scan.targets;
  j["files"] = nlohmann::ordered_json::array();
  for (const FileReport& f : scan.files) j["files"].push_back(FileJson(f));
  j["distributions"] = nlohmann::ordered_json::array();
  for (const DistributionTotals& d : scan.distributions) {
    j["distributions"].push_back({{"name", d.name.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(d.name)},
                                  {"version", d.version},
                                  {"totals", PerTarget(scan.targets, d.per_target)}});
  }
  j["totals"] = PerTarget(scan.targets, scan.totals);
  j["examined"] = {{"files", scan.files_examined}, {"bytes", scan.bytes_examined}, {"bytes_read", scan.bytes_read}};
  j["errors"] = nlohmann::ordered_json::array();
  for (const Error& e : scan.errors) j["errors"].push_back({{"file", e.where.file}, {"message", e.message}});
  return j;
}

std::string FormatText(const BinaryScan& scan) {
  std::string out =
      fmt::format("binaries for {}: {} file{} with kernels ({} examined)\n", fmt::join(scan.targets, ", "),
                  scan.files.size(), scan.files.size() == 1 ? "" : "s", scan.files_examined);
  for (const DistributionTotals& d : scan.distributions) {
    const std::string name = d.name.empty() ? "(no distribution)" : fmt::format("{} {}", d.name, d.version);
    for (size_t i = 0; i < scan.targets.size(); ++i) {
      out += fmt::format("{}: {}: {}\n", name, scan.targets[i], TotalsText(d.per_target[i]));
    }
    for (const FileReport& f : scan.files) {
      if (f.distribution == d.name && f.version == d.version) out += FileLine(f);
    }
  }
  for (size_t i = 0; i < scan.targets.size(); ++i) {
    out += fmt::format("total: {}: {}\n", scan.targets[i], TotalsText(scan.totals[i]));
  }
  return out;
}

}  // namespace archpatch::binary
