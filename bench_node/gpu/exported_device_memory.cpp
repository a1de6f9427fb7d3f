#include "bench_node/gpu/exported_device_memory.hpp"

#include <cuda.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "bench_node/gpu/cuda_call.hpp"

namespace hpcreward::gpu {

namespace {

CUmemAllocationProp pool_properties(int device) {
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = device;
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return properties;
}

CUmemAccessDesc read_write(int device) {
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return access;
}

void driver_call(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS) return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  throw CudaError(cudaErrorUnknown, std::string(what) + " (" + (name ? name : "CUDA driver error") + ")");
}

int current_device() {
  int device = 0;
  cuda_call(cudaGetDevice(&device), "cudaGetDevice");
  cuda_call(cudaFree(nullptr), "the CUDA context");  // the runtime's primary context is current
  return device;
}

}  // namespace

ExportedDeviceMemory::ExportedDeviceMemory(std::size_t bytes) {
  const int device = current_device();
  const CUmemAllocationProp properties = pool_properties(device);
  std::size_t granularity = 0;
  driver_call(cuMemGetAllocationGranularity(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
              "cuMemGetAllocationGranularity");
  bytes_ = (std::max<std::size_t>(bytes, 1) + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  driver_call(cuMemCreate(&handle, bytes_, &properties, 0), "cuMemCreate (the operand pool)");
  handle_ = handle;
  CUdeviceptr address = 0;
  driver_call(cuMemAddressReserve(&address, bytes_, 0, 0, 0), "cuMemAddressReserve");
  pointer_value_ = address;
  driver_call(cuMemMap(address, bytes_, 0, handle, 0), "cuMemMap");
  const CUmemAccessDesc access = read_write(device);
  driver_call(cuMemSetAccess(address, bytes_, &access, 1), "cuMemSetAccess");
  pointer_ = reinterpret_cast<void *>(address);
  driver_call(cuMemExportToShareableHandle(&fd_, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
              "cuMemExportToShareableHandle");
  ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
}

ExportedDeviceMemory::~ExportedDeviceMemory() {
  if (fd_ >= 0) ::close(fd_);
  if (pointer_value_ != 0) {
    cuMemUnmap(pointer_value_, bytes_);
    cuMemAddressFree(pointer_value_, bytes_);
  }
  if (handle_ != 0) cuMemRelease(handle_);
}

void *import_device_memory(int fd, std::size_t bytes, const char *&error) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
    error = "no CUDA context";
    return nullptr;
  }
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr address = 0;
  const CUmemAccessDesc access = read_write(device);
  if (cuMemImportFromShareableHandle(&handle, reinterpret_cast<void *>(static_cast<std::uintptr_t>(fd)),
                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != CUDA_SUCCESS) {
    error = "cuMemImportFromShareableHandle failed";
    return nullptr;
  }
  if (cuMemAddressReserve(&address, bytes, 0, 0, 0) != CUDA_SUCCESS ||
      cuMemMap(address, bytes, 0, handle, 0) != CUDA_SUCCESS ||
      cuMemSetAccess(address, bytes, &access, 1) != CUDA_SUCCESS) {
    error = "mapping the operand pool failed";
    return nullptr;
  }
  cuMemRelease(handle);  // the mapping keeps the memory
  return reinterpret_cast<void *>(address);
}

}  // namespace hpcreward::gpu
