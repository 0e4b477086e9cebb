// SHA-256 through OpenSSL's libcrypto (EVP), in the two spellings archpatch needs.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace archpatch::env {

std::string Sha256Hex(std::string_view bytes);         // 64 lowercase hex digits
std::string Sha256UrlsafeB64(std::string_view bytes);  // RECORD's form: urlsafe base64, no '='
// The same of a file's bytes, read in bounded pieces (memory does not grow with the file).
Result<std::string> Sha256UrlsafeB64OfFile(const std::filesystem::path& path);

// A SHA-256 fed in pieces, for bytes that arrive in pieces (Disk::ReadPieces).
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void Update(std::string_view bytes);
  std::string UrlsafeB64();  // RECORD's form of the digest of every piece so far; call once

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

}  // namespace archpatch::env
