#pragma once
// Reward logs of older schemas, written with the HDF5 C API exactly as their writers wrote
// them, so that the readers' promise to read old logs is tested against the old layouts
// themselves, not against a derivation of the current one. The /rewards columns are frozen
// here on purpose:
//   schema 1: 22 /rewards columns, no /stage_events or /archive;
//   schema 2: those plus techniques, loop_order, tile_sizes, archive; /stage_events and
//             /archive (whose columns later schemas kept, so they are written with this
//             build's types); no device column;
//   schema 3: those plus device; no /rank_events;
//   schema 4: the same /rewards columns, and /rank_events (written with this build's type);
//             no measurement_key, measured_as, measured_batch;
//   schema 5: those three too; no yardstick columns, no reward_mode attribute;
//   schema 6: those plus openblas_gflops, cublas_gflops, cublaslt_gflops and the reward_mode
//             attribute; no feedback column.
#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "results/log_records.hpp"
#include "results/log_schema.hpp"
#include "results/provenance.hpp"
#include "results/reward_row.hpp"

namespace hpcreward::test_support {

namespace old_schema_detail {

struct Column {
  const char *name;
  std::variant<std::string RewardRow::*, double RewardRow::*, std::int32_t RewardRow::*,
               std::uint64_t RewardRow::*>
      member;
  std::size_t string_size = 0;  // for string columns
};

inline const std::vector<Column> &v1_columns() {
  static const std::vector<Column> kColumns = {
      {"candidate_id", &RewardRow::candidate_id, 64},
      {"batch_id", &RewardRow::batch_id, 64},
      {"problem", &RewardRow::problem, 32},
      {"stage", &RewardRow::stage, 32},
      {"status", &RewardRow::status, 24},
      {"reason", &RewardRow::reason, 256},
      {"reward", &RewardRow::reward},
      {"gflops", &RewardRow::gflops},
      {"median_s", &RewardRow::median_s},
      {"min_s", &RewardRow::min_s},
      {"iqr_s", &RewardRow::iqr_s},
      {"cv", &RewardRow::cv},
      {"reps", &RewardRow::reps},
      {"max_error", &RewardRow::max_error},
      {"compile_s", &RewardRow::compile_s},
      {"verify_s", &RewardRow::verify_s},
      {"time_s", &RewardRow::time_s},
      {"source_sha256", &RewardRow::source_sha256, 64},
      {"rank", &RewardRow::rank},
      {"host", &RewardRow::host, 64},
      {"time", &RewardRow::time},
      {"seed", &RewardRow::seed},
  };
  return kColumns;
}

inline const std::vector<Column> &v2_columns() {
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> columns = v1_columns();
    columns.push_back({"techniques", &RewardRow::techniques, 32});
    columns.push_back({"loop_order", &RewardRow::loop_order, 8});
    columns.push_back({"tile_sizes", &RewardRow::tile_sizes, 32});
    columns.push_back({"archive", &RewardRow::archive, 16});
    return columns;
  }();
  return kColumns;
}

inline const std::vector<Column> &v3_columns() {
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> columns = v2_columns();
    columns.push_back({"device", &RewardRow::device, 64});
    return columns;
  }();
  return kColumns;
}

inline const std::vector<Column> &v5_columns() {
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> columns = v3_columns();
    columns.push_back({"measurement_key", &RewardRow::measurement_key, 64});
    columns.push_back({"measured_as", &RewardRow::measured_as, 64});
    columns.push_back({"measured_batch", &RewardRow::measured_batch, 64});
    return columns;
  }();
  return kColumns;
}

inline const std::vector<Column> &v6_columns() {
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> columns = v5_columns();
    columns.push_back({"openblas_gflops", &RewardRow::openblas_gflops});
    columns.push_back({"cublas_gflops", &RewardRow::cublas_gflops});
    columns.push_back({"cublaslt_gflops", &RewardRow::cublaslt_gflops});
    return columns;
  }();
  return kColumns;
}

inline const std::vector<Column> &columns(int schema) {
  return schema == 1 ? v1_columns() : schema == 2 ? v2_columns() : schema == 5 ? v5_columns()
                                   : schema == 6 ? v6_columns() : v3_columns();
}

inline void ok(herr_t status, const char *what) {
  if (status < 0) throw std::runtime_error(std::string("old schema fixture: ") + what);
}
inline hid_t ok_id(hid_t id, const char *what) {
  if (id < 0) throw std::runtime_error(std::string("old schema fixture: ") + what);
  return id;
}

inline hid_t string_type(std::size_t size) {
  hid_t type = ok_id(H5Tcopy(H5T_C_S1), "string type");
  ok(H5Tset_size(type, size), "string size");
  ok(H5Tset_strpad(type, H5T_STR_NULLPAD), "string pad");
  ok(H5Tset_cset(type, H5T_CSET_UTF8), "string cset");
  return type;
}

