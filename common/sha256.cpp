#include "common/sha256.hpp"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

namespace hpcreward {
namespace {

// Fetched once: EVP_sha256() makes EVP_DigestInit_ex fetch the implementation again on every
// call under OpenSSL 3 (a fifth of a short digest's cost, docs/reports/dispatch.md third round).
const EVP_MD *sha256_method() {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  static const EVP_MD *const method = [] {
    const EVP_MD *fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched ? fetched : EVP_sha256();
  }();
  return method;
#else
  return EVP_sha256();
#endif
}

struct ContextFree {
  void operator()(EVP_MD_CTX *context) const { EVP_MD_CTX_free(context); }
};

// One context per thread, reset by each digest's init, instead of one allocation per digest.
EVP_MD_CTX *thread_context() {
  thread_local std::unique_ptr<EVP_MD_CTX, ContextFree> context(EVP_MD_CTX_new());
  if (!context) throw std::runtime_error("OpenSSL EVP_MD_CTX_new failed");
  return context.get();
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  EVP_MD_CTX *context = thread_context();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestInit_ex(context, sha256_method(), nullptr) != 1 ||
      EVP_DigestUpdate(context, data.data(), data.size()) != 1 || EVP_DigestFinal_ex(context, digest, &length) != 1)
    throw std::runtime_error("OpenSSL SHA-256 digest failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '\0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

}  // namespace hpcreward
