#include "binary/scan.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include <spdlog/spdlog.h>

namespace archpatch::binary {
namespace fs = std::filesystem;
namespace {

// The nearest of `dir` and its three parents that holds a *.dist-info folder: scanning
// site-packages/torch still finds torch's RECORD one level up.
fs::path SitePackagesAbove(const fs::path& dir) {
  std::error_code ec;
  fs::path at = fs::absolute(dir, ec).lexically_normal();
  for (int up = 0; up < 4 && !at.empty(); ++up, at = at.parent_path()) {
    for (const auto& entry : fs::directory_iterator(at, ec)) {
      if (entry.path().extension() == ".dist-info") return at;
    }
    if (at == at.root_path()) break;
  }
  return dir;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class Scanner {
 public:
  Scanner(const ScanOptions& options, BinaryScan& scan) : options_(options), scan_(scan) {}

  void ScanPath(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      ScanDirectory(path);
    } else {
      ScanFile(path, path, owners_for(fs::path(path).parent_path()), /*named=*/true);
    }
  }

 private:
  void ScanDirectory(const fs::path& root) {
    const OwnerMap* owners = owners_for(root);
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec) || !IsCandidateName(it->path().filename().string())) continue;
      ScanFile(it->path(), it->path().lexically_relative(root).string(), owners, /*named=*/false);
    }
    if (ec) scan_.errors.push_back(Error{ec.message(), Location{root.string()}});
  }

  void ScanFile(const fs::path& path, const std::string& display, const OwnerMap* owners, bool named) {
    ++scan_.files_examined;
    Result<BinaryFile> read = ReadBinaryFile(path.string(), options_.read);
    if (read && read->format == FileFormat::kElf && !options_.read.scan_rodata &&
        (read->has_cuda_sections || read->loads_modules) && !AllNative(*read)) {
      // Before calling a CUDA file uncovered, look for kernels it may load itself from .rodata.
      // Files with no CUDA sections and no module-loading import are not searched: most of a
      // site-packages, and searching them would read every big library's .rodata.
      ReadOptions deeper = options_.read;
      deeper.scan_rodata = true;
      read = ReadBinaryFile(path.string(), deeper);
    }
    if (!read) {
      if (named && options_.named_files_must_be_binaries) scan_.errors.push_back(read.error());
      spdlog::debug("{}", read.error().str());
      return;
    }
    scan_.bytes_examined += read->file_size;
    scan_.bytes_read += read->bytes_read;
    if (read->images.empty()) return;
    FileReport report;
    report.display_path = display;
    if (const Owner* owner = owners ? owners->Find(path) : nullptr) {
      report.distribution = owner->name;
      report.version = owner->version;
    }
    for (const arch::Arch& target : options_.targets) report.coverage.push_back(CoverageFor(*read, target));
    report.file = std::move(*read);
    scan_.files.push_back(std::move(report));
  }

  bool AllNative(const BinaryFile& file) const {
    for (const arch::Arch& target : options_.targets) {
      if (CoverageFor(file, target).status != CoverageStatus::kNative) return false;
    }
    return true;
  }

  // The RECORD owners for files under `dir`: those given, or the dir's own *.dist-info.
  const OwnerMap* owners_for(const fs::path& dir) {
    if (options_.owners) return options_.owners;
    auto [it, inserted] = read_owners_.try_emplace(dir.string());
    if (inserted) it->second = OwnerMap::FromSitePackages(SitePackagesAbove(dir.empty() ? fs::path(".") : dir));
    return &it->second;
  }

  const ScanOptions& options_;
  BinaryScan& scan_;
  std::map<std::string, OwnerMap> read_owners_;
};

void Summarise(BinaryScan& scan) {
  std::sort(scan.files.begin(), scan.files.end(),
            [](const FileReport& a, const FileReport& b) { return a.display_path < b.display_path; });
  const size_t n = scan.targets.size();
  scan.totals.assign(n, Totals{});
  // Unowned files sort last: the key puts "" after every name.
  std::map<std::tuple<bool, std::string, std::string>, DistributionTotals> by_owner;
  for (const FileReport& f : scan.files) {
    DistributionTotals& d = by_owner[{f.distribution.empty(), f.distribution, f.version}];
    d.name = f.distribution;
    d.version = f.version;
    d.per_target.resize(n);
    for (size_t i = 0; i < n; ++i) {
      d.per_target[i].Add(f.coverage[i].status);
      scan.totals[i].Add(f.coverage[i].status);
    }
  }
  for (auto& [key, d] : by_owner) scan.distributions.push_back(std::move(d));
}

}  // namespace

void Totals::Add(CoverageStatus status) {
  ++files;
  switch (status) {
    case CoverageStatus::kNative: ++native; break;
    case CoverageStatus::kPtxJit: ++ptx_jit; break;
    case CoverageStatus::kNoImage: ++no_image; break;
    case CoverageStatus::kRuntimeBuilt: ++runtime_built; break;
  }
}

bool BinaryScan::AnyNoImage() const {
  return std::any_of(totals.begin(), totals.end(), [](const Totals& t) { return t.no_image > 0; });
}

bool IsCandidateName(const std::string& name) {
  if (EndsWith(name, ".so") || EndsWith(name, ".cubin") || EndsWith(name, ".fatbin") || EndsWith(name, ".ptx")) {
    return true;
  }
  // Versioned shared objects: libcudnn.so.9, libnccl.so.2.21.5
  const size_t so = name.find(".so.");
  return so != std::string::npos && name.find_first_not_of("0123456789.", so + 4) == std::string::npos;
}

BinaryScan ScanBinaries(const std::vector<std::string>& paths, const ScanOptions& options) {
  BinaryScan scan;
  for (const arch::Arch& t : options.targets) scan.targets.push_back(t.plain().name());
  Scanner scanner(options, scan);
  for (const std::string& path : paths) scanner.ScanPath(path);
  Summarise(scan);
  return scan;
}

}  // namespace archpatch::binary