inline std::size_t column_size(const Column &column) {
  return std::visit(
      [&](auto member) -> std::size_t {
        using T = std::remove_reference_t<decltype(std::declval<RewardRow>().*member)>;
        if constexpr (std::is_same_v<T, std::string>)
          return column.string_size;
        else
          return sizeof(T);
      },
      column.member);
}

// The compound type, little-endian numbers for the file or native ones for memory.
inline hid_t row_type(bool file, int schema) {
  std::size_t size = 0;
  for (const Column &column : columns(schema)) size += column_size(column);
  hid_t type = ok_id(H5Tcreate(H5T_COMPOUND, size), "compound");
  std::size_t offset = 0;
  for (const Column &column : columns(schema)) {
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(std::declval<RewardRow>().*member)>;
          if constexpr (std::is_same_v<T, std::string>) {
            hid_t s = string_type(column.string_size);
            ok(H5Tinsert(type, column.name, offset, s), "insert");
            H5Tclose(s);
          } else if constexpr (std::is_same_v<T, double>) {
            ok(H5Tinsert(type, column.name, offset, file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE),
               "insert");
          } else if constexpr (std::is_same_v<T, std::int32_t>) {
            ok(H5Tinsert(type, column.name, offset, file ? H5T_STD_I32LE : H5T_NATIVE_INT32),
               "insert");
          } else {
            ok(H5Tinsert(type, column.name, offset, file ? H5T_STD_U64LE : H5T_NATIVE_UINT64),
               "insert");
          }
        },
        column.member);
    offset += column_size(column);
  }
  return type;
}

inline hid_t extendible(hid_t file, const char *name, hid_t type, hsize_t count, hsize_t chunk) {
  const hsize_t unlimited = H5S_UNLIMITED;
  hid_t space = ok_id(H5Screate_simple(1, &count, &unlimited), "space");
  hid_t create = ok_id(H5Pcreate(H5P_DATASET_CREATE), "dcpl");
  ok(H5Pset_chunk(create, 1, &chunk), "chunk");
  hid_t dataset = ok_id(H5Dcreate2(file, name, type, space, H5P_DEFAULT, create, H5P_DEFAULT), name);
  H5Pclose(create);
  H5Sclose(space);
  return dataset;
}

// One of this build's record datasets (/stage_events, /archive), written whole.
template <typename Record>
void write_records(hid_t file, const char *name, const std::vector<Record> &records, hsize_t chunk) {
  h5::Datatype file_type = h5::make_record_type<Record>(h5::TypeFor::file);
  h5::Datatype memory_type = h5::make_record_type<Record>(h5::TypeFor::memory);
  const std::size_t size = h5::record_size<Record>();
  std::vector<std::byte> bytes(records.size() * size);
  for (std::size_t i = 0; i < records.size(); ++i) h5::encode_record(records[i], &bytes[i * size]);
  hid_t dataset = extendible(file, name, file_type.get(), records.size(), chunk);
  if (!records.empty())
    ok(H5Dwrite(dataset, memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), name);
  H5Dclose(dataset);
}

}  // namespace old_schema_detail

