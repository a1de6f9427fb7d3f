#pragma once
// Provenance as attributes of the root group: one variable-length UTF-8 string attribute
// per text field (h5py reads them as str) and schema_version as a 32-bit integer.
// Written once, before SWMR starts: SWMR forbids variable-length data only afterwards.
#include <hdf5.h>

#include <filesystem>

#include "results/provenance.hpp"

namespace hpcreward::h5 {

// `path` only names the file in error messages.
void write_provenance(hid_t file, const Provenance &provenance, const std::filesystem::path &path);
Provenance read_provenance(hid_t file, const std::filesystem::path &path);

}  // namespace hpcreward::h5
