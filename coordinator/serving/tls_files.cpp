#include "coordinator/serving/tls_files.hpp"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace hpcreward {
namespace {

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T *pointer) const { Free(pointer); }
};
using Bio = std::unique_ptr<BIO, Deleter<BIO_free>>;
using Certificate = std::unique_ptr<X509, Deleter<X509_free>>;
using PrivateKey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;

const char *const kHowTo = "coordinator/README.md, \"HTTPS\", shows how to make them";

std::string file_text(const std::filesystem::path &path) {
  std::ifstream file(path);
  return {std::istreambuf_iterator<char>(file), {}};
}

// The file opened for reading, or an error naming the option and what is wrong.
Bio open_file(const char *option, const std::filesystem::path &path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory && error != std::errc::not_a_directory)
    throw std::invalid_argument("cannot read " + std::string(option) + " " + path.string() + ": " + error.message() +
                                " (the user running the coordinator must be able to read it)");
  if (!std::filesystem::exists(status))
    throw std::invalid_argument(std::string(option) + " " + path.string() + ": no such file (" + kHowTo + ")");
  if (std::filesystem::is_directory(status))
    throw std::invalid_argument(std::string(option) + " " + path.string() + " is a directory; give the PEM file");
  errno = 0;
  Bio bio(BIO_new_file(path.c_str(), "r"));
  if (!bio)
    throw std::invalid_argument("cannot read " + std::string(option) + " " + path.string() + ": " +
                                (errno ? std::strerror(errno) : "OpenSSL cannot open it") +
                                " (the user running the coordinator must be able to read it)");
  return bio;
}

std::string time_text(const ASN1_TIME *time) {
  Bio memory(BIO_new(BIO_s_mem()));
  ASN1_TIME_print(memory.get(), time);
  char *data = nullptr;
  const long size = BIO_get_mem_data(memory.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

Certificate read_certificate(const std::filesystem::path &path) {
  Bio bio = open_file("--tls-cert", path);
  Certificate certificate(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!certificate) {
    const bool is_key = file_text(path).find("PRIVATE KEY-----") != std::string::npos;
    throw std::invalid_argument("--tls-cert " + path.string() + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)" +
                                (is_key ? ": it is a private key; did you swap --tls-cert and --tls-key?"
                                        : std::string("; ") + kHowTo));
  }
  if (X509_cmp_current_time(X509_get0_notAfter(certificate.get())) < 0)
    throw std::invalid_argument("--tls-cert " + path.string() + " expired on " +
                                time_text(X509_get0_notAfter(certificate.get())) + ": make a new one (" + kHowTo + ")");
  if (X509_cmp_current_time(X509_get0_notBefore(certificate.get())) > 0)
    throw std::invalid_argument("--tls-cert " + path.string() + " is not valid before " +
                                time_text(X509_get0_notBefore(certificate.get())) +
                                " (is this node's clock right?)");
  return certificate;
}

// OpenSSL asks for a passphrase only for an encrypted key; the coordinator has none to give.
extern "C" int refuse_passphrase(char *, int, int, void *asked) {
  *static_cast<bool *>(asked) = true;
  return -1;
}

PrivateKey read_key(const std::filesystem::path &path) {
  Bio bio = open_file("--tls-key", path);
  bool asked = false;
  PrivateKey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_passphrase, &asked));
  if (asked)
    throw std::invalid_argument("--tls-key " + path.string() + " is encrypted (it needs a passphrase, which the "
                                "coordinator cannot ask for): write it out unencrypted, readable by you only: "
                                "openssl pkey -in " + path.string() + " -out node.key && chmod 600 node.key");
  if (!key) {
    const bool is_certificate = file_text(path).find("BEGIN CERTIFICATE") != std::string::npos;
    throw std::invalid_argument("--tls-key " + path.string() + " holds no PEM private key (-----BEGIN PRIVATE KEY-----)" +
                                (is_certificate ? ": it is a certificate; did you swap --tls-cert and --tls-key?"
                                                : std::string("; ") + kHowTo));
  }
  return key;
}

}  // namespace

TlsFiles check_tls_files(const std::optional<std::string> &cert, const std::optional<std::string> &key) {
  if (!cert && !key) return {};
  if (!cert || !key)
    throw std::invalid_argument(std::string(cert ? "--tls-cert without --tls-key" : "--tls-key without --tls-cert") +
                                ": HTTPS needs both the certificate and its private key (or neither, for plain HTTP)");
  if (cert->empty() || key->empty())
    throw std::invalid_argument("--tls-cert and --tls-key need file names (or leave both out for plain HTTP)");
  TlsFiles files{std::filesystem::absolute(*cert), std::filesystem::absolute(*key)};
  Certificate certificate = read_certificate(files.cert);
  PrivateKey private_key = read_key(files.key);
  if (X509_check_private_key(certificate.get(), private_key.get()) != 1)
    throw std::invalid_argument("--tls-key " + files.key.string() + " does not match the certificate in --tls-cert " +
                                files.cert.string() + " (its public key is another key's): give the key the "
                                "certificate was made with");
  return files;
}

std::optional<std::string> certificate_host_warning(const std::filesystem::path &cert, const std::string &host) {
  Certificate certificate = read_certificate(cert);
  std::string name = host;
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  if (X509_check_ip_asc(certificate.get(), name.c_str(), 0) == 1 ||
      X509_check_host(certificate.get(), name.c_str(), name.size(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS,
                      nullptr) == 1)
    return std::nullopt;
  std::string names;
  auto *entries = static_cast<GENERAL_NAMES *>(X509_get_ext_d2i(certificate.get(), NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; entries && i < sk_GENERAL_NAME_num(entries); ++i) {
    const GENERAL_NAME *entry = sk_GENERAL_NAME_value(entries, i);
    int type = 0;
    const auto *value = static_cast<const ASN1_STRING *>(GENERAL_NAME_get0_value(entry, &type));
    std::string text;
    if (type == GEN_DNS) {
      text = "DNS:" + std::string(reinterpret_cast<const char *>(ASN1_STRING_get0_data(value)),
                                  static_cast<std::size_t>(ASN1_STRING_length(value)));
    } else if (type == GEN_IPADD) {
      const unsigned char *bytes = ASN1_STRING_get0_data(value);
      if (ASN1_STRING_length(value) == 4)
        text = "IP:" + std::to_string(bytes[0]) + "." + std::to_string(bytes[1]) + "." + std::to_string(bytes[2]) +
               "." + std::to_string(bytes[3]);
      else
        text = "IP:(IPv6)";
    }
    if (!text.empty()) names += (names.empty() ? "" : ", ") + text;
  }
  GENERAL_NAMES_free(entries);
  unsigned char address[16];
  const bool is_ip = inet_pton(AF_INET, name.c_str(), address) == 1 || inet_pton(AF_INET6, name.c_str(), address) == 1;
  return "warning: --tls-cert " + cert.string() + " does not name " + name + ", the host in the URL trainers get (" +
         (names.empty() ? std::string("it has no subjectAltName") : "it names " + names) +
         "): clients that verify it will refuse the connection. Make one with subjectAltName=" +
         (is_ip ? "IP:" : "DNS:") + name +
         " (coordinator/README.md, \"HTTPS\"), or --listen on a name it has";
}

}  // namespace hpcreward
