// Runs the scanner over tests/fixtures/python/*.py and checks its findings against the
// expectations written beside them: `# expect: python-gate key=value ...` on the line where the
// gate starts (several per line allowed, matched by column), with keys sm_XXX (verdict),
// scope ("-" for module level), shape, name, operand, via. Every finding must be expected.
// Files under invalid/ start with `# error: LINE:COL message` and must be refused just so.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "python/package.h"
#include "python/scanner.h"
#include "report/finding.h"

namespace archpatch::python {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(ARCHPATCH_SOURCE_DIR) / "tests" / "fixtures" / "python";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Physical lines, whatever the line ending (\n, \r\n or \r).
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' || text[i] == '\n') {
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      lines.emplace_back();
    } else {
      lines.back() += text[i];
    }
  }
  return lines;
}

using Expectation = std::map<std::string, std::string>;  // key -> value; "kind" for the first word

std::map<int, std::vector<Expectation>> Expectations(const std::string& text) {
  std::map<int, std::vector<Expectation>> out;
  const std::vector<std::string> lines = Lines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    for (size_t at = line.find("# expect:"); at != std::string::npos; at = line.find("# expect:", at + 1)) {
      const size_t end = line.find("# expect:", at + 1);
      std::istringstream words(line.substr(at + 9, end == std::string::npos ? std::string::npos : end - at - 9));
      Expectation e;
      words >> e["kind"];
      for (std::string word; words >> word;) {
        const size_t eq = word.find('=');
        if (eq != std::string::npos) e[word.substr(0, eq)] = word.substr(eq + 1);
      }
      out[static_cast<int>(n) + 1].push_back(e);
    }
  }
  return out;
}

void CheckFinding(const Finding& f, const Expectation& e) {
  SCOPED_TRACE(ToJson(f).dump());
  EXPECT_EQ(gate::KindName(f.kind), e.at("kind"));
  for (const auto& [key, want] : e) {
    if (key.rfind("sm_", 0) == 0) {
      EXPECT_EQ(TriName(f.VerdictFor(key)), want) << "verdict for " << key;
    } else if (key == "scope") {
      EXPECT_EQ(f.scope, want == "-" ? "" : want);
    } else if (key == "via") {  // the name the first step of the resolution went through
      ASSERT_TRUE(ToJson(f).contains("via") && ToJson(f)["via"].is_array() && !ToJson(f)["via"].empty());
      EXPECT_EQ(ToJson(f)["via"][0].value("name", ""), want);
    } else if (key != "kind") {
      ASSERT_TRUE(ToJson(f).contains(key)) << "no '" << key << "' in the finding";
      EXPECT_EQ(ToJson(f)[key].get<std::string>(), want) << key;
    }
  }
}

std::vector<std::string> FixtureNames(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".py") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Every finding of a tree (each module's own and the package model's) against the expectations
// written in all its files.
void CheckTree(const fs::path& root, const std::vector<Finding>& found) {
  std::map<std::pair<std::string, int>, std::vector<Finding>> by_line;
  for (const Finding& f : found) by_line[{f.file, f.line}].push_back(f);
  size_t expectations = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".py") continue;
    const std::string file = entry.path().string();
    for (const auto& [line, expects] : Expectations(ReadFile(entry.path()))) {
      SCOPED_TRACE(file + ":" + std::to_string(line));
      const std::vector<Finding>& findings = by_line[{file, line}];
      ++expectations;
      ASSERT_EQ(findings.size(), expects.size()) << "findings on this line";
      for (size_t k = 0; k < expects.size(); ++k) CheckFinding(findings[k], expects[k]);
    }
  }
  for (const auto& [where, findings] : by_line) {
    const auto lines = Expectations(ReadFile(where.first));
    EXPECT_TRUE(lines.count(where.second))
        << where.first << ":" << where.second << ": unexpected finding " << ToJson(findings[0]).dump();
  }
  EXPECT_GT(expectations, 0u) << "a fixture without expectations tests nothing";
}

class PythonFixture : public testing::TestWithParam<std::string> {};

TEST_P(PythonFixture, FindingsMatchInlineExpectations) {
  const std::string text = ReadFile(kFixtures / GetParam());
  Result<std::vector<Finding>> found = ScanPython(GetParam(), text, arch::AllArches());
  ASSERT_TRUE(found.ok()) << found.error().str();
  std::map<int, std::vector<Finding>> by_line;
  for (const Finding& f : *found) by_line[f.line].push_back(f);
  const auto expected = Expectations(text);
  ASSERT_FALSE(expected.empty()) << "a fixture without expectations tests nothing";
  for (const auto& [line, findings] : by_line) {
    EXPECT_TRUE(expected.count(line)) << GetParam() << ":" << line << ": unexpected finding "
                                      << ToJson(findings[0]).dump();
  }
  for (const auto& [line, expects] : expected) {
    SCOPED_TRACE(GetParam() + ":" + std::to_string(line));
    const std::vector<Finding>& findings = by_line[line];
    ASSERT_EQ(findings.size(), expects.size()) << "findings on this line";
    for (size_t k = 0; k < expects.size(); ++k) CheckFinding(findings[k], expects[k]);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PythonFixture, testing::ValuesIn(FixtureNames(kFixtures)),
                         [](const auto& info) { return fs::path(info.param).stem().string(); });

class PythonPackage : public testing::TestWithParam<std::string> {};

TEST_P(PythonPackage, ResolvedFindingsMatchInlineExpectations) {
  const fs::path root = kFixtures / "packages" / GetParam();
  std::vector<ModuleSummary> modules;
  std::vector<Finding> found;
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".py") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  const std::vector<arch::Arch> arches = arch::AllArches();
  for (const std::string& file : files) {
    Result<ScannedModule> scanned = ScanPythonModule(file, ReadFile(file), arches);
    ASSERT_TRUE(scanned.ok()) << scanned.error().str();
    found.insert(found.end(), scanned->findings.begin(), scanned->findings.end());
    modules.push_back(std::move(scanned->summary));
  }
  std::vector<Finding> resolved = PackageModel(std::move(modules), arches).BranchFindings();
  PackageModel::DropBoundComparisons(found, resolved);  // as scan::Audit does
  found.insert(found.end(), resolved.begin(), resolved.end());
  SortFindings(found);
  CheckTree(root, found);
}

std::vector<std::string> PackageNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kFixtures / "packages"))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PythonPackage, testing::ValuesIn(PackageNames()),
                         [](const auto& info) { return info.param; });

class InvalidPython : public testing::TestWithParam<std::string> {};

TEST_P(InvalidPython, IsRefusedWithLineAndColumn) {
  const std::string text = ReadFile(kFixtures / "invalid" / GetParam());
  const std::string header = Lines(text)[0];
  ASSERT_EQ(header.rfind("# error: ", 0), 0u) << "first line must say the expected error";
  const std::string where = header.substr(9, header.find(' ', 9) - 9);
  const std::string message = header.substr(header.find(' ', 9) + 1);
  Result<std::vector<Finding>> found = ScanPython(GetParam(), text, arch::AllArches());
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().str(), GetParam() + ":" + where + ": " + message);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, InvalidPython, testing::ValuesIn(FixtureNames(kFixtures / "invalid")),
                         [](const auto& info) { return fs::path(info.param).stem().string(); });

}  // namespace
}  // namespace archpatch::python
