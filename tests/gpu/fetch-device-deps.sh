#!/usr/bin/env bash
# Run on the CPU machine (Debian 12, with its package registry), in the repository: downloads
# what the GPU machine's image (Ubuntu 24.04, no registry) lacks to build hpcreward into
# .gpu-deps/ (ignored by git; carried to the device with `carry: [".gpu-deps"]`):
# Debian's packages of cpp-httplib, libseccomp, capstone, libelf, Boost.Program_options and
# hwloc (headers and link; device-build.sh links the image's own libhwloc15, which its Open MPI
# uses, and keeps Debian's only where the image lacks one), and libclang's C headers (the image has libclang-16's library but not its headers; the C
# API is stable, so 14's headers serve); the pinned nvidia-cutlass wheel (CuTe) into
# .gpu-deps/cutlass/; Slurm and munge into .gpu-deps/slurm/; strace (with libunwind) unpacked
# into .gpu-deps/strace/ for syscall_census.sh (the image has no strace).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-deps/debs
exclude=$(git rev-parse --git-common-dir)/info/exclude  # a worktree's .git is a file
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu-deps/' "$exclude" 2>/dev/null || echo '/.gpu-deps/' >> "$exclude"
cd .gpu-deps/debs
apt-get download libcpp-httplib-dev libcpp-httplib0.11 libseccomp-dev libseccomp2 libcapstone-dev \
  libcapstone4 libelf-dev libelf1 libboost-program-options-dev libboost-program-options1.74-dev \
  libboost-program-options1.74.0 libboost1.74-dev libbrotli1 libbrotli-dev libclang-14-dev \
  libhwloc-dev libhwloc15
scratch=$(mktemp -d)
dpkg -x libclang-14-dev_*.deb "$scratch"
rm -rf ../clang-c-include && mkdir -p ../clang-c-include
cp -r "$scratch"/usr/lib/llvm-14/include/clang-c ../clang-c-include/
rm -rf "$scratch" libclang-14-dev_*.deb
# CuTe's headers (the pinned nvidia-cutlass wheel; device-build.sh unpacks it).
. ../../jobs/lib/cutlass-pin.sh
rm -rf ../cutlass && mkdir -p ../cutlass && download_cutlass_wheel ../cutlass
# Slurm and munge for tests/gpu/slurm-gpu.sh, with the libraries an Ubuntu 24.04 image may lack
# (slurm-cluster.sh unpacks a library package only where the machine has none of its files).
mkdir -p ../slurm && cd ../slurm && rm -f ./*.deb
apt-get download slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2 libjson-c5 liblua5.1-0 \
  liblz4-1 libnuma1 libyaml-0-2 libhwloc15 libpmix2
# strace for syscall_census.sh, unpacked (the image has neither it nor libunwind8).
cd .. && rm -rf strace && mkdir -p strace && cd strace
apt-get download strace libunwind8
for deb in ./*.deb; do dpkg -x "$deb" .; done
rm -f ./*.deb
du -sh ..
