#!/usr/bin/env bash
# Installs the system packages LocalLM builds against, when missing: OpenBLAS (CBLAS sgemm), pkg-config,
# and SQLite's headers for GRDB (only the locallm-records example uses it).
set -euo pipefail
need=()
pkg-config --exists openblas 2>/dev/null || need+=(libopenblas-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
command -v pkg-config >/dev/null || need+=(pkg-config)
if ((${#need[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi
