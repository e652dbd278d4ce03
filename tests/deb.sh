#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deb.sh - `make deb` builds the Debian package (debian/, dh) and lintian finds no error and
# no warning in it; then dpkg installs it into a scratch root (dpkg --root, a scratch admin
# directory; its maintainer scripts run chrootless with DPKG_ROOT, as dpkg does for such roots),
# the installed binary runs the demo from there, and dpkg removes and purges it leaving no file.
# Skipped (exit 77) where dpkg-buildpackage, debhelper or lintian are missing (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
for t in dpkg dpkg-buildpackage dh lintian; do
    command -v "$t" >/dev/null || { echo "skipped: $t is not installed (scripts/deps.sh installs it)"; exit 77; }
done
T=$(mktemp -d /tmp/gs-deb.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# no debug-symbol package: the test needs only the package itself
DEB_BUILD_OPTIONS="noddebs parallel=$(nproc)" make --no-print-directory deb >"$T/build.log" 2>&1 ||
    { tail -n 60 "$T/build.log"; fail "make deb"; }
deb=$(ls build/deb/gpuscope_*.deb)
grep '^[EWI]: ' "$T/build.log" || true   # lintian's tags (informational ones are shown, not fatal)

R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers" "$R/var/log"
: >"$R/var/lib/dpkg/status"
: >"$R/var/lib/dpkg/available"
# The scratch root holds no libc or other dependency: dpkg is told so (--force-depends),
# the libraries come from the host as the binary runs.
DPKG=(dpkg --root="$R" --log="$R/var/log/dpkg.log" --force-depends --force-script-chrootless)
[ "$(id -u)" -eq 0 ] || DPKG+=(--force-not-root)

"${DPKG[@]}" -i "$deb" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "dpkg -i"; }
sed 's/^/dpkg -i: /' "$T/install.log"
status=$("${DPKG[@]}" -s gpuscope | sed -n 's/^Status: //p')
[ "$status" = "install ok installed" ] || fail "dpkg -s gpuscope: '$status'"
n=$("${DPKG[@]}" -L gpuscope | while read -r f; do [ -f "$R$f" ] || [ -L "$R$f" ] && echo; done | wc -l)
for f in usr/bin/gpuscope usr/lib/gpuscope/modules/record.so usr/lib/gpuscope/sim/current/libnvidia-ml.so.1 \
    usr/share/gpuscope/scenarios/demo.scn usr/share/man/man1/gpuscope.1.gz \
    usr/share/bash-completion/completions/gpuscope usr/share/zsh/vendor-completions/_gpuscope \
    usr/share/fish/vendor_completions.d/gpuscope.fish lib/systemd/system/gpuscope-serve.service \
    usr/lib/python3/dist-packages/gpuscope/__init__.py usr/share/doc/gpuscope/copyright; do
    [ -e "$R/$f" ] || fail "/$f is not in the installed package"
done
grep -q '^ExecStart=/usr/bin/gpuscope serve' "$R/lib/systemd/system/gpuscope-serve.service" ||
    fail "the serve unit does not run /usr/bin/gpuscope"
# installing enables and starts nothing: no unit symlink under etc/systemd
[ -z "$(find "$R" -path '*/etc/systemd/*' -name '*.service' 2>/dev/null)" ] || fail "a unit was enabled"
out=$("$R/usr/bin/gpuscope" --demo query --query-gpu=count,name --format=csv,noheader | sort -u) ||
    fail "the installed binary cannot run the demo"
[ "$out" = "8, NVIDIA H100 80GB HBM3" ] || fail "the installed demo query printed '$out'"
"$R/usr/bin/gpuscope" report --help >/dev/null 2>"$T/err" || { cat "$T/err"; fail "record.so was refused"; }
echo "installed: $n files and links; the installed binary runs the demo"

"${DPKG[@]}" -r gpuscope >"$T/remove.log" 2>&1 || { cat "$T/remove.log"; fail "dpkg -r"; }
sed 's/^/dpkg -r: /' "$T/remove.log"
"${DPKG[@]}" -P gpuscope >"$T/purge.log" 2>&1 || { cat "$T/purge.log"; fail "dpkg -P"; }
sed 's/^/dpkg -P: /' "$T/purge.log"
left=$(cd "$R" && find . \( -type f -o -type l \) ! -path './var/lib/dpkg/*' ! -path './var/log/*')
[ -z "$left" ] || fail "dpkg -r/-P left: $left"
"${DPKG[@]}" -s gpuscope >/dev/null 2>&1 && fail "dpkg still knows gpuscope after the purge"
echo "removed and purged: no file or link left"
