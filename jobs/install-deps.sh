#!/usr/bin/env bash
# Installs everything hpcreward needs to build, run and test on Debian 12 (run as root,
# or with sudo available). Safe to run again.
set -euo pipefail
packages=(
  build-essential cmake git pkg-config
  openmpi-bin libopenmpi-dev
  libopenblas-openmp-dev
  libboost-program-options-dev
  libhdf5-dev hdf5-tools
  nlohmann-json3-dev libssl-dev libcpp-httplib-dev
  libclang-14-dev libelf-dev libseccomp-dev libcapstone-dev
  libgtest-dev googletest
  python3 python3-h5py python3-numpy python3-pytest
)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
