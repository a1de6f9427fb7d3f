#pragma once
// Serve mode's HTTPS files: --tls-cert (PEM certificate, or chain with the server's first)
// and --tls-key (its PEM private key, unencrypted). Checked at start, before the log exists,
// so a wrong file is a clear error, not a server that refuses every handshake.
#include <filesystem>
#include <optional>
#include <string>

namespace hpcreward {

struct TlsFiles {
  std::filesystem::path cert;  // absolute; empty: plain HTTP
  std::filesystem::path key;   // absolute
  bool enabled() const { return !cert.empty(); }
};

// Both or neither. Throws std::invalid_argument saying what to fix: only one given, a file
// missing or unreadable, not PEM, an encrypted key, a key that does not match the
// certificate, a certificate that has expired.
TlsFiles check_tls_files(const std::optional<std::string> &cert, const std::optional<std::string> &key);

// A warning when the certificate names neither `host` (a DNS name, or an IP address)
// among its subjectAltName entries: clients that verify it (the Python client does) will
// refuse the URL. nullopt when it names the host.
std::optional<std::string> certificate_host_warning(const std::filesystem::path &cert, const std::string &host);

}  // namespace hpcreward
