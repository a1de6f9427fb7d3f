#include "results/provenance_attributes.hpp"

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "results/hdf5_error.hpp"
#include "results/hdf5_handle.hpp"

namespace hpcreward::h5 {

namespace {

// The text fields, by attribute name; the names are the Provenance member names. A field a
// later schema added is missing from older logs: the reader leaves the member's default.
struct TextAttribute {
  const char *name;
  std::string Provenance::*member;
  int since_schema = 1;
};
constexpr std::array<TextAttribute, 10> kTextAttributes = {{
    {"created_utc", &Provenance::created_utc},
    {"git_revision", &Provenance::git_revision},
    {"config_json", &Provenance::config_json},
    {"hosts_json", &Provenance::hosts_json},
    {"compiler_version", &Provenance::compiler_version},
    {"blas_version", &Provenance::blas_version},
    {"mpi_version", &Provenance::mpi_version},
    {"hdf5_version", &Provenance::hdf5_version},
    {"seed", &Provenance::seed},
    {"reward_mode", &Provenance::reward_mode, 6},  // older logs: gflops, the member's default
}};
constexpr const char *kSchemaVersionAttribute = "schema_version";

Datatype variable_string_type(const std::filesystem::path &path) {
  Datatype type(check(H5Tcopy(H5T_C_S1), path, "cannot build a string type"));
  check(H5Tset_size(type.get(), H5T_VARIABLE), path, "cannot build a string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), path, "cannot build a string type");
  return type;
}

Attribute create_attribute(hid_t file, const char *name, hid_t type,
                           const std::filesystem::path &path) {
  Dataspace scalar(check(H5Screate(H5S_SCALAR), path, "cannot create a dataspace"));
  return Attribute(check(H5Acreate2(file, name, type, scalar.get(), H5P_DEFAULT, H5P_DEFAULT), path,
                         std::string("cannot create attribute ") + name));
}

Attribute open_attribute(hid_t file, const char *name, const std::filesystem::path &path) {
  return Attribute(
      check(H5Aopen(file, name, H5P_DEFAULT), path, std::string("cannot open attribute ") + name));
}

}  // namespace

void write_provenance(hid_t file, const Provenance &provenance, const std::filesystem::path &path) {
  Datatype text_type = variable_string_type(path);
  for (const auto &[name, member, since_schema] : kTextAttributes) {
    Attribute attribute = create_attribute(file, name, text_type.get(), path);
    const char *text = (provenance.*member).c_str();
    check(H5Awrite(attribute.get(), text_type.get(), &text), path,
          std::string("cannot write attribute ") + name);
  }
  Attribute version = create_attribute(file, kSchemaVersionAttribute, H5T_STD_I32LE, path);
  const int value = provenance.schema_version;
  check(H5Awrite(version.get(), H5T_NATIVE_INT, &value), path,
        std::string("cannot write attribute ") + kSchemaVersionAttribute);
}

Provenance read_provenance(hid_t file, const std::filesystem::path &path) {
  Provenance provenance;
  Datatype text_type = variable_string_type(path);
  for (const auto &[name, member, since_schema] : kTextAttributes) {
    if (since_schema > 1 && H5Aexists(file, name) <= 0) continue;
    Attribute attribute = open_attribute(file, name, path);
    char *text = nullptr;
    check(H5Aread(attribute.get(), text_type.get(), &text), path,
          std::string("cannot read attribute ") + name);
    // HDF5 allocated the string; it must be released with HDF5's allocator.
    std::unique_ptr<char, herr_t (*)(void *)> owned(text, H5free_memory);
    provenance.*member = text ? text : "";
  }
  Attribute version = open_attribute(file, kSchemaVersionAttribute, path);
  check(H5Aread(version.get(), H5T_NATIVE_INT, &provenance.schema_version), path,
        std::string("cannot read attribute ") + kSchemaVersionAttribute);
  return provenance;
}

}  // namespace hpcreward::h5
