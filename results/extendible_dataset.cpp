#include "results/extendible_dataset.hpp"

#include <string>

#include "results/hdf5_error.hpp"

namespace hpcreward::h5 {

namespace {

std::string about(const char *action, const char *name) { return std::string(action) + " " + name; }

// The file's dataspace with [first, first + count) selected.
Dataspace select_range(hid_t dataset, hsize_t first, hsize_t count, const char *name,
                       const std::filesystem::path &path) {
  Dataspace space(check(H5Dget_space(dataset), path, about("cannot get the dataspace of", name)));
  check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &first, nullptr, &count, nullptr), path,
        about("cannot select rows of", name));
  return space;
}

}  // namespace

Dataset create_extendible(hid_t file, const char *name, hid_t file_type, hsize_t chunk_elements,
                          const std::filesystem::path &path) {
  const hsize_t initial = 0;
  const hsize_t unlimited = H5S_UNLIMITED;
  Dataspace space(check(H5Screate_simple(1, &initial, &unlimited), path,
                        about("cannot create the dataspace of", name)));
  PropertyList create(check(H5Pcreate(H5P_DATASET_CREATE), path, "cannot create a property list"));
  check(H5Pset_chunk(create.get(), 1, &chunk_elements), path, about("cannot set chunks of", name));
  return Dataset(
      check(H5Dcreate2(file, name, file_type, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
            path, about("cannot create dataset", name)));
}

Dataset open_dataset(hid_t file, const char *name, const std::filesystem::path &path) {
  return Dataset(
      check(H5Dopen2(file, name, H5P_DEFAULT), path, about("cannot open dataset", name)));
}

hsize_t element_count(hid_t dataset, const char *name, const std::filesystem::path &path) {
  Dataspace space(check(H5Dget_space(dataset), path, about("cannot get the dataspace of", name)));
  hsize_t count = 0;
  check(H5Sget_simple_extent_dims(space.get(), &count, nullptr), path,
        about("cannot get the size of", name));
  return count;
}

void append_elements(hid_t dataset, hsize_t old_count, hsize_t count, hid_t memory_type,
                     const void *data, const char *name, const std::filesystem::path &path) {
  if (count == 0) return;
  const hsize_t new_count = old_count + count;
  check(H5Dset_extent(dataset, &new_count), path, about("cannot extend", name));
  Dataspace file_space = select_range(dataset, old_count, count, name, path);
  Dataspace memory_space(
      check(H5Screate_simple(1, &count, nullptr), path, "cannot create a dataspace"));
  check(H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, data),
        path, about("cannot write to", name));
  check(H5Dflush(dataset), path, about("cannot flush", name));
}

void read_elements(hid_t dataset, hsize_t first, hsize_t count, hid_t memory_type, void *out,
                   const char *name, const std::filesystem::path &path) {
  if (count == 0) return;
  Dataspace file_space = select_range(dataset, first, count, name, path);
  Dataspace memory_space(
      check(H5Screate_simple(1, &count, nullptr), path, "cannot create a dataspace"));
  check(H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, out), path,
        about("cannot read", name));
}

}  // namespace hpcreward::h5
