#include "common/byte_codec.hpp"

#include <bit>
#include <limits>

namespace hpcreward {

// Bytes assembled by shifts (so the host's byte order never matters), then appended at once.
void ByteWriter::u32(std::uint32_t value) {
  char bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  bytes_.append(bytes, sizeof bytes);
}

void ByteWriter::u64(std::uint64_t value) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  bytes_.append(bytes, sizeof bytes);
}

void ByteWriter::f64(double value) {
  static_assert(std::numeric_limits<double>::is_iec559, "doubles travel as IEEE 754 binary64");
  u64(std::bit_cast<std::uint64_t>(value));
}

void ByteWriter::count(std::size_t value) {
  if (value > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("binary message: a string or list of " + std::to_string(value) +
                            " items is over the 32-bit length limit");
  u32(static_cast<std::uint32_t>(value));
}

void ByteWriter::string(std::string_view value) {
  count(value.size());
  bytes_.append(value);
}

void ByteWriter::strings(const std::vector<std::string> &values) {
  count(values.size());
  for (const std::string &value : values) string(value);
}

std::string_view ByteReader::take(const char *field, std::size_t size) {
  const std::size_t left = bytes_.size() - offset_;
  if (size > left)
    throw MessageDecodeError("binary message truncated: " + std::string(field) + " needs " + std::to_string(size) +
                             " bytes at offset " + std::to_string(offset_) + ", only " + std::to_string(left) +
                             " left");
  const std::string_view part = bytes_.substr(offset_, size);
  offset_ += size;
  return part;
}

std::uint8_t ByteReader::u8(const char *field) { return static_cast<std::uint8_t>(take(field, 1)[0]); }

std::uint32_t ByteReader::u32(const char *field) {
  const std::string_view part = take(field, 4);
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(part[static_cast<std::size_t>(i)]);
  return value;
}

std::uint64_t ByteReader::u64(const char *field) {
  const std::string_view part = take(field, 8);
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(part[static_cast<std::size_t>(i)]);
  return value;
}

double ByteReader::f64(const char *field) { return std::bit_cast<double>(u64(field)); }

bool ByteReader::boolean(const char *field) {
  const std::size_t at = offset_;
  const std::uint8_t value = u8(field);
  if (value > 1)
    throw MessageDecodeError("binary message: " + std::string(field) + " at offset " + std::to_string(at) +
                             " is " + std::to_string(value) + ", not a bool (0 or 1)");
  return value == 1;
}

std::size_t ByteReader::count(const char *field, std::size_t min_item_bytes) {
  const std::size_t at = offset_;
  const std::size_t items = u32(field);
  const std::size_t left = bytes_.size() - offset_;
  if (min_item_bytes > 0 && items > left / min_item_bytes)
    throw MessageDecodeError("binary message truncated: " + std::string(field) + " at offset " + std::to_string(at) +
                             " claims " + std::to_string(items) + " items, more than the " + std::to_string(left) +
                             " bytes left can hold");
  return items;
}

std::string ByteReader::string(const char *field) {
  const std::size_t size = u32(field);
  return std::string(take(field, size));  // take refuses a size past the end before anything is copied
}

std::vector<std::string> ByteReader::strings(const char *field) {
  std::vector<std::string> values(count(field, 4));  // each item has at least its length
  for (std::string &value : values) value = string(field);
  return values;
}

void ByteReader::expect_end(const char *message) const {
  if (offset_ != bytes_.size())
    throw MessageDecodeError("binary " + std::string(message) + " oversized: " +
                             std::to_string(bytes_.size() - offset_) + " bytes left over after its last field (at offset " +
                             std::to_string(offset_) + " of " + std::to_string(bytes_.size()) + ")");
}

}  // namespace hpcreward
