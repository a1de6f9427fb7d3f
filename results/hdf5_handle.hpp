#pragma once
// A move-only owner of one HDF5 identifier: files, datasets, dataspaces, types, attributes
// and property lists each need their own H5*close, so the close function is part of the type.
#include <hdf5.h>

#include <utility>

namespace hpcreward::h5 {

template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  // Takes ownership of `id`; a negative id (an HDF5 failure) is held as "no object".
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }

  Handle(Handle &&other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle &operator=(Handle &&other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

  // Closes now. A failed close is not reported: the log flushes every append, so by the
  // time anything is closed there is nothing left that a close could lose.
  void reset() {
    if (id_ >= 0) Close(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;

}  // namespace hpcreward::h5
