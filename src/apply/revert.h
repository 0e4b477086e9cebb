// Revert: put back, byte for byte, what apply changed (store/transaction.h), under the
// exclusive lock (apply/lock.h), rolling back a half-done transaction first.
#pragma once

#include <string>
#include <vector>

#include "apply/context.h"
#include "apply/lock.h"
#include "env/environment.h"
#include "store/transaction.h"

namespace archpatch::apply {

struct RevertReport {
  store::RecoveryOutcome recovered;
  std::vector<store::RevertItem> items;  // newest first
  std::vector<std::string> messages;     // one per item, for people
  std::vector<std::string> notes;
  bool changed() const;  // something was reverted or retired
  bool refused() const;  // some rule was not reverted
};

// `request.matches_record` is filled in from `env` when empty. Errors (an unknown rule or
// package) are input errors: UsageError.
RevertReport Revert(store::Disk& disk, Locker& locker, const env::Environment& env, store::RevertRequest request,
                    const StoreOptions& options);

}  // namespace archpatch::apply
