#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/build-nvtop.sh SRC_DIR BUILD_DIR - build nvtop (3.3.2 or later) from a source tree the
# user fetched, NVIDIA support only, with cmake, for the side-by-side benchmarks. Prints the
# binary's path on stdout; the build's output goes to BUILD_DIR/build.log. Needs cmake and
# the ncurses headers (Debian: cmake libncurses-dev). Nothing is downloaded.
set -eu
SRC=$(cd "$1" && pwd)
OUT=$2
[ -f "$SRC/CMakeLists.txt" ] && grep -q nvtop "$SRC/CMakeLists.txt" || {
    echo "build-nvtop: $SRC does not look like nvtop's source (no CMakeLists.txt naming nvtop)" >&2
    exit 2
}
command -v cmake >/dev/null || { echo "build-nvtop: cmake is needed (apt-get install cmake)" >&2; exit 2; }
mkdir -p "$OUT"
if [ ! -x "$OUT/src/nvtop" ] || [ "$SRC/CMakeLists.txt" -nt "$OUT/src/nvtop" ]; then
    off=""
    for v in AMDGPU INTEL MSM APPLE PANFROST PANTHOR ASCEND V3D TPU ROCKCHIP METAX ENFLAME; do
        off="$off -D${v}_SUPPORT=OFF"
    done
    # shellcheck disable=SC2086
    if ! { cmake -S "$SRC" -B "$OUT" -DCMAKE_BUILD_TYPE=Release -DNVIDIA_SUPPORT=ON $off &&
           cmake --build "$OUT" -j 2; } >"$OUT/build.log" 2>&1; then
        echo "build-nvtop: build failed, see $OUT/build.log" >&2
        tail -n 20 "$OUT/build.log" >&2
        exit 1
    fi
fi
echo "$OUT/src/nvtop"
