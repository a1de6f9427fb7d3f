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

Datatype make_string_type(std::size_t size, H5T_cset_t cset = H5T_CSET_UTF8) {
  Datatype type(check_type(H5Tcopy(H5T_C_S1), "string type"));
  check_type(H5Tset_size(type.get(), size), "string type");
  // Null padding, not termination: a 64-digit hash fills its 64-byte field exactly.
  check_type(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "string type");
  check_type(H5Tset_cset(type.get(), cset), "string type");
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

// Is this column a string column? (Dispatch on the variant's alternative.)
template <typename Record, typename Field>
constexpr bool is_string_column() {
  return std::is_same_v<std::decay_t<Field>, StringColumn<Record>>;
}

template <typename Record>
std::size_t field_size(const Column<Record> &field) {
  return std::visit(
      [](const auto &f) -> std::size_t {
        if constexpr (is_string_column<Record, decltype(f)>())
          return f.size;
        else
          return sizeof(typename std::decay_t<decltype(f)>::value_type);
      },
      field);
}

template <typename Record>
struct Layout {
  static constexpr std::size_t kColumns = columns_of<Record>().size();
  std::array<std::size_t, kColumns> offsets{};
  std::size_t size = 0;
};

template <typename Record>
const Layout<Record> &layout() {
  static const Layout<Record> result = [] {
    Layout<Record> computed;
    const auto &columns = columns_of<Record>();
    for (std::size_t i = 0; i < columns.size(); ++i) {
      computed.offsets[i] = computed.size;
      computed.size += field_size<Record>(columns[i]);
    }
    return computed;
  }();
  return result;
}

template <typename Record>
constexpr const char *type_name() {
  if constexpr (std::is_same_v<Record, RewardRow>)
    return "/rewards type";
  else if constexpr (std::is_same_v<Record, StageEventRecord>)
    return "/stage_events type";
  else if constexpr (std::is_same_v<Record, RankEventRecord>)
    return "/rank_events type";
  else
    return "/archive type";
}

// Builds the compound type of Record from the columns for which `keep(name)` is true, each
// string column in the character set `cset_of(name)`.
template <typename Record, typename Keep, typename Cset>
Datatype build_type(TypeFor use, Keep keep, Cset cset_of) {
  const Layout<Record> &offsets = layout<Record>();
  const auto &columns = columns_of<Record>();
  Datatype compound(check_type(H5Tcreate(H5T_COMPOUND, offsets.size), type_name<Record>()));
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::string name(field_name<Record>(columns[i]));
    if (!keep(name)) continue;
    std::visit(
        [&](const auto &f) {
          if constexpr (is_string_column<Record, decltype(f)>()) {
            Datatype string_type = make_string_type(f.size, cset_of(name));
            check_type(
                H5Tinsert(compound.get(), name.c_str(), offsets.offsets[i], string_type.get()),
                type_name<Record>());
          } else {
            using T = typename std::decay_t<decltype(f)>::value_type;
            check_type(
                H5Tinsert(compound.get(), name.c_str(), offsets.offsets[i], number_type<T>(use)),
                type_name<Record>());
          }
        },
        columns[i]);
  }
  return compound;
}

}  // namespace

template <typename Record>
std::size_t record_size() {
  return layout<Record>().size;
}

template <typename Record>
Datatype make_record_type(TypeFor use) {
  return build_type<Record>(
      use, [](const std::string &) { return true; }, [](const std::string &) { return H5T_CSET_UTF8; });
}

template <typename Record>
Datatype make_memory_type_for(hid_t file_type) {
  const auto keep = [&](const std::string &name) { return H5Tget_member_index(file_type, name.c_str()) >= 0; };
  // The file's own character set: HDF5 converts no string between sets, and a log made with
  // h5py from NumPy byte strings declares ASCII where the writer declares UTF-8.
  const auto cset_of = [&](const std::string &name) {
    const int index = H5Tget_member_index(file_type, name.c_str());
    if (index < 0) return H5T_CSET_UTF8;
    Datatype member(check_type(H5Tget_member_type(file_type, static_cast<unsigned>(index)), type_name<Record>()));
    const H5T_cset_t cset = H5Tget_class(member.get()) == H5T_STRING ? H5Tget_cset(member.get()) : H5T_CSET_ERROR;
    return cset == H5T_CSET_ERROR ? H5T_CSET_UTF8 : cset;
  };
  return build_type<Record>(TypeFor::memory, keep, cset_of);
}

template <typename Record>
bool is_current_file_type(hid_t file_type) {
  Datatype expected = make_record_type<Record>(TypeFor::file);
  return H5Tequal(file_type, expected.get()) > 0;
}

template <typename Record>
void encode_record(const Record &value, std::byte *record) {
  const Layout<Record> &offsets = layout<Record>();
  const auto &columns = columns_of<Record>();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    std::byte *out = record + offsets.offsets[i];
    std::visit(
        [&](const auto &f) {
          if constexpr (is_string_column<Record, decltype(f)>()) {
            const std::string_view text = truncate_utf8(value.*f.member, f.size);
            std::memset(out, 0, f.size);
            std::memcpy(out, text.data(), text.size());
          } else {
            std::memcpy(out, &(value.*f.member), sizeof(value.*f.member));
          }
        },
        columns[i]);
  }
}

template <typename Record>
Record decode_record(const std::byte *record) {
  const Layout<Record> &offsets = layout<Record>();
  const auto &columns = columns_of<Record>();
  Record value;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::byte *in = record + offsets.offsets[i];
    std::visit(
        [&](const auto &f) {
          if constexpr (is_string_column<Record, decltype(f)>()) {
            const char *text = reinterpret_cast<const char *>(in);
            value.*f.member = std::string(text, strnlen(text, f.size));
          } else {
            std::memcpy(&(value.*f.member), in, sizeof(value.*f.member));
          }
        },
        columns[i]);
  }
  return value;
}

#define HPCREWARD_RECORD_SCHEMA(Record)                                 \
  template std::size_t record_size<Record>();                           \
  template Datatype make_record_type<Record>(TypeFor);                  \
  template Datatype make_memory_type_for<Record>(hid_t);                \
  template bool is_current_file_type<Record>(hid_t);                    \
  template void encode_record<Record>(const Record &, std::byte *);     \
  template Record decode_record<Record>(const std::byte *);
HPCREWARD_RECORD_SCHEMA(RewardRow)
HPCREWARD_RECORD_SCHEMA(StageEventRecord)
HPCREWARD_RECORD_SCHEMA(ArchiveRecord)
HPCREWARD_RECORD_SCHEMA(RankEventRecord)
#undef HPCREWARD_RECORD_SCHEMA

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
