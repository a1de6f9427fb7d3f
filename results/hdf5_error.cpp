#include "results/hdf5_error.hpp"

#include <stdexcept>
#include <vector>

namespace hpcreward::h5 {

QuietHdf5Errors::QuietHdf5Errors() {
  H5Eget_auto2(H5E_DEFAULT, &saved_function_, &saved_data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietHdf5Errors::~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, saved_function_, saved_data_); }

namespace {

herr_t collect_description(unsigned /*depth*/, const H5E_error2_t *error, void *data) {
  auto &descriptions = *static_cast<std::vector<std::string> *>(data);
  std::string description = error->desc ? error->desc : "";
  // Some drivers embed a ctime() string, newline included: keep the message on one line.
  for (char &c : description)
    if (c == '\n' || c == '\r') c = ' ';
  // Each layer tends to repeat "unable to open file"; keep a message once.
  if (!description.empty() && (descriptions.empty() || descriptions.back() != description))
    descriptions.push_back(std::move(description));
  return 0;
}

}  // namespace

std::string error_stack_message() {
  std::vector<std::string> descriptions;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_description, &descriptions);
  std::string message;
  for (const std::string &description : descriptions) {
    if (!message.empty()) message += ": ";
    message += description;
  }
  return message;
}

void throw_error(const std::filesystem::path &file, std::string_view what) {
  std::string message = file.string() + ": " + std::string(what);
  if (std::string stack = error_stack_message(); !stack.empty()) message += ": " + stack;
  throw std::runtime_error(message);
}

}  // namespace hpcreward::h5
