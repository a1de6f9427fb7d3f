#pragma once
// Self-signed test certificates made with the openssl command, as coordinator/README.md
// ("HTTPS") tells users to make theirs. Tests that need one skip when openssl is missing.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hpcreward::tls_test {

struct TestCertificate {
  std::filesystem::path cert;
  std::filesystem::path key;
};

inline bool have_openssl() { return std::system("openssl version >/dev/null 2>&1") == 0; }

// A fresh directory under the temp dir, named for this process.
inline std::filesystem::path certificate_dir(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// dir/NAME.pem and dir/NAME.key: an EC P-256 key and a certificate for `san`
// (e.g. "DNS:localhost,IP:127.0.0.1"). Empty paths when openssl failed.
inline TestCertificate make_certificate(const std::filesystem::path &dir, const std::string &name,
                                        const std::string &san = "DNS:localhost,IP:127.0.0.1") {
  TestCertificate made{dir / (name + ".pem"), dir / (name + ".key")};
  const std::string command = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
                              "-subj /CN=" + name + " -addext subjectAltName=" + san + " -keyout " +
                              made.key.string() + " -out " + made.cert.string() + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return {};
  return made;
}

}  // namespace hpcreward::tls_test