// Writes a closed log of `schema` (1 to 6) at `path` holding `rows` and, in /sources and
// /source_text, each of `sources` (pairs of sha256 and text); schemas 2 to 5 also `events`
// and `archive`, schemas 4 to 6 also `rank_events`.
inline void write_old_log(int schema, const std::filesystem::path &path, const std::vector<RewardRow> &rows,
                          const std::vector<std::pair<std::string, std::string>> &sources,
                          const Provenance &provenance, const std::vector<StageEventRecord> &events = {},
                          const std::vector<ArchiveRecord> &archive = {},
                          const std::vector<RankEventRecord> &rank_events = {}) {
  using namespace old_schema_detail;
  if (schema < 1 || schema > 6) throw std::invalid_argument("old schema fixture: schema 1 to 6");
  hid_t access = ok_id(H5Pcreate(H5P_FILE_ACCESS), "fapl");
  ok(H5Pset_libver_bounds(access, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), "libver");
  hid_t file = ok_id(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access), "create");
  H5Pclose(access);

  // Provenance: variable-length UTF-8 strings and an int32 schema_version.
  hid_t text = ok_id(H5Tcopy(H5T_C_S1), "vlen");
  ok(H5Tset_size(text, H5T_VARIABLE), "vlen");
  ok(H5Tset_cset(text, H5T_CSET_UTF8), "vlen");
  hid_t scalar = ok_id(H5Screate(H5S_SCALAR), "scalar");
  const std::pair<const char *, const std::string *> attributes[] = {
      {"created_utc", &provenance.created_utc},   {"git_revision", &provenance.git_revision},
      {"config_json", &provenance.config_json},   {"hosts_json", &provenance.hosts_json},
      {"compiler_version", &provenance.compiler_version},
      {"blas_version", &provenance.blas_version}, {"mpi_version", &provenance.mpi_version},
      {"hdf5_version", &provenance.hdf5_version}, {"seed", &provenance.seed},
      {"reward_mode", &provenance.reward_mode}};
  for (const auto &[name, value] : attributes) {
    if (schema < 6 && std::string(name) == "reward_mode") continue;
    hid_t attribute = ok_id(H5Acreate2(file, name, text, scalar, H5P_DEFAULT, H5P_DEFAULT), name);
    const char *chars = value->c_str();
    ok(H5Awrite(attribute, text, &chars), name);
    H5Aclose(attribute);
  }
  hid_t version = ok_id(
      H5Acreate2(file, "schema_version", H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT), "ver");
  ok(H5Awrite(version, H5T_NATIVE_INT, &schema), "version");
  H5Aclose(version);
  H5Sclose(scalar);
  H5Tclose(text);

  // /rewards, packed in column order.
  hid_t file_type = row_type(true, schema), memory_type = row_type(false, schema);
  const std::size_t record = H5Tget_size(memory_type);
  std::vector<std::byte> bytes(rows.size() * record);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::byte *out = &bytes[r * record];
    for (const Column &column : columns(schema)) {
      std::visit(
          [&](auto member) {
            const auto &value = rows[r].*member;
            if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>)
              std::memcpy(out, value.data(), std::min(value.size(), column.string_size));
            else
              std::memcpy(out, &value, sizeof value);
          },
          column.member);
      out += column_size(column);
    }
  }
  hid_t rewards = extendible(file, "/rewards", file_type, rows.size(), 64);
  if (!rows.empty())
    ok(H5Dwrite(rewards, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), "rows");
  H5Dclose(rewards);
  H5Tclose(file_type);
  H5Tclose(memory_type);

  // /sources and /source_text.
  struct Entry {
    char sha256[64];
    std::uint64_t offset;
    std::uint64_t length;
  };
  std::vector<Entry> entries;
  std::string all_text;
  for (const auto &[sha, source] : sources) {
    Entry entry{};
    std::memcpy(entry.sha256, sha.data(), std::min<std::size_t>(sha.size(), 64));
    entry.offset = all_text.size();
    entry.length = source.size();
    entries.push_back(entry);
    all_text += source;
  }
  hid_t sha = string_type(64);
  hid_t entry_file = ok_id(H5Tcreate(H5T_COMPOUND, 80), "entry");
  ok(H5Tinsert(entry_file, "sha256", 0, sha), "entry");
  ok(H5Tinsert(entry_file, "offset", 64, H5T_STD_U64LE), "entry");
  ok(H5Tinsert(entry_file, "length", 72, H5T_STD_U64LE), "entry");
  hid_t entry_memory = ok_id(H5Tcreate(H5T_COMPOUND, sizeof(Entry)), "entry");
  ok(H5Tinsert(entry_memory, "sha256", HOFFSET(Entry, sha256), sha), "entry");
  ok(H5Tinsert(entry_memory, "offset", HOFFSET(Entry, offset), H5T_NATIVE_UINT64), "entry");
  ok(H5Tinsert(entry_memory, "length", HOFFSET(Entry, length), H5T_NATIVE_UINT64), "entry");
  hid_t index = extendible(file, "/sources", entry_file, entries.size(), 256);
  if (!entries.empty())
    ok(H5Dwrite(index, entry_memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, entries.data()), "sources");
  hid_t source_text = extendible(file, "/source_text", H5T_STD_U8LE, all_text.size(), 16384);
  if (!all_text.empty())
    ok(H5Dwrite(source_text, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, all_text.data()),
       "text");
  H5Dclose(source_text);
  H5Dclose(index);
  H5Tclose(entry_memory);
  H5Tclose(entry_file);
  H5Tclose(sha);
  if (schema >= 2) {
    write_records(file, "/stage_events", events, 16);
    write_records(file, "/archive", archive, 64);
  }
  if (schema >= 4) write_records(file, "/rank_events", rank_events, 8);
  ok(H5Fclose(file), "close");
}

inline void write_v1_log(const std::filesystem::path &path, const std::vector<RewardRow> &rows,
                         const std::vector<std::pair<std::string, std::string>> &sources,
                         const Provenance &provenance) {
  write_old_log(1, path, rows, sources, provenance);
}

}  // namespace hpcreward::test_support
