#include "coordinator/serving/tls_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "tests/coordinator/test_certificates.hpp"

namespace hpcreward {
namespace {

using tls_test::make_certificate;

class TlsFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tls_test::have_openssl()) GTEST_SKIP() << "no openssl command to make test certificates";
    dir_ = tls_test::certificate_dir("hpcreward-tls-files");
    node_ = make_certificate(dir_, "node");
    other_ = make_certificate(dir_, "other");
    ASSERT_FALSE(node_.cert.empty() || other_.cert.empty()) << "openssl req failed";
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // The message check_tls_files throws for these arguments ("" when it does not throw).
  static std::string error_of(const std::optional<std::string> &cert, const std::optional<std::string> &key) {
    try {
      check_tls_files(cert, key);
    } catch (const std::invalid_argument &error) {
      return error.what();
    }
    return "";
  }

  std::filesystem::path dir_;
  tls_test::TestCertificate node_, other_;
};

#define EXPECT_MENTIONS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(TlsFilesTest, NeitherIsPlainHttpAndBothAreChecked) {
  EXPECT_FALSE(check_tls_files(std::nullopt, std::nullopt).enabled());
  TlsFiles files = check_tls_files(node_.cert.string(), node_.key.string());
  EXPECT_TRUE(files.enabled());
  EXPECT_EQ(files.cert, node_.cert);
  EXPECT_EQ(files.key, node_.key);
  EXPECT_TRUE(files.cert.is_absolute());
}

TEST_F(TlsFilesTest, OneWithoutTheOtherIsRefused) {
  const std::string no_key = error_of(node_.cert.string(), std::nullopt);
  EXPECT_MENTIONS(no_key, "--tls-cert without --tls-key");
  EXPECT_MENTIONS(no_key, "both");
  EXPECT_MENTIONS(error_of(std::nullopt, node_.key.string()), "--tls-key without --tls-cert");
  EXPECT_MENTIONS(error_of(std::string(), std::string()), "need file names");
}

TEST_F(TlsFilesTest, MissingDirectoryOrNotPemFilesSaySo) {
  const std::string missing = error_of((dir_ / "nope.pem").string(), node_.key.string());
  EXPECT_MENTIONS(missing, "--tls-cert " + (dir_ / "nope.pem").string() + ": no such file");
  EXPECT_MENTIONS(error_of(node_.cert.string(), (dir_ / "nope.key").string()), "--tls-key");
  EXPECT_MENTIONS(error_of(dir_.string(), node_.key.string()), "is a directory");
  std::ofstream(dir_ / "garbage.pem") << "not a certificate\n";
  EXPECT_MENTIONS(error_of((dir_ / "garbage.pem").string(), node_.key.string()), "holds no PEM certificate");
  EXPECT_MENTIONS(error_of(node_.cert.string(), (dir_ / "garbage.pem").string()), "holds no PEM private key");
}

// error_of in a child that runs as nobody when this test runs as root (which reads any file).
std::string error_as_non_root(const std::filesystem::path &cert, const std::filesystem::path &key) {
  if (::geteuid() != 0) {
    try {
      check_tls_files(cert.string(), key.string());
    } catch (const std::invalid_argument &error) {
      return error.what();
    }
    return "";
  }
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string message = "setuid failed";
    if (::setgid(65534) == 0 && ::setuid(65534) == 0) {
      message.clear();
      try {
        check_tls_files(cert.string(), key.string());
      } catch (const std::invalid_argument &error) {
        message = error.what();
      }
    }
    [[maybe_unused]] auto written = ::write(pipe_fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, got);
  ::close(pipe_fds[0]);
  ::waitpid(child, nullptr, 0);
  return message;
}

TEST_F(TlsFilesTest, UnreadableFileIsRefused) {
  const auto locked = dir_ / "locked.pem";
  std::filesystem::copy_file(node_.cert, locked);
  ::chmod(locked.c_str(), 0);
  const std::string error = error_as_non_root(locked, node_.key);
  EXPECT_MENTIONS(error, "cannot read --tls-cert " + locked.string());
  EXPECT_MENTIONS(error, "Permission denied");
  EXPECT_MENTIONS(error, "must be able to read it");
}

TEST_F(TlsFilesTest, SwappedFilesAreNamed) {
  EXPECT_MENTIONS(error_of(node_.key.string(), node_.cert.string()), "did you swap --tls-cert and --tls-key?");
  EXPECT_MENTIONS(error_of(node_.cert.string(), node_.cert.string()), "did you swap");
}

TEST_F(TlsFilesTest, KeyOfAnotherCertificateIsRefused) {
  const std::string error = error_of(node_.cert.string(), other_.key.string());
  EXPECT_MENTIONS(error, "--tls-key " + other_.key.string() + " does not match the certificate in --tls-cert " +
                             node_.cert.string());
}

TEST_F(TlsFilesTest, EncryptedKeyIsRefusedWithTheCommandThatDecryptsIt) {
  const auto encrypted = dir_ / "encrypted.key";
  const std::string command = "openssl pkey -in " + node_.key.string() + " -aes256 -passout pass:secret -out " +
                              encrypted.string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string error = error_of(node_.cert.string(), encrypted.string());
  EXPECT_MENTIONS(error, "is encrypted");
  EXPECT_MENTIONS(error, "openssl pkey -in " + encrypted.string());
}

TEST_F(TlsFilesTest, HostWarningUnlessTheCertificateNamesTheHost) {
  EXPECT_FALSE(certificate_host_warning(node_.cert, "localhost"));
  EXPECT_FALSE(certificate_host_warning(node_.cert, "127.0.0.1"));
  const auto warning = certificate_host_warning(node_.cert, "node17");
  ASSERT_TRUE(warning);
  EXPECT_MENTIONS(*warning, "does not name node17");
  EXPECT_MENTIONS(*warning, "it names DNS:localhost, IP:127.0.0.1");
  EXPECT_MENTIONS(*warning, "subjectAltName=DNS:node17");
  const auto by_address = certificate_host_warning(node_.cert, "10.1.2.3");
  ASSERT_TRUE(by_address);
  EXPECT_MENTIONS(*by_address, "subjectAltName=IP:10.1.2.3");
}

}  // namespace
}  // namespace hpcreward
