#include "binary/python_link.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "util/input_file.h"

namespace archpatch::binary {
namespace {

namespace fs = std::filesystem;

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Splits "a.b, c as d" into {"a.b", "c"}.
void AddImportList(std::string_view list, const std::string& prefix, std::vector<std::string>& out) {
  size_t at = 0;
  while (at < list.size()) {
    while (at < list.size() && !IsNameChar(list[at])) ++at;
    size_t end = at;
    while (end < list.size() && IsNameChar(list[end])) ++end;
    if (end > at) out.push_back(prefix + std::string(list.substr(at, end - at)));
    // skip "as alias" and move to the next comma
    const size_t comma = list.find(',', end);
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
}

// String literals that name a shared object: "libfoo.so", '_C.so', "x.so.1".
void AddSoLiterals(std::string_view line, std::vector<std::string>& out) {
  for (size_t at = line.find(".so"); at != std::string_view::npos; at = line.find(".so", at + 3)) {
    size_t begin = at;
    while (begin > 0 && line[begin - 1] != '"' && line[begin - 1] != '\'' && line[begin - 1] != '/') --begin;
    size_t end = at + 3;
    while (end < line.size() && (std::isdigit(static_cast<unsigned char>(line[end])) || line[end] == '.')) ++end;
    if (begin < at) out.push_back(std::string(line.substr(begin, end - begin)));
  }
}

std::string Stem(const std::string& file_name) { return file_name.substr(0, file_name.find('.')); }

std::string FirstComponent(const std::string& path) {
  return fs::path(path).begin() == fs::path(path).end() ? "" : fs::path(path).begin()->string();
}

std::string ReadSource(const std::string& file, const std::vector<std::string>& roots) {
  std::vector<fs::path> tries = {file};
  for (const std::string& root : roots) tries.push_back(fs::path(root) / file);
  for (const fs::path& p : tries) {
    if (Result<std::string> bytes = ReadInputFile(p, kMaxSourceBytes)) return std::move(*bytes);
  }
  return "";
}

bool Loads(const std::vector<std::string>& names, const std::string& py_path, const FileReport& binary) {
  // "./pkg/__init__.py" and "pkg/_C.so" name the same package: compare normalised paths.
  const std::string py_file = fs::path(py_path).lexically_normal().string();
  const std::string file_name = fs::path(binary.display_path).filename().string();
  const std::string stem = Stem(file_name);
  const fs::path binary_path = fs::path(binary.display_path).lexically_normal();
  const bool same_package = FirstComponent(py_file) == FirstComponent(binary_path.string()) ||
                            fs::path(py_file).parent_path() == binary_path.parent_path();
  for (const std::string& name : names) {
    if (name == file_name) return true;  // named in a string literal
    const std::string last = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
    if (same_package && !stem.empty() && last == stem) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> PythonLoadNames(const std::string& source) {
  std::vector<std::string> names;
  std::istringstream in(source);
  for (std::string raw; std::getline(in, raw);) {
    std::string_view line = raw;
    const size_t hash = line.find('#');
    if (hash != std::string_view::npos && line.find_first_of("\"'") > hash) line = line.substr(0, hash);
    const size_t indent = line.find_first_not_of(" \t");
    if (indent == std::string_view::npos) continue;
    std::string_view code = line.substr(indent);
    if (code.rfind("import ", 0) == 0) {
      AddImportList(code.substr(7), "", names);
    } else if (code.rfind("from ", 0) == 0) {
      const size_t import = code.find(" import ");
      if (import != std::string_view::npos) {
        std::string module(code.substr(5, import - 5));
        module.erase(module.find_last_not_of(' ') + 1);
        names.push_back(module);
        const std::string prefix = module.find_first_not_of('.') == std::string::npos ? "" : module + ".";
        AddImportList(code.substr(import + 8), prefix, names);
      }
    }
    AddSoLiterals(line, names);
  }
  return names;
}

void NoteNoImageBinaries(std::vector<Finding>& findings, const BinaryScan& scan,
                         const std::vector<std::string>& roots) {
  if (scan.targets.empty()) return;
  std::vector<const FileReport*> no_image;
  for (const FileReport& binary : scan.files) {
    if (binary.coverage.front().status == CoverageStatus::kNoImage) no_image.push_back(&binary);
  }
  if (no_image.empty()) return;  // no module is read
  // What each module loads, read once per file (an environment's module holds many findings).
  std::map<std::string, std::vector<std::string>, std::less<>> loaded_by_file;
  for (Finding& finding : findings) {
    if (finding.kind != gate::Kind::kPythonGate) continue;
    auto known = loaded_by_file.find(finding.file);
    if (known == loaded_by_file.end()) {
      const std::vector<std::string> names = PythonLoadNames(ReadSource(finding.file, roots));
      std::vector<std::string> loads;
      for (const FileReport* binary : no_image) {
        if (Loads(names, finding.file, *binary)) loads.push_back(binary->display_path);
      }
      known = loaded_by_file.emplace(finding.file, std::move(loads)).first;
    }
    const std::vector<std::string>& loaded = known->second;
    if (loaded.empty()) continue;
    finding.no_image_binaries = loaded;
    finding.summary += fmt::format("{}its module loads '{}', which has no kernel image for {}: ungating will not help",
                                   finding.summary.empty() ? "" : "; ", loaded.front(), scan.targets.front());
  }
}

}  // namespace archpatch::binary
