#pragma once
// Turning HDF5 failures into exceptions that name the file and say what HDF5 reported.
// HDF5 signals failure with a negative return value and records details on its error
// stack; by default it also prints that stack to stderr, which QuietHdf5Errors turns off.
#include <hdf5.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace hpcreward::h5 {

// While alive, HDF5 does not print its error stack: our exceptions carry it instead.
// Restores whatever printing was configured before (other code in the process may want it).
class QuietHdf5Errors {
 public:
  QuietHdf5Errors();
  ~QuietHdf5Errors();
  QuietHdf5Errors(const QuietHdf5Errors &) = delete;
  QuietHdf5Errors &operator=(const QuietHdf5Errors &) = delete;

 private:
  H5E_auto2_t saved_function_ = nullptr;
  void *saved_data_ = nullptr;
};

// The current HDF5 error stack as one line, outermost call first ("" if it is empty).
std::string error_stack_message();

// Throws std::runtime_error("<file>: <what>: <HDF5 error stack>").
[[noreturn]] void throw_error(const std::filesystem::path &file, std::string_view what);

// Returns `status` (an id or herr_t) unless it is negative, in which case it throws.
template <typename T>
T check(T status, const std::filesystem::path &file, std::string_view what) {
  if (status < 0) throw_error(file, what);
  return status;
}

}  // namespace hpcreward::h5
