#pragma once
// Serve mode's rendezvous: the bearer token (a file only the job owner can read) and
// OUT/coordinator.json, which tells trainers where the endpoint is.
#include <filesystem>
#include <string>
#include <utility>

namespace hpcreward {

// 32 random bytes (OpenSSL RAND_bytes) as 64 hex digits.
std::string random_token();

// Writes `token` to `path`, created anew with mode 0600 (never readable by others, even
// for a moment). Throws std::runtime_error when it cannot.
void write_token_file(const std::filesystem::path &path, const std::string &token);

// "HOST:PORT" -> {host, port}; throws std::invalid_argument saying what to fix.
std::pair<std::string, int> parse_listen_address(const std::string &text);

// This host as others reach it: its name when the name resolves, else its first
// non-loopback IPv4 address, else 127.0.0.1.
std::string advertised_host();
// The URL trainers use, http:// or (tls) https://: a wildcard listen host (0.0.0.0, ::,
// empty) becomes advertised_host().
std::string endpoint_url(const std::string &listen_host, int port, bool tls = false);
// The host part of such a URL, without brackets ("node17", "127.0.0.1", "::1").
std::string url_host(const std::string &url);

// Writes `dir`/coordinator.json {"url", "token_file", "pid"}, plus "tls_cert" (the
// certificate trainers should trust) when `tls_cert` is not empty (atomically: a reader
// never sees half a file). It names the token file, never the token. Returns its path.
std::filesystem::path write_rendezvous(const std::filesystem::path &dir, const std::string &url,
                                       const std::filesystem::path &token_file, long pid,
                                       const std::filesystem::path &tls_cert = {});

}  // namespace hpcreward
