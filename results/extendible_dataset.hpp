#pragma once
// One-dimensional datasets that grow at the end: every dataset of the reward log is one.
// `path` and `name` only name the file and dataset in error messages.
#include <hdf5.h>

#include <filesystem>

#include "results/hdf5_handle.hpp"

namespace hpcreward::h5 {

// Creates an empty, chunked dataset with no size limit (chunking is what lets it grow).
Dataset create_extendible(hid_t file, const char *name, hid_t file_type, hsize_t chunk_elements,
                          const std::filesystem::path &path);

Dataset open_dataset(hid_t file, const char *name, const std::filesystem::path &path);

hsize_t element_count(hid_t dataset, const char *name, const std::filesystem::path &path);

// Grows the dataset from `old_count` to `old_count + count` elements, writes `data` (count
// elements of `memory_type`) into the new ones, and flushes, so SWMR readers see them and a
// crash after this call loses nothing.
void append_elements(hid_t dataset, hsize_t old_count, hsize_t count, hid_t memory_type,
                     const void *data, const char *name, const std::filesystem::path &path);

// Reads elements [first, first + count) into `out`.
void read_elements(hid_t dataset, hsize_t first, hsize_t count, hid_t memory_type, void *out,
                   const char *name, const std::filesystem::path &path);

}  // namespace hpcreward::h5
