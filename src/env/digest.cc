#include "env/digest.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "env/libcrypto.h"

namespace archpatch::env {
namespace {

// libcrypto opened (env/libcrypto.h), or why not, before the first EVP_* call.
void RequireLibcrypto() {
  if (Status loaded = LoadLibcrypto(); !loaded) throw Fatal(loaded.error().message);
}

std::string Sha256Raw(std::string_view bytes) {
  RequireLibcrypto();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw Fatal("OpenSSL could not compute a SHA-256 digest");
  }
  return std::string(reinterpret_cast<const char*>(digest), length);
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : Sha256Raw(bytes)) out += fmt::format("{:02x}", c);
  return out;
}

namespace {

std::string UrlsafeB64(const std::string& raw) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < raw.size(); i += 3) {
    const unsigned v = (unsigned char)raw[i] << 16 | (unsigned char)raw[i + 1] << 8 | (unsigned char)raw[i + 2];
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  if (i < raw.size()) {  // 32 bytes: two left over, three characters, no padding
    unsigned v = (unsigned char)raw[i] << 16;
    if (i + 1 < raw.size()) v |= (unsigned char)raw[i + 1] << 8;
    const size_t chars = raw.size() - i + 1;
    for (size_t k = 0; k < chars; ++k) out += kAlphabet[(v >> (18 - 6 * k)) & 63];
  }
  return out;
}

}  // namespace

std::string Sha256UrlsafeB64(std::string_view bytes) { return UrlsafeB64(Sha256Raw(bytes)); }

struct Sha256Stream::Context {
  // libcrypto opened before its first call, the context's own
  static std::unique_ptr<Context> Make() {
    RequireLibcrypto();
    return std::make_unique<Context>();
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
};

Sha256Stream::Sha256Stream() : context_(Context::Make()) {
  if (!context_->ctx || EVP_DigestInit_ex(context_->ctx.get(), EVP_sha256(), nullptr) != 1) {
    throw Fatal("OpenSSL could not start a SHA-256 digest");
  }
}

Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::Update(std::string_view bytes) {
  if (!bytes.empty() && EVP_DigestUpdate(context_->ctx.get(), bytes.data(), bytes.size()) != 1) {
    throw Fatal("OpenSSL could not compute a SHA-256 digest");
  }
}

std::string Sha256Stream::UrlsafeB64() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_->ctx.get(), digest, &length) != 1) {
    throw Fatal("OpenSSL could not compute a SHA-256 digest");
  }
  return archpatch::env::UrlsafeB64(std::string(reinterpret_cast<const char*>(digest), length));
}

// Read in 1 MiB pieces: an environment's RECORD lists libtorch_cuda.so (over 1 GB), which read
// whole was the audit's peak RSS on a GPU machine.
Result<std::string> Sha256UrlsafeB64OfFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("cannot read '{}': {}", path.string(), std::strerror(errno)), {}};
  Sha256Stream digest;
  // One buffer per thread for all files: a fresh 1 MiB vector per file was zero-filled page by
  // page, and once glibc trims a thread's arena (scan::Audit sets the trim threshold) each file
  // faulted its 256 pages in again (1.8 M page faults, 3.7 s of system time on 3,400 modules).
  thread_local std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) digest.Update(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) return Error{fmt::format("cannot read '{}'", path.string()), {}};
  return digest.UrlsafeB64();
}

}  // namespace archpatch::env
