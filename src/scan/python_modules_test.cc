#include "scan/python_modules.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "report/finding.h"
#include "scan/walk.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

// The modules of the Python fixtures and the example package (a package model across modules
// among them), and one module past kFillerBytes that refuses sm_120 itself.
class PythonModulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path root(ARCHPATCH_SOURCE_DIR);
    dir_ = fs::temp_directory_path() / ("archpatch-python-modules-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream big(dir_ / "big_module.py");
    big << "import torch\n\n";
    for (int i = 0; i < 2000; ++i)
      big << "# padding line " << i << " of a generated module, as FlashInfer ships some\n";
    big << "def check():\n    major, minor = torch.cuda.get_device_capability()\n"
        << "    if major not in (9, 10):\n        raise RuntimeError('unsupported GPU')\n";
    big.close();
    options_.target = *arch::ParseArch("sm_120");
    options_.paths = {(root / "examples/minipkg/site-packages").string(), (root / "tests/fixtures/python").string(),
                      dir_.string()};
    Result<FileList> list = CollectFiles(options_.paths);
    ASSERT_TRUE(list.ok()) << list.error().str();
    files_ = list->files;
    sizes_ = list->sizes;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The findings' JSON texts and the modules parsed, with the modules scanned as `scan` says.
  std::pair<std::vector<std::string>, size_t> Report(const std::function<void(PythonModules&)>& scan) {
    ByteBudget budget;
    PythonModules modules(options_, files_, sizes_, budget);
    scan(modules);
    PythonModules::Report report = modules.Take();
    SortFindings(report.findings);
    std::vector<std::string> texts;
    for (const Finding& f : report.findings) texts.push_back(ToJson(f).dump());
    return {texts, report.parsed};
  }

  size_t ModuleCount() const {
    return std::count_if(files_.begin(), files_.end(), [](const std::string& f) { return f.ends_with(".py"); });
  }

  fs::path dir_;
  AuditOptions options_;
  std::vector<std::string> files_;
  std::vector<size_t> sizes_;
};

// The findings round alone (every module in the walk's order), idle workers first (the small
// modules) and several threads at once: each module is scanned once, and the report is the same.
TEST_F(PythonModulesTest, TheReportIsTheSameWhicheverWorkerScansEachModule) {
  auto in_order = [&](PythonModules& m) {
    for (size_t i = 0; i < files_.size(); ++i) {
      if (m.IsModule(i)) m.Scan(i);
    }
  };
  const auto [findings, parsed] = Report(in_order);
  EXPECT_GT(findings.size(), 5u);
  EXPECT_EQ(parsed, ModuleCount());
  EXPECT_TRUE(std::any_of(findings.begin(), findings.end(),
                          [](const std::string& f) { return f.find("big_module.py") != std::string::npos; }));

  EXPECT_EQ(Report([&](PythonModules& m) {
              while (m.ScanSmallest()) {
              }
              in_order(m);
            }),
            std::make_pair(findings, parsed));

  EXPECT_EQ(Report([&](PythonModules& m) {
              std::vector<std::thread> threads;
              for (int t = 0; t < 4; ++t) {
                threads.emplace_back([&m, t, this] {
                  while (t % 2 == 0 && m.ScanSmallest()) {
                  }
                  for (size_t i = files_.size(); i-- > 0;) {
                    if (m.IsModule(i)) m.Scan(i);
                    m.ModelWhenScanned();
                  }
                });
              }
              for (std::thread& t : threads) t.join();
            }),
            std::make_pair(findings, parsed));
}

// An idle worker of a C/C++ round takes no module past kFillerBytes: it would hold the round's
// end. The findings round scans it.
TEST_F(PythonModulesTest, IdleWorkersLeaveTheLargeModulesToTheFindingsRound) {
  ByteBudget budget;
  PythonModules modules(options_, files_, sizes_, budget);
  size_t taken = 0;
  while (modules.ScanSmallest()) ++taken;
  EXPECT_EQ(taken, ModuleCount() - 1);
  EXPECT_FALSE(modules.ModelWhenScanned());  // big_module.py is still to be scanned
  for (size_t i = 0; i < files_.size(); ++i) {
    if (modules.IsModule(i)) modules.Scan(i);
  }
  EXPECT_TRUE(modules.ModelWhenScanned());
  PythonModules::Report report = modules.Take();
  EXPECT_EQ(report.parsed, ModuleCount());
  EXPECT_TRUE(std::any_of(report.findings.begin(), report.findings.end(),
                          [](const Finding& f) { return f.file.ends_with("big_module.py"); }));
}

