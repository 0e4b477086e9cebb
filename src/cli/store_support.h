// What the commands on an environment share on the command line: the environment options, and
// printing of what the apply stage reports (recovery notes, cache records). The work itself is
// in src/apply.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "apply/context.h"
#include "cli/options.h"
#include "env/environment.h"
#include "store/transaction.h"

namespace archpatch::cli {

using apply::HumanBytes;
using apply::LoadCacheKindsOrWarn;

// --python EXE | --site-packages DIR | --root DIR.
void AddEnvOptions(po::options_description& desc);
// Discovers the environment; a failure is an input error (exit 2). `read_distributions`: as
// env::EnvOptions says.
env::Environment DiscoverEnvironment(const po::variables_map& vars, bool read_distributions = true);

// Tells the user on stderr about a half-done transaction this run rolled back.
void PrintRecovery(const store::RecoveryOutcome& r);
nlohmann::json ToJson(const store::RecoveryOutcome& r);
nlohmann::json ToJson(const std::vector<store::CacheRecord>& caches);

// {"changed": ..., "failed": true, "msg": ..., "rules": []}: the --json answer of a command
// that stopped with an error (what is on disk is in `changed`).
void PrintJsonFailure(const std::string& message, bool changed = false);

}  // namespace archpatch::cli
