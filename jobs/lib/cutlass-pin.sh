# The CUTLASS release whose CuTe headers stages with "libraries": ["cute"] compile with: the
# nvidia-cutlass wheel on PyPI (its headers under cutlass_library/source/include), by version
# and hash. Sourced by jobs/install-deps.sh and tests/gpu/fetch-device-deps.sh; the C++ side
# names the same release (common/stage_libraries.hpp, kPinnedCutlassVersion).
cutlass_version=4.2.0
cutlass_wheel=nvidia_cutlass-4.2.0.0-py3-none-any.whl
cutlass_sha256=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6

# Downloads the wheel into directory $1 and checks its hash; fails otherwise.
download_cutlass_wheel() {
  python3 -m pip download -q --no-deps --only-binary :all: -d "$1" "nvidia-cutlass==$cutlass_version.0" &&
    echo "$cutlass_sha256  $1/$cutlass_wheel" | sha256sum -c --quiet
}

# Unpacks the wheel $1 into include directory $2 (made anew): CUTLASS's and CuTe's headers with
# CUTLASS's host utilities (the wheel's tools/util/include: cutlass/util/*) merged in, as stages
# with "libraries": ["cutlass"] include them. Leaves $2 untouched if the wheel can't be read.
unpack_cutlass_headers() {
  local scratch
  scratch=$(mktemp -d) &&
    python3 -m zipfile -e "$1" "$scratch" &&
    cp -r "$scratch/cutlass_library/source/tools/util/include/cutlass/util" \
      "$scratch/cutlass_library/source/include/cutlass/" &&
    rm -rf "$2" && mkdir -p "$(dirname "$2")" &&
    mv "$scratch/cutlass_library/source/include" "$2" &&
    chmod -R a+rX "$2"
  local status=$?
  rm -rf "$scratch"
  return $status
}
