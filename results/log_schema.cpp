#include "results/log_schema.hpp"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "results/hdf5_error.hpp"
#include "results/row_fields.hpp"
#include "results/utf8_truncate.hpp"

namespace hpcreward::h5 {

namespace {

// Building a type touches no file, so a failure here is an HDF5 bug or out-of-memory.
template <typename T>
T check_type(T status, const char *what) {
  if (status < 0)
    throw std::runtime_error(std::string("HDF5: cannot build ") + what + ": " +
                             error_stack_message());
  return status;
}

Datatype make_string_type(std::size_t size) {
  Datatype type(check_type(H5Tcopy(H5T_C_S1), "string type"));
  check_type(H5Tset_size(type.get(), size), "string type");
  // Null padding, not termination: a 64-digit hash fills its 64-byte field exactly.
  check_type(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "string type");
  check_type(H5Tset_cset(type.get(), H5T_CSET_UTF8), "string type");
  return type;
}

template <typename T>
hid_t number_type(TypeFor use) {
  if constexpr (std::is_same_v<T, double>)
    return use == TypeFor::memory ? H5T_NATIVE_DOUBLE : H5T_IEEE_F64LE;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return use == TypeFor::memory ? H5T_NATIVE_INT32 : H5T_STD_I32LE;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return use == TypeFor::memory ? H5T_NATIVE_UINT64 : H5T_STD_U64LE;
  else
    static_assert(!sizeof(T), "no HDF5 type for this column type");
}

template <typename Field>
constexpr bool is_string_field = std::is_same_v<std::decay_t<Field>, StringField>;

std::size_t field_size(const RowField &field) {
  return std::visit(
      [](const auto &f) -> std::size_t {
        if constexpr (is_string_field<decltype(f)>)
          return f.size;
        else
          return sizeof(typename std::decay_t<decltype(f)>::value_type);
      },
      field);
}

struct RowLayout {
  std::array<std::size_t, kRowFields.size()> offsets{};
  std::size_t size = 0;
};

const RowLayout &row_layout() {
  static const RowLayout layout = [] {
    RowLayout result;
    for (std::size_t i = 0; i < kRowFields.size(); ++i) {
      result.offsets[i] = result.size;
      result.size += field_size(kRowFields[i]);
    }
    return result;
  }();
  return layout;
}

}  // namespace

std::size_t row_record_size() { return row_layout().size; }

Datatype make_row_type(TypeFor use) {
  const RowLayout &layout = row_layout();
  Datatype compound(check_type(H5Tcreate(H5T_COMPOUND, layout.size), "/rewards type"));
  for (std::size_t i = 0; i < kRowFields.size(); ++i) {
    const std::string name(field_name(kRowFields[i]));
    std::visit(
        [&](const auto &f) {
          if constexpr (is_string_field<decltype(f)>) {
            Datatype string_type = make_string_type(f.size);
            check_type(
                H5Tinsert(compound.get(), name.c_str(), layout.offsets[i], string_type.get()),
                "/rewards type");
          } else {
            using T = typename std::decay_t<decltype(f)>::value_type;
            check_type(
                H5Tinsert(compound.get(), name.c_str(), layout.offsets[i], number_type<T>(use)),
                "/rewards type");
          }
        },
        kRowFields[i]);
  }
  return compound;
}

void encode_row(const RewardRow &row, std::byte *record) {
  const RowLayout &layout = row_layout();
  for (std::size_t i = 0; i < kRowFields.size(); ++i) {
    std::byte *out = record + layout.offsets[i];
    std::visit(
        [&](const auto &f) {
          if constexpr (is_string_field<decltype(f)>) {
            const std::string_view text = truncate_utf8(row.*f.member, f.size);
            std::memset(out, 0, f.size);
            std::memcpy(out, text.data(), text.size());
          } else {
            std::memcpy(out, &(row.*f.member), sizeof(row.*f.member));
          }
        },
        kRowFields[i]);
  }
}

RewardRow decode_row(const std::byte *record) {
  const RowLayout &layout = row_layout();
  RewardRow row;
  for (std::size_t i = 0; i < kRowFields.size(); ++i) {
    const std::byte *in = record + layout.offsets[i];
    std::visit(
        [&](const auto &f) {
          if constexpr (is_string_field<decltype(f)>) {
            const char *text = reinterpret_cast<const char *>(in);
            row.*f.member = std::string(text, strnlen(text, f.size));
          } else {
            std::memcpy(&(row.*f.member), in, sizeof(row.*f.member));
          }
        },
        kRowFields[i]);
  }
  return row;
}

Datatype make_source_entry_type(TypeFor use) {
  Datatype compound(check_type(H5Tcreate(H5T_COMPOUND, sizeof(SourceEntry)), "/sources type"));
  Datatype sha_type = make_string_type(kSha256Bytes);
  check_type(H5Tinsert(compound.get(), "sha256", HOFFSET(SourceEntry, sha256), sha_type.get()),
             "/sources type");
  check_type(H5Tinsert(compound.get(), "offset", HOFFSET(SourceEntry, offset),
                       number_type<std::uint64_t>(use)),
             "/sources type");
  check_type(H5Tinsert(compound.get(), "length", HOFFSET(SourceEntry, length),
                       number_type<std::uint64_t>(use)),
             "/sources type");
  return compound;
}

}  // namespace hpcreward::h5
