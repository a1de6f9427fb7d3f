#!/usr/bin/env bash
# Installs everything hpcreward needs to build, run and test on Debian 12 (run as root,
# or with sudo available). Safe to run again.
set -euo pipefail
packages=(
  build-essential cmake git pkg-config
  openmpi-bin libopenmpi-dev libhwloc-dev
  libopenblas-openmp-dev
  libboost-program-options-dev
  libhdf5-dev hdf5-tools
  nlohmann-json3-dev libssl-dev openssl libcpp-httplib-dev
  libclang-14-dev libelf-dev libseccomp-dev libcapstone-dev
  libgtest-dev googletest
  python3 python3-h5py python3-numpy python3-matplotlib python3-pygments python3-pytest python3-pip unzip
  python3-venv python3-setuptools python3-wheel
)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# GPU ranks detect techniques in the SASS of each CUDA candidate (cuobjdump, which runs
# nvdisasm). Some CUDA Toolkit installs ship nvcc without them; NVIDIA's own wheels on PyPI
# carry both. Only when nvcc is here and they are not: the CUDA Toolkit itself is not
# installed by this script (CPU-only builds need none of it).
cuda_bin=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
cuda_tools=/usr/local/lib/hpcreward/cuda-tools
cuda_tools_version=13.4.92
if [ -x "$cuda_bin/nvcc" ] && { [ ! -x "$cuda_bin/cuobjdump" ] || [ ! -x "$cuda_bin/nvdisasm" ]; } \
   && [ ! -x "$cuda_tools/bin/cuobjdump" ]; then
  echo "install-deps: $cuda_bin has nvcc but not cuobjdump/nvdisasm: installing NVIDIA's wheels ($cuda_tools_version) into $cuda_tools"
  wheels=$(mktemp -d)
  # Without PyPI the build is CPU-only (cmake warns), not a failed install.
  if python3 -m pip download -q --no-deps --only-binary :all: -d "$wheels" \
       "nvidia-cuda-cuobjdump==$cuda_tools_version" "nvidia-cuda-nvdisasm==$cuda_tools_version"; then
    "${sudo_cmd[@]}" mkdir -p "$cuda_tools/bin"
    for wheel in "$wheels"/*.whl; do
      "${sudo_cmd[@]}" unzip -o -q -j "$wheel" 'nvidia/cu13/bin/*' -d "$cuda_tools/bin"
    done
    "${sudo_cmd[@]}" chmod 755 "$cuda_tools/bin/cuobjdump" "$cuda_tools/bin/nvdisasm"
  else
    echo "install-deps: WARNING: no cuobjdump/nvdisasm from PyPI: GPU ranks will not be built" >&2
  fi
  rm -rf "$wheels"
fi

# CuTe (CUTLASS's layouts and MMA and copy atoms) and CUTLASS for CUDA stages that allow them
# ("libraries": ["cute"] or ["cutlass"]): the headers of the pinned nvidia-cutlass wheel, its
# hash checked, with CUTLASS's host utilities. Only where nvcc is; without PyPI, GPU ranks are
# built without them (a run whose ladder has a CuTe stage is refused).
. "$(dirname "$0")/lib/cutlass-pin.sh"
cutlass_dir=/usr/local/lib/hpcreward/cutlass-$cutlass_version
if [ -x "$cuda_bin/nvcc" ] && [ ! -f "$cutlass_dir/include/cutlass/util/packed_stride.hpp" ]; then
  echo "install-deps: installing CuTe and CUTLASS (nvidia-cutlass $cutlass_version headers) into $cutlass_dir"
  wheels=$(mktemp -d)
  if download_cutlass_wheel "$wheels" &&
    "${sudo_cmd[@]}" bash -c ". '$(dirname "$0")/lib/cutlass-pin.sh' && unpack_cutlass_headers '$wheels/$cutlass_wheel' '$cutlass_dir/include'"; then
    :
  else
    echo "install-deps: WARNING: no nvidia-cutlass $cutlass_version from PyPI: GPU ranks will not score CuTe stages" >&2
  fi
  "${sudo_cmd[@]}" rm -rf "$wheels"
fi
