#pragma once
// Fixed-layout primitives of the binary messages (messages_binary.hpp): integers little-endian
// whatever the host's byte order, doubles as their IEEE 754 binary64 bits (NaN, infinities and
// -0 come back bit for bit), strings and lists behind a 32-bit length. The reader is strict:
// a length that runs past the end, a byte that is not 0 or 1 for a bool, or bytes left over
// throw MessageDecodeError naming the field and the offset; it never reads past its buffer.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

class MessageDecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ByteWriter {
 public:
  void u8(std::uint8_t value) { bytes_.push_back(static_cast<char>(value)); }
  void u32(std::uint32_t value);
  void u64(std::uint64_t value);
  void i32(std::int32_t value) { u32(static_cast<std::uint32_t>(value)); }
  void i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
  void f64(double value);
  void boolean(bool value) { u8(value ? 1 : 0); }
  // Throws std::length_error above 4 GiB - 1 (no message of ours comes near).
  void string(std::string_view value);
  void strings(const std::vector<std::string> &values);
  void count(std::size_t value);  // a list's length, before its items

  void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  // Reads `bytes` in place: they must outlive the reader (hence no reader of a temporary string).
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  explicit ByteReader(std::string &&) = delete;

  // `field` names what is read, for the error message.
  std::uint8_t u8(const char *field);
  std::uint32_t u32(const char *field);
  std::uint64_t u64(const char *field);
  std::int32_t i32(const char *field) { return static_cast<std::int32_t>(u32(field)); }
  std::int64_t i64(const char *field) { return static_cast<std::int64_t>(u64(field)); }
  double f64(const char *field);
  bool boolean(const char *field);
  std::string string(const char *field);
  std::vector<std::string> strings(const char *field);
  // A list's length, refused when even items of `min_item_bytes` each could not fit in what is
  // left (so a garbage count never reserves gigabytes).
  std::size_t count(const char *field, std::size_t min_item_bytes);
  // Throws unless every byte was read.
  void expect_end(const char *message) const;

  std::size_t offset() const { return offset_; }

 private:
  std::string_view take(const char *field, std::size_t size);

  std::string_view bytes_;
  std::size_t offset_ = 0;
};

}  // namespace hpcreward
