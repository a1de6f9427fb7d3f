#include "coordinator/serving/rendezvous.hpp"

#include <gtest/gtest.h>
#include <netdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace hpcreward {
namespace {

std::filesystem::path fresh_dir(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Rendezvous, TokensAreRandomHex) {
  const std::string a = random_token(), b = random_token();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
}

TEST(Rendezvous, TokenFileIsOwnerOnlyEvenOverAnOldOne) {
  const auto dir = fresh_dir("hpcreward-token");
  const auto path = dir / "coordinator.token";
  std::ofstream(path) << "old";
  std::filesystem::permissions(path, std::filesystem::perms::all);
  const mode_t old_mask = umask(0);
  write_token_file(path, "abc");
  umask(old_mask);
  struct stat info = {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  std::ifstream file(path);
  std::string token;
  file >> token;
  EXPECT_EQ(token, "abc");
  std::filesystem::remove_all(dir);
}

TEST(Rendezvous, JsonNamesUrlTokenFileAndPid) {
  const auto dir = fresh_dir("hpcreward-rendezvous");
  const auto path = write_rendezvous(dir, "http://host:1234", dir / "coordinator.token", 4321);
  EXPECT_EQ(path, dir / "coordinator.json");
  std::ifstream file(path);
  const auto json = nlohmann::json::parse(file);
  EXPECT_EQ(json["url"], "http://host:1234");
  EXPECT_EQ(json["token_file"], (dir / "coordinator.token").string());
  EXPECT_EQ(json["pid"], 4321);
  EXPECT_FALSE(std::filesystem::exists(dir / "coordinator.json.tmp"));
  std::filesystem::remove_all(dir);
}

TEST(Rendezvous, HttpsRendezvousNamesTheCertificateToTrust) {
  const auto dir = fresh_dir("hpcreward-rendezvous-tls");
  write_rendezvous(dir, "https://node17:1234", dir / "coordinator.token", 4321, "/etc/hpcreward/node17.pem");
  std::ifstream file(dir / "coordinator.json");
  const auto json = nlohmann::json::parse(file);
  EXPECT_EQ(json["url"], "https://node17:1234");
  EXPECT_EQ(json["tls_cert"], "/etc/hpcreward/node17.pem");
  write_rendezvous(dir, "http://node17:1234", dir / "coordinator.token", 4321);
  EXPECT_FALSE(nlohmann::json::parse(std::ifstream(dir / "coordinator.json")).contains("tls_cert"))
      << "plain HTTP runs stay as they were";
  std::filesystem::remove_all(dir);
}

TEST(Rendezvous, ListenAddressAndUrl) {
  EXPECT_EQ(parse_listen_address("0.0.0.0:0"), std::make_pair(std::string("0.0.0.0"), 0));
  EXPECT_EQ(parse_listen_address("127.0.0.1:8731"), std::make_pair(std::string("127.0.0.1"), 8731));
  EXPECT_EQ(parse_listen_address("[::1]:80"), std::make_pair(std::string("::1"), 80));
  for (const char *bad : {"8080", "host:", ":80", "host:http", "host:70000"})
    EXPECT_THROW(parse_listen_address(bad), std::invalid_argument) << bad;
  EXPECT_EQ(endpoint_url("127.0.0.1", 80), "http://127.0.0.1:80");
  EXPECT_EQ(endpoint_url("::1", 80), "http://[::1]:80");
  EXPECT_EQ(endpoint_url("0.0.0.0", 5), "http://" + advertised_host() + ":5");
  EXPECT_EQ(endpoint_url("127.0.0.1", 443, true), "https://127.0.0.1:443");
  EXPECT_EQ(url_host("https://node17:443"), "node17");
  EXPECT_EQ(url_host("http://[::1]:80"), "::1");
}

TEST(Rendezvous, AdvertisedHostResolvesEvenWithoutAHostsEntry) {
  // Whatever the machine (a fresh one may have no /etc/hosts line for its own name), the
  // address in coordinator.json must resolve, or every trainer's first request fails.
  const std::string host = advertised_host();
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  ASSERT_EQ(getaddrinfo(host.c_str(), nullptr, &hints, &found), 0) << host;
  freeaddrinfo(found);
}

}  // namespace
}  // namespace hpcreward
