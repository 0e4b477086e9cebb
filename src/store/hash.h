// SHA-256 of bytes and files, as lowercase hex: the identity of every original and patched file.
#pragma once

#include <string>
#include <string_view>

namespace archpatch::store {

std::string Sha256Hex(std::string_view bytes);

}  // namespace archpatch::store
