// archpatch verify: placeholder until its stage lands (see the issue that owns it).
#include "cli/command.h"
#include "util/result.h"

namespace archpatch::cli {

int RunVerify(const Context&, const std::vector<std::string>&) {
  throw Fatal("'verify' is not implemented yet");
}

}  // namespace archpatch::cli