// The workers the package-macro rounds leave idle take the largest modules first (the findings
// round's last modules are then small ones), each once; the report is the same as the findings
// round's alone.
TEST_F(PythonModulesTest, IdleWorkersBesideTheMacroRoundsTakeTheLargestModulesFirst) {
  const auto [findings, parsed] = Report([&](PythonModules& m) {
    for (size_t i = 0; i < files_.size(); ++i) {
      if (m.IsModule(i)) m.Scan(i);
    }
  });
  std::vector<std::string> order;
  options_.after_python_file = [&](const std::string& file, std::string_view, const python::ModuleSyntax&,
                                   std::vector<Finding>&) { order.push_back(file); };
  EXPECT_EQ(Report([&](PythonModules& m) {
              ASSERT_TRUE(m.ScanLargest());
              ASSERT_EQ(order.size(), 1u);
              EXPECT_TRUE(order[0].ends_with("big_module.py")) << order[0];
              size_t taken = 1;
              while (m.ScanLargest()) ++taken;
              EXPECT_EQ(taken, ModuleCount());
              EXPECT_FALSE(m.ScanSmallest());  // none left to take
            }),
            std::make_pair(findings, parsed));
}

// A module a helper is still scanning when the findings round ends is in the report: Take waits
// for it (and scans itself any module no worker took) before the package model runs.
TEST_F(PythonModulesTest, TheReportWaitsForAModuleStillBeingScanned) {
  const auto [findings, parsed] = Report([&](PythonModules& m) {
    for (size_t i = 0; i < files_.size(); ++i) {
      if (m.IsModule(i)) m.Scan(i);
    }
  });
  std::promise<void> inside, release;
  std::shared_future<void> released = release.get_future().share();
  options_.after_python_file = [&](const std::string& file, std::string_view, const python::ModuleSyntax&,
                                   std::vector<Finding>&) {
    if (!file.ends_with("big_module.py")) return;
    inside.set_value();
    released.wait();
  };
  std::future<void> helper;
  std::thread releaser;
  EXPECT_EQ(Report([&](PythonModules& m) {
              helper = std::async(std::launch::async, [&m] { m.ScanLargest(); });
              inside.get_future().wait();  // big_module.py is being scanned
              releaser = std::thread([&release] {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                release.set_value();
              });
            }),
            std::make_pair(findings, parsed));
  releaser.join();
  helper.get();
}

// The package model's hook sees the modules' findings once, as the report takes them: those
// the model resolved among them.
TEST_F(PythonModulesTest, AfterThePackageModelTheHookSeesTheFindingsTheReportTakes) {
  int calls = 0;
  std::vector<std::string> seen;
  options_.after_package_model = [&](std::vector<Finding>& findings) {
    ++calls;
    for (const Finding& f : findings) seen.push_back(ToJson(f).dump());
    // Work it leaves running on the findings ends before the report takes them.
    return std::async(std::launch::async, [&findings] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      for (Finding& f : findings) f.summary += " (seen)";
    });
  };
  ByteBudget budget;
  PythonModules modules(options_, files_, sizes_, budget);
  for (size_t i = 0; i < files_.size(); ++i) {
    if (modules.IsModule(i)) modules.Scan(i);
    modules.ModelWhenScanned();
  }
  PythonModules::Report report = modules.Take();
  EXPECT_EQ(calls, 1);
  std::vector<std::string> taken;
  for (Finding& f : report.findings) {
    EXPECT_TRUE(f.summary.ends_with(" (seen)")) << f.summary;
    f.summary.resize(f.summary.size() - std::string_view(" (seen)").size());
    taken.push_back(ToJson(f).dump());
  }
  EXPECT_EQ(seen, taken);
  EXPECT_TRUE(std::any_of(report.findings.begin(), report.findings.end(), [](const Finding& f) {
    return f.python() && !f.python()->literal_span && !f.via.empty();
  })) << "no finding the package model resolved";
}

}  // namespace
}  // namespace archpatch::scan
