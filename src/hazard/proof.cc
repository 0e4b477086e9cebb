#include "hazard/proof.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "hazard/blast_radius.h"
#include "hazard/branches.h"
#include "hazard/source.h"
#include "util/input_file.h"

namespace archpatch::hazard {
namespace {

namespace fs = std::filesystem;

// The code one pass keeps from the file: (source line, text) for every non-blank line.
using Code = std::vector<std::pair<int, std::string>>;

struct Pass {
  bool ok = false;
  Code code;
  std::string error;  // first line of the compiler's complaint when !ok
};

// The compiler's own output files: what it could not write reads as empty.
std::string ReadAll(const fs::path& p) {
  Result<std::string> bytes = ReadInputFile(p, kMaxSourceBytes);
  return bytes ? std::move(*bytes) : std::string();
}

void WriteAll(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `contents` with #include and #error lines blanked (bytes and lines kept): the standalone file.
std::string Standalone(std::string_view contents) { return BlankDirectiveLines(contents, {"include", "error"}); }

// Reads `cpp -E` output, keeping the lines the linemarkers attribute to `file`.
Code FromPreprocessed(const std::string& output, const std::string& file) {
  Code code;
  std::istringstream in(output);
  std::string line, current;
  int number = 0;
  while (std::getline(in, line)) {
    if (line.size() > 2 && line[0] == '#' && (line[1] == ' ' || line.compare(0, 5, "#line") == 0)) {
      std::istringstream marker(line.substr(line[1] == ' ' ? 1 : 5));
      int n = 0;
      std::string name;
      if (marker >> n >> name) {
        number = n;
        current = name.size() >= 2 ? name.substr(1, name.size() - 2) : name;
        continue;
      }
    }
    if (current == file && line.find_first_not_of(" \t\r") != std::string::npos) code.push_back({number, line});
    ++number;
  }
  return code;
}

std::vector<std::string> MacroFlags(const cuda::MacroEnv& env) {
  std::vector<std::string> flags;
  for (const auto& [name, value] : env.defines) flags.push_back(fmt::format("-D{}={}", name, value));
  for (const std::string& name : env.undefs) flags.push_back("-U" + name);
  return flags;
}

class NvccEngine {
 public:
  NvccEngine(std::string nvcc, const std::string& path, std::string_view before, std::string_view after,
             const cuda::MacroEnv& env)
      : nvcc_(std::move(nvcc)), flags_(MacroFlags(env)) {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_proof_XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    const std::string name = fs::path(path).stem().string() + ".cu";  // nvcc needs .cu for --cuda
    for (const char* side : {"before", "after"}) fs::create_directories(dir_ / side);
    before_ = dir_ / "before" / name;
    after_ = dir_ / "after" / name;
    WriteAll(before_, Standalone(before));
    WriteAll(after_, Standalone(after));
  }
  ~NvccEngine() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Both versions for one arch, the two nvcc runs side by side.
  std::pair<Pass, Pass> Run(const arch::Arch& a) {
    const std::string gencode = fmt::format("arch={},code={}", a.compute_name(), a.name());
    std::string script;
    for (const fs::path* file : {&before_, &after_}) {
      const fs::path out = file->string() + ".ii", err = file->string() + ".err";
      fs::remove(out);
      script += fmt::format("{} -gencode {} --cuda -E {} {} -o {} 2>{} & ", Quote(nvcc_), gencode,
                            fmt::join(flags_, " "), Quote(file->string()), Quote(out.string()), Quote(err.string()));
    }
    script += "wait";
    if (std::system(script.c_str()) == -1) spdlog::warn("could not run nvcc");
    return {Collect(before_), Collect(after_)};
  }

 private:
  Pass Collect(const fs::path& file) {
    Pass p;
    const fs::path out = file.string() + ".ii";
    std::error_code ec;
    if (!fs::exists(out, ec)) {
      std::istringstream err(ReadAll(file.string() + ".err"));
      std::getline(err, p.error);
      return p;
    }
    p.ok = true;
    p.code = FromPreprocessed(ReadAll(out), file.string());
    return p;
  }

  std::string nvcc_;
  std::vector<std::string> flags_;
  fs::path dir_, before_, after_;
};

Pass LibclangPass(const std::string& path, std::string_view contents, const arch::Arch& a, const cuda::MacroEnv& env) {
  std::vector<std::string> defines = DeviceDefines(a);
  for (const std::string& f : MacroFlags(env)) defines.push_back(f);
  const std::string standalone = Standalone(contents);
  Result<ParsedSource> parse = Parse(path, standalone, defines);
  Pass p;
  if (!parse) {
    p.error = parse.error().message;
    return p;
  }
  p.ok = true;
  std::map<int, std::string> lines;
  for (size_t i = 0; i < parse->tokens.size(); ++i) {
    const Token& t = parse->tokens[i];
    if (parse->on_directive[i] || t.kind == Token::Kind::kComment || parse->Skipped(t)) continue;
    std::string& text = lines[parse->lines.Line(t.begin)];
    if (!text.empty()) text += ' ';
    text += parse->Spelling(t);
  }
  for (auto& [line, text] : lines) p.code.push_back({line, std::move(text)});
  return p;
}

struct Block {
  int first_line = 0, last_line = 0;
};

// The blocks the edited conditions guard, in line numbers of `after` (the edit keeps lines).
std::vector<Block> GuardedBlocks(const std::string& path, std::string_view before, std::string_view after,
                                 const std::vector<ByteSpan>& edited) {
  std::vector<Block> out;
  Result<ParsedSource> parse = Parse(path, before);
  if (!parse) return out;
  const std::vector<Branch> branches = FindBranches(before, parse->tokens, {}, {});
  for (const ByteSpan& span : edited) {
    const int k = BranchOfCondition(branches, span.begin, span.end);
    if (k < 0) continue;
    const Branch& b = branches[k];
    const int first = parse->lines.Line(b.body_begin), end = parse->lines.Line(b.body_end);
    if (end - first <= 0) continue;
    out.push_back({first, end - 1});
  }
  (void)after;
  return out;
}

bool Reaches(const Code& code, const Block& block) {
  return std::any_of(code.begin(), code.end(),
                     [&](const auto& l) { return l.first >= block.first_line && l.first <= block.last_line; });
}

int OldestTarget(const std::vector<arch::Arch>& targets) {
  int oldest = 1 << 30;
  for (const arch::Arch& t : targets) oldest = std::min(oldest, t.number());
  return oldest;
}

}  // namespace

Result<ProofEngine> ParseProofEngine(std::string_view text) {
  if (text == "auto") return ProofEngine::kAuto;
  if (text == "nvcc") return ProofEngine::kNvcc;
  if (text == "libclang") return ProofEngine::kLibclang;
  return Error{fmt::format("unknown proof engine '{}' (auto, nvcc or libclang)", text), {}};
}

std::string FindNvcc(const std::string& preferred) {
  std::vector<std::string> candidates;
  if (!preferred.empty()) candidates.push_back(preferred);
  if (const char* env = std::getenv("ARCHPATCH_NVCC")) candidates.push_back(env);
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');) candidates.push_back(d + "/nvcc");
  }
  candidates.push_back("/usr/local/cuda/bin/nvcc");
  for (const std::string& c : candidates) {
    if (!c.empty() && access(c.c_str(), X_OK) == 0) return c;
  }
  return "";
}

Result<FileProof> ProveEdit(const std::string& path, std::string_view before, std::string_view after,
                            const std::vector<ByteSpan>& edited, const std::vector<arch::Arch>& targets,
                            const ProofOptions& o) {
  FileProof proof;
  proof.path = path;
  const std::string nvcc = o.engine == ProofEngine::kLibclang ? "" : FindNvcc(o.nvcc);
  if (o.engine == ProofEngine::kNvcc && nvcc.empty()) {
    return Error{"no nvcc found for the proof (set ARCHPATCH_NVCC, or use --proof-engine libclang)", {}};
  }
  proof.engine = nvcc.empty() ? "libclang" : "nvcc";
  cuda::MacroEnv predict_env = o.env;
  predict_env.undef_unknown = true;  // a standalone preprocess leaves every other macro undefined
  proof.predicted = ArchNames(FileBlastRadius(path, before, after, predict_env, o.arches));
  const std::vector<Block> blocks = GuardedBlocks(path, before, after, edited);
  const int oldest = OldestTarget(targets);

  std::unique_ptr<NvccEngine> engine;
  if (!nvcc.empty()) engine = std::make_unique<NvccEngine>(nvcc, path, before, after, o.env);
  for (const arch::Arch& a : o.arches) {
    auto [b, f] = engine ? engine->Run(a)
                         : std::make_pair(LibclangPass(path, before, a, o.env), LibclangPass(path, after, a, o.env));
    const std::string name = a.name();
    if (!b.ok && !f.ok) {
      proof.notes.push_back(fmt::format("{}: not compared, the file does not preprocess alone ({})", name, b.error));
      continue;
    }
    if (b.ok != f.ok) {
      proof.problems.push_back(fmt::format("{}: preprocessing {} after the edit: {}", name,
                                           f.ok ? "works only" : "fails", f.ok ? b.error : f.error));
      continue;
    }
    if (b.code != f.code) proof.changed.push_back(name);
    const bool is_target = std::find(targets.begin(), targets.end(), a) != targets.end();
    if (is_target) {
      bool all = !blocks.empty();
      for (const Block& block : blocks) all = all && Reaches(f.code, block);
      if (all) proof.reached.push_back(name);
    }
  }
  for (const std::string& c : proof.changed) {
    arch::Arch a = *arch::ParseArch(c);
    if (a.number() < oldest) {
      proof.problems.push_back(fmt::format(
          "the edit also changes the code compiled for {}, which is older than the target: it must not", c));
    } else if (std::find(proof.predicted.begin(), proof.predicted.end(), c) == proof.predicted.end()) {
      proof.problems.push_back(fmt::format(
          "the compiler shows the edit changes the code for {}, which archpatch's blast radius did not predict", c));
    }
  }
  for (const arch::Arch& t : targets) {
    if (std::find(o.arches.begin(), o.arches.end(), t) == o.arches.end()) continue;
    if (std::find(proof.reached.begin(), proof.reached.end(), t.name()) == proof.reached.end()) {
      proof.problems.push_back(
          blocks.empty() ? fmt::format("{}: the edit touches no #if condition whose block could be checked", t.name())
                         : fmt::format("{}: the guarded block is still not compiled after the edit", t.name()));
    }
  }
  proof.ok = proof.problems.empty();
  return proof;
}

}  // namespace archpatch::hazard
