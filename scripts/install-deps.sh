#!/usr/bin/env bash
# Installs the system packages LocalLM builds against, when missing: OpenBLAS (CBLAS sgemm) and pkg-config.
set -euo pipefail
need=()
pkg-config --exists openblas 2>/dev/null || need+=(libopenblas-dev)
command -v pkg-config >/dev/null || need+=(pkg-config)
if ((${#need[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi
