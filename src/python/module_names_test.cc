// Which modules the package model needs whole: found from names alone, before any resolution.
#include "python/module_names.h"

#include <gtest/gtest.h>

#include "python/scanner.h"

namespace archpatch::python {
namespace {

std::vector<ModuleNames> Names(const std::vector<std::pair<std::string, std::string>>& modules) {
  const std::vector<arch::Arch> arches = {*arch::ParseArch("sm_120"), *arch::ParseArch("sm_100")};
  std::vector<ModuleNames> out;
  for (const auto& [file, source] : modules) {
    Result<ScannedModule> scanned = ScanPythonModule(file, source, arches);
    EXPECT_TRUE(scanned) << file;
    if (scanned) out.push_back(NamesOf(scanned->summary));
  }
  return out;
}

TEST(ModulesThatMatter, FollowsAGatedPredicateThroughARenamingReExportToItsCaller) {
  const std::set<std::string> kept = ModulesThatMatter(Names({
      {"pkg/utils.py",
       "import torch\n\ndef is_sm100a_supported(device):\n"
       "    major, _ = torch.cuda.get_device_capability(device)\n    return major == 10\n"},
      {"pkg/__init__.py", "from .utils import is_sm100a_supported as is_blackwell\n"},
      {"pkg/moe.py",
       "from . import is_blackwell\n\ndef run(x):\n    if not is_blackwell(x.device):\n"
       "        raise RuntimeError('needs SM100')\n    return x\n"},
      // Calls and small defs that reach no gate: the bulk of an environment, never needed whole.
      {"other/io.py",
       "import os\n\ndef exists(p):\n    return os.path.exists(p)\n\n"
       "def load(p):\n    if exists(p):\n        return open(p).read()\n    return None\n"},
  }));
  EXPECT_EQ(kept, (std::set<std::string>{"pkg/__init__.py", "pkg/moe.py", "pkg/utils.py"}));
}

TEST(ModulesThatMatter, APredicateCallingAGatedOneIsLiveAndSoAreItsCallers) {
  const std::set<std::string> kept = ModulesThatMatter(Names({
      {"a.py", "import torch\n\ndef _cc():\n    return torch.cuda.get_device_capability()[0] >= 10\n"},
      {"b.py", "from a import _cc\n\ndef use_fused():\n    return _cc() and True\n"},
      {"c.py", "from b import use_fused\n\nif use_fused():\n    x = 1\n"},
      {"d.py", "def use_fused_other():\n    return False\n\nif len([]) > 0:\n    y = 2\n"},
  }));
  EXPECT_EQ(kept, (std::set<std::string>{"a.py", "b.py", "c.py"}));
}

TEST(ModulesThatMatter, ABranchOnALocallyBoundGateKeepsItsModule) {
  const std::set<std::string> kept = ModulesThatMatter(Names({
      {"k.py", "import torch\nis_sm90 = torch.cuda.get_device_capability() == (9, 0)\nif is_sm90:\n    z = 1\n"},
  }));
  EXPECT_EQ(kept, (std::set<std::string>{"k.py"}));
}

}  // namespace
}  // namespace archpatch::python
