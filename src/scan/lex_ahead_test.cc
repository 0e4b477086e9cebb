#include "scan/lex_ahead.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cuda/directives.h"
#include "cuda/functions.h"
#include "cuda/tokens.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

// A header of `kernels` kernels, each behind an arch gate, as CUTLASS writes its MMA atoms.
std::string Header(int kernels) {
  std::string out = "#pragma once\n";
  for (int k = 0; k < kernels; ++k) {
    out += "#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)\n__global__ void kernel_" + std::to_string(k) +
           "(float* d) {\n  asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::);  /* fence */\n  d[0] = 1;\n}\n"
           "#else\n__global__ void kernel_" +
           std::to_string(k) + "(float* d) {}\n#endif\n";
  }
  return out;
}

class LexAheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("archpatch-lex-ahead-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

// What the findings round takes is what it would have made: the whole lexer's tokens and the
// functions found in them.
TEST_F(LexAheadTest, GivesTheTokensAndFunctionsTheFindingsRoundWouldMake) {
  const std::string text = Header(400);
  const std::string path = Write("big.hpp", text);
  LexAhead ahead(/*from=*/1024);
  ASSERT_TRUE(ahead.Start(7, path, text.size()));
  std::optional<LexedFile> lexed = ahead.Take(7);
  ASSERT_TRUE(lexed);
  EXPECT_EQ(lexed->size, text.size());
  const std::vector<cuda::Token> tokens = cuda::Tokenize(text);
  ASSERT_EQ(lexed->tokens.size(), tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    ASSERT_EQ(lexed->tokens[i].begin, tokens[i].begin) << i;
    ASSERT_EQ(lexed->tokens[i].end, tokens[i].end) << i;
    ASSERT_EQ(lexed->tokens[i].kind, tokens[i].kind) << i;
  }
  const cuda::AllFunctions functions = cuda::FindAllFunctions(tokens, text);
  ASSERT_TRUE(lexed->functions);
  EXPECT_EQ(lexed->functions->kernels.size(), functions.kernels.size());
  EXPECT_EQ(lexed->functions->kernels.size(), 800u);  // both branches' heads
  EXPECT_EQ(lexed->functions->scoped.size(), functions.scoped.size());
  // Its directives too: the first read keeps only those up to the file's last #define.
  ASSERT_TRUE(lexed->directives);
  const cuda::DirectiveScan directives = cuda::ReadDirectives(tokens, text, path);
  ASSERT_EQ(lexed->directives->branches.size(), directives.branches.size());
  EXPECT_EQ(lexed->directives->branches.size(), 800u);  // #if and #else of each kernel
  EXPECT_EQ(lexed->directives->branches.back().condition, directives.branches.back().condition);
  EXPECT_FALSE(ahead.Take(7)) << "taken once";
}

// Small files are not lexed ahead; the budget bounds the bytes lexed ahead and not yet taken; a
// file that cannot be read gives nothing (the findings round reads it and reports why).
TEST_F(LexAheadTest, LexesOnlyLargeFilesWithinItsBudget) {
  const std::string text = Header(40);
  const std::string path = Write("small.hpp", text);
  LexAhead ahead(/*from=*/text.size() + 1);
  EXPECT_FALSE(ahead.Start(0, path, text.size()));
  EXPECT_FALSE(ahead.Take(0));

  LexAhead budgeted(/*from=*/0);
  EXPECT_TRUE(budgeted.Start(1, path, LexAhead::kBudget - 10));
  EXPECT_FALSE(budgeted.Start(2, path, 11)) << "past the budget";
  EXPECT_TRUE(budgeted.Take(1));
  EXPECT_TRUE(budgeted.Start(2, path, 11)) << "the budget is given back when taken";
  EXPECT_TRUE(budgeted.Take(2));

  EXPECT_TRUE(budgeted.Start(3, (dir_ / "missing.hpp").string(), 100));
  EXPECT_FALSE(budgeted.Take(3));
}

// With a prefilter to run, the lexing thread gives Check's kinds before the tokens; without one,
// none; a file it cannot read needs every kind (the findings round reads it and says why).
TEST_F(LexAheadTest, GivesThePrefiltersKindsWhenAskedFirst) {
  const std::string text = Header(40) + "void host() { if (major < 9) return; }\n";
  const std::string path = Write("late.hpp", text);
  LexAhead ahead(/*from=*/0);
  const Prefilter check{cuda::MacroEnv{}};
  ASSERT_TRUE(ahead.Start(1, path, text.size(), check));
  std::optional<AheadKinds> kinds = ahead.Kinds(1);
  ASSERT_TRUE(kinds);
  EXPECT_TRUE(kinds->runtime);
  EXPECT_FALSE(kinds->nv_target);
  EXPECT_TRUE(ahead.Take(1)) << "the tokens are still there once the kinds are known";

  ASSERT_TRUE(ahead.Start(2, path, text.size()));
  EXPECT_FALSE(ahead.Kinds(2)) << "started without a prefilter";
  EXPECT_TRUE(ahead.Take(2));

  ASSERT_TRUE(ahead.Start(3, (dir_ / "missing.hpp").string(), 100, check));
  kinds = ahead.Kinds(3);
  ASSERT_TRUE(kinds);
  EXPECT_TRUE(kinds->runtime && kinds->nv_target);
  EXPECT_FALSE(ahead.Take(3));
}

// The work asked for runs on the threads that ask for it (the audit's workers while the package's
// macros settle), one piece each, the check before the lexing; the file they lexed is what Take
// gives, the same tokens as a file no thread got to, which Take lexes itself.
TEST_F(LexAheadTest, ThreadsThatAskRunEachPieceOfTheWorkOnce) {
  const std::string text = Header(200) + "void host() { if (major < 9) return; }\n";
  const std::string path = Write("mma.hpp", text);
  LexAhead ahead(/*from=*/1024);
  EXPECT_FALSE(ahead.RunPending()) << "nothing asked for";
  ASSERT_TRUE(ahead.Start(1, path, text.size(), Prefilter{cuda::MacroEnv{}}));
  ASSERT_TRUE(ahead.Start(2, path, text.size()));
  std::thread worker([&] {
    for (int piece = 0; piece < 3; ++piece) EXPECT_TRUE(ahead.RunPending()) << "piece " << piece;
  });
  worker.join();
  EXPECT_FALSE(ahead.RunPending()) << "file 1's check and lexing and file 2's lexing, each run once";
  std::optional<AheadKinds> kinds = ahead.Kinds(1);
  ASSERT_TRUE(kinds);
  EXPECT_TRUE(kinds->runtime);
  std::optional<LexedFile> by_worker = ahead.Take(1);
  ASSERT_TRUE(by_worker);

  ASSERT_TRUE(ahead.Start(3, path, text.size()));
  std::optional<LexedFile> by_taker = ahead.Take(3);  // no worker got to it
  ASSERT_TRUE(by_taker);
  EXPECT_FALSE(ahead.RunPending()) << "taken: not run again";
  ASSERT_EQ(by_worker->tokens.size(), by_taker->tokens.size());
  for (size_t i = 0; i < by_taker->tokens.size(); ++i)
    ASSERT_EQ(by_worker->tokens[i].end, by_taker->tokens[i].end) << i;
  EXPECT_EQ(by_worker->functions->kernels.size(), 400u);
  EXPECT_TRUE(ahead.Take(2));
}

// A file lexed in pieces by the threads that ask for work gives the lexer's tokens and the
// functions and directives found in them, whichever thread got to which piece; the same file lexed
// in pieces by Take alone too.
TEST_F(LexAheadTest, AFileLexedInPiecesByTheThreadsThatAsk) {
  std::string text = Header(300);
  text += "/* a comment across the pieces' starts\n";
  for (int line = 0; line < 400; ++line) text += "#if defined(X)\n__global__ void commented(float* d) {}\n#endif\n";
  text += "*/\n" + Header(100);
  const std::string path = Write("pieces.hpp", text);
  const std::vector<cuda::Token> tokens = cuda::Tokenize(text);
  const cuda::AllFunctions functions = cuda::FindAllFunctions(tokens, text);
  LexAhead ahead(/*from=*/1024, /*piece_bytes=*/4096);
  ASSERT_TRUE(ahead.Start(1, path, text.size()));
  ASSERT_TRUE(ahead.Start(2, path, text.size()));
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (ahead.RunPending()) {
      }
    });
  }
  for (std::thread& w : workers) w.join();
  for (const size_t index : {1, 2}) {
    std::optional<LexedFile> lexed = index == 1 ? ahead.Take(1) : std::nullopt;
    if (index == 2) {
      ASSERT_TRUE(ahead.Start(3, path, text.size()));
      lexed = ahead.Take(3);  // every piece lexed by Take
    }
    ASSERT_TRUE(lexed);
    ASSERT_EQ(lexed->tokens.size(), tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
      ASSERT_EQ(lexed->tokens[i].begin, tokens[i].begin) << i;
      ASSERT_EQ(lexed->tokens[i].end, tokens[i].end) << i;
      ASSERT_EQ(lexed->tokens[i].kind, tokens[i].kind) << i;
    }
    EXPECT_EQ(lexed->functions->kernels.size(), functions.kernels.size());
    EXPECT_EQ(lexed->functions->kernels.size(), 800u) << "those of the commented-out header are none";
    EXPECT_EQ(lexed->directives->branches.size(), 800u);
  }
  EXPECT_TRUE(ahead.Take(2));
}

// Work no thread started when the rounds are over is dropped, not run: the audit's state is left
// to the process's end at once.
TEST_F(LexAheadTest, DrainDropsTheWorkNoThreadStarted) {
  const std::string text = Header(40);
  const std::string path = Write("drained.hpp", text);
  LexAhead ahead(/*from=*/0);
  ASSERT_TRUE(ahead.Start(1, path, text.size(), Prefilter{cuda::MacroEnv{}}));
  ahead.Drain();
  EXPECT_FALSE(ahead.RunPending());
}

}  // namespace
}  // namespace archpatch::scan
