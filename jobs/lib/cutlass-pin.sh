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
