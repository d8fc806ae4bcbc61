#!/usr/bin/env bash
# System packages collsched needs, installed with apt-get when missing (Debian, as root).
#
#   scripts/system-deps.sh build   the build: a C compiler (the Rust linker's), make, Python's venv
#   scripts/system-deps.sh test    the build, plus what the test groups run on: Open MPI (the MPI runtime),
#                                  SimGrid's Python bindings (the Fluid cross-check), iproute2 (emulated networks),
#                                  Chromium (the HTML report in a headless browser)
#
# Quick and silent when everything is there (dpkg and command -v only; apt-get update runs only when
# something is missing). Where nothing can be installed (not root, no apt-get, apt failed), it says so in
# one line and exits 0: the build goes on and the tests that need the package skip, naming it.
# PYTHON (default python3) is the interpreter whose venv module is checked.
set -euo pipefail

what=${1:-test}
python=${PYTHON:-python3}
need=()
have_deb() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
"$python" -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
if [ "$what" = test ]; then
  # Open MPI: mpirun, and libmpi for mpi4py's wheel (tests/runtime, README's MPI example)
  { command -v mpirun >/dev/null && have_deb libopenmpi-dev; } || need+=(openmpi-bin libopenmpi-dev)
  # SimGrid's Python bindings, built by Debian for its CPython 3.11 (tests/simulation/test_simgrid.py)
  have_deb python3-simgrid || need+=(python3-simgrid)
  # ip and tc: the runtime's emulated networks (namespaces, veth pairs, tc htb)
  { command -v ip >/dev/null && command -v tc >/dev/null; } || need+=(iproute2)
  # a headless browser: the HTML report laid out for real (tests/report/test_report_browser.py, docs/screenshots.py)
  { command -v chromium >/dev/null || command -v chromium-browser >/dev/null; } || need+=(chromium)
elif [ "$what" != build ]; then
  echo "usage: scripts/system-deps.sh [build|test]" >&2
  exit 2
fi

[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null || [ "$(id -u)" -ne 0 ]; then
  echo "collsched: missing system packages ${need[*]} (not root or no apt-get: install them yourself); going on, the tests that need them will skip"
  exit 0
fi
echo "collsched: installing system packages: ${need[*]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq "${need[@]}"; } >"$log" 2>&1; then
  tail -n 5 "$log"
  echo "collsched: apt-get could not install ${need[*]} (above); going on, the tests that need them will skip"
fi
exit 0
