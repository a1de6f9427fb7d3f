#pragma once
#include <string>
#include <string_view>

namespace hpcreward {

// Lower-case hex SHA-256 of `data` (OpenSSL's EVP interface).
std::string sha256_hex(std::string_view data);

}  // namespace hpcreward
