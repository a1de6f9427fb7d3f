#include "coordinator/serving/rendezvous.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/rand.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hpcreward {

std::string random_token() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("OpenSSL RAND_bytes failed");
  static const char digits[] = "0123456789abcdef";
  std::string token;
  for (unsigned char byte : bytes) {
    token += digits[byte >> 4];
    token += digits[byte & 15];
  }
  return token;
}

void write_token_file(const std::filesystem::path &path, const std::string &token) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);  // a new file, so no old mode or owner carries over
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) throw std::runtime_error("cannot create token file " + path.string() + ": " + std::strerror(errno));
  const std::string text = token + "\n";
  const bool ok = ::fchmod(fd, S_IRUSR | S_IWUSR) == 0 &&
                  ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write token file " + path.string() + ": " + std::strerror(saved));
}

std::pair<std::string, int> parse_listen_address(const std::string &text) {
  const std::size_t colon = text.rfind(':');
  const std::string usage = "--listen " + text + ": expected HOST:PORT, e.g. 0.0.0.0:0 (any free port) or 127.0.0.1:8731";
  if (colon == std::string::npos || colon + 1 == text.size()) throw std::invalid_argument(usage);
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = text.substr(colon + 1);
  if (host.empty() || port_text.find_first_not_of("0123456789") != std::string::npos || port_text.size() > 5)
    throw std::invalid_argument(usage);
  const int port = std::stoi(port_text);
  if (port > 65535) throw std::invalid_argument(usage + " (ports go up to 65535)");
  return {host, port};
}

bool resolves(const std::string &name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  if (::getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0) return false;
  ::freeaddrinfo(found);
  return true;
}

std::string advertised_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0 && name[0] && resolves(name)) return name;
  // A machine whose own name does not resolve (no /etc/hosts entry, no DNS): its first
  // non-loopback IPv4 address still reaches it from the cluster network.
  std::string address = "127.0.0.1";
  ifaddrs *interfaces = nullptr;
  if (::getifaddrs(&interfaces) != 0) return address;
  for (const ifaddrs *entry = interfaces; entry != nullptr; entry = entry->ifa_next) {
    if (!entry->ifa_addr || entry->ifa_addr->sa_family != AF_INET || (entry->ifa_flags & IFF_LOOPBACK) ||
        !(entry->ifa_flags & IFF_UP))
      continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto *ipv4 = reinterpret_cast<const sockaddr_in *>(entry->ifa_addr);
    if (::inet_ntop(AF_INET, &ipv4->sin_addr, text, sizeof text)) {
      address = text;
      break;
    }
  }
  ::freeifaddrs(interfaces);
  return address;
}

std::string endpoint_url(const std::string &listen_host, int port, bool tls) {
  std::string host = listen_host;
  if (host.empty() || host == "0.0.0.0" || host == "::") host = advertised_host();
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return (tls ? "https://" : "http://") + host + ":" + std::to_string(port);
}

std::string url_host(const std::string &url) {
  std::string rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  if (!rest.empty() && rest.front() == '[') return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find_first_of(":/"));
}

std::filesystem::path write_rendezvous(const std::filesystem::path &dir, const std::string &url,
                                       const std::filesystem::path &token_file, long pid,
                                       const std::filesystem::path &tls_cert) {
  const std::filesystem::path path = dir / "coordinator.json";
  const std::filesystem::path temporary = dir / "coordinator.json.tmp";
  nlohmann::json content = {{"url", url}, {"token_file", std::filesystem::absolute(token_file).string()},
                            {"pid", pid}};
  if (!tls_cert.empty()) content["tls_cert"] = std::filesystem::absolute(tls_cert).string();
  {
    std::ofstream file(temporary);
    file << content.dump(2) << "\n";
    if (!file) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, path);
  return path;
}

}  // namespace hpcreward
