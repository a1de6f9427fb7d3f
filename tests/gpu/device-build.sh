#!/usr/bin/env bash
# Run on the GPU machine (device tool), in the repository, after fetch-device-deps.sh ran on
# the CPU machine and .gpu-deps/ was carried: unpacks the packages into a prefix and builds
# hpcreward into build-gpu/ with the CUDA Toolkit found there. Prints the environment to
# source for running (LD_LIBRARY_PATH of the prefix) into build-gpu/env.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=/tmp/hpcreward-prefix
rm -rf "$prefix" && mkdir -p "$prefix"
for deb in .gpu-deps/debs/*.deb; do dpkg -x "$deb" "$prefix"; done
libdir=$prefix/usr/lib/x86_64-linux-gnu
# hwloc: link the image's libhwloc15 (its Open MPI's; same soname and ABI as Debian 12's 2.9)
# so LD_LIBRARY_PATH never swaps Open MPI's hwloc for an older one; Debian's only without it.
system_hwloc=/usr/lib/x86_64-linux-gnu/libhwloc.so.15
if [ -e "$system_hwloc" ]; then
  rm -f "$libdir"/libhwloc.so.15*
  ln -sf "$system_hwloc" "$libdir/libhwloc.so"
fi
# CuTe's and CUTLASS's headers from the pinned wheel, for stages that allow them.
. jobs/lib/cutlass-pin.sh
unpack_cutlass_headers .gpu-deps/cutlass/*.whl "$prefix/cutlass/include" || { echo "device-build: no CUTLASS headers" >&2; exit 2; }
clang=$(ls /usr/lib/x86_64-linux-gnu/libclang-1[0-9]*.so.1 /usr/lib/llvm-*/lib/libclang.so.1 2>/dev/null | head -1)
[ -n "$clang" ] || { echo "device-build: no libclang on this machine" >&2; exit 2; }
cat > build-gpu.env <<ENV
export LD_LIBRARY_PATH=$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:\$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
. ./build-gpu.env
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$prefix
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$prefix/usr;$libdir/cmake" -DBoost_ROOT="$prefix/usr" -DBoost_NO_SYSTEM_PATHS=ON \
  -DLIBCLANG_INCLUDE_DIR="$PWD/.gpu-deps/clang-c-include" -DLIBCLANG_LIBRARY="$clang" \
  -DHPCREWARD_CUTE_INCLUDE_DIR="$prefix/cutlass/include" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DHPCREWARD_PYTHON="$(command -v python3)" "$@" > build-gpu.configure.log 2>&1 \
  || { tail -40 build-gpu.configure.log; exit 1; }
cmake --build build-gpu -j "$(nproc)" > build-gpu.log 2>&1 || { grep -E "error|Error" build-gpu.log | head -40; exit 1; }
echo "device-build: built into build-gpu/ ($(ls build-gpu/bin | tr '\n' ' '))"
