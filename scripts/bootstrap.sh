#!/usr/bin/env bash
# Installs what warplens needs on Debian 12 (idempotent; uses sudo when not root).
# Clang 19 comes from Debian's packages; the CUDA toolkit is expected at
# /usr/local/cuda (or CUDA_PATH) and is optional for the static analysis.
set -euo pipefail
packages=(
  cmake ninja-build g++ ccache pkg-config
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev clangd-19 libclang-rt-19-dev
  nlohmann-json3-dev libboost-dev libspdlog-dev libfmt-dev doctest-dev libssl-dev libcli11-dev
  neovim python3
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
