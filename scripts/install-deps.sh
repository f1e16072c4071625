#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages meeplecam needs, only those missing (via sudo when not root).
# Extra arguments are more packages to make sure of (scripts/fuzz.sh: clang-14, libFuzzer).
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config ccache
          libopencv-dev libopencv-contrib-dev
          qt6-base-dev qt6-multimedia-dev
          nlohmann-json3-dev catch2 libbenchmark-dev
          xvfb xauth gstreamer1.0-plugins-good gstreamer1.0-libav
          "$@")

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "meeplecam: installing missing packages: ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "meeplecam: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
