// archpatch status: placeholder until its stage lands (see the issue that owns it).
#include "cli/command.h"
#include "util/result.h"

namespace archpatch::cli {

int RunStatus(const Context&, const std::vector<std::string>&) {
  throw Fatal("'status' is not implemented yet");
}

}  // namespace archpatch::cli
