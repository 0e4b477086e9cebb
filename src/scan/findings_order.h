// The order in which the findings round takes its files (scan/audit_run.h): the longest work
// first, so that no worker starts it late. A file is analysed on one worker, and only its per-gate
// loops are shared, once other workers are idle; on 16 cores a long file taken late ends the round.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace archpatch::scan {

// What the rounds before know of a file.
struct OrderFacts {
  bool module = false;       // a Python module (scan/python_modules.h)
  bool lexed_ahead = false;  // a C/C++ file lexed ahead of the round (scan/lex_ahead.h)
  size_t size = 0;           // bytes, as the walk noted them
  bool runtime = false;      // a C/C++ file whose first read found runtime checks
};

// C/C++ files of this many bytes or more go before the Python modules.
inline constexpr size_t kLongFrom = 512 << 10;

// `largest_first` (file indexes) reordered, each group keeping that order:
// 1. the C/C++ files lexed ahead, the longest to analyse (CUTLASS's 2.8-2.9 MB headers);
// 2. the other C/C++ files of kLongFrom bytes or more: on 16 cores CUTLASS's 1 MB
//    mma_sm90_gmma.hpp and _sparse.hpp, taken after the Python modules, started 10-18 ms into the
//    round and ended it 11-21 ms later (timelines of 2026-12-07);
// 3. the Python modules: the package model waits for the last one and the prebuilt links for the
//    model; taken among the C/C++ files by size, the last small modules came at the round's end,
//    and the model and links after them (4-6 and 5-10 ms on one worker) ended the round 6-15 ms
//    after the other workers;
// 4. the C/C++ files with runtime checks: their constants are looked up in the headers they
//    include, each read at its first lookup (CUTLASS's 45 KB sm100_common.inl took 9-11 ms and,
//    taken among the small files with the 20 KB sm90_common.inl, ended the round);
// 5. the rest.
std::vector<size_t> FindingsRoundOrder(const std::vector<size_t>& largest_first,
                                       const std::function<OrderFacts(size_t index)>& facts);

}  // namespace archpatch::scan
