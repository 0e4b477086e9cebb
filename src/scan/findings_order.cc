#include "scan/findings_order.h"

namespace archpatch::scan {

std::vector<size_t> FindingsRoundOrder(const std::vector<size_t>& largest_first,
                                       const std::function<OrderFacts(size_t index)>& facts) {
  std::vector<OrderFacts> known;
  known.reserve(largest_first.size());
  for (size_t index : largest_first) known.push_back(facts(index));
  auto group = [](const OrderFacts& f) {
    if (f.module) return 3;
    if (f.lexed_ahead) return 1;
    if (f.size >= kLongFrom) return 2;
    return f.runtime ? 4 : 5;
  };
  std::vector<size_t> order;
  order.reserve(largest_first.size());
  for (int g = 1; g <= 5; ++g) {
    for (size_t k = 0; k < largest_first.size(); ++k) {
      if (group(known[k]) == g) order.push_back(largest_first[k]);
    }
  }
  return order;
}

}  // namespace archpatch::scan
