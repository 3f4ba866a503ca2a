#!/usr/bin/env bash
# Smoke test of the built installer in a minimal Debian root made for the test, so that nothing on the build
# machine can stand in for a missing dependency. Run as root (debootstrap, unshare, chroot; no container runtime).
#  1. a minbase Debian root (debootstrap; its tarball is cached, so later runs unpack it in seconds)
#  2. the tarball's window on that bare root: the pre-flight check names the missing libraries, exit 2
#  3. apt install ./repobot_*.deb without recommends (only Depends count); the packages apt pulled in
#  4. every library the installed bundle needs resolves (ldd over /opt/repobot), before any test tool is added;
#     the window then gets past the library check (and says no X server answers: none runs yet)
#  5. repobot --version          6. repobot ask --json on the httpx docs under unshare -n (no network)
#  7. Xvfb, installed into the root as the test's own tool; repobot gui --screenshot under it, unshare -n too
#  8. apt remove: /opt/repobot and /usr/bin/repobot go, user data stays. The root is deleted at the end.
# Screenshot, answer and logs are kept in build/smoke/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "smoke_test.sh: run as root (it builds a Debian root and enters it)" >&2; exit 2; }
DEB=$(realpath "$(ls -t dist/repobot_*_amd64.deb | head -1)")
TARBALL=$(realpath "$(ls -t dist/repobot-*-linux-x86_64.tar.gz | head -1)")
CORPUS=$(realpath "${CORPUS:-../shared/corpora/httpx/docs}")
SUITE=${SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}
CACHE=${REPOBOT_SMOKE_CACHE:-$HOME/.cache/repobot-smoke}
ROOT_TAR=$CACHE/debian-$SUITE-minbase-amd64.tar.gz
OUT=$(pwd)/build/smoke
QUESTION="Does httpx follow redirects by default?"
WORK=$(mktemp -d /tmp/repobot-smoke.XXXXXX)
R=$WORK/root
mkdir -p "$R" "$OUT"
# --one-file-system: never follow a mount out of the root (mounts live in namespaces that end with each command)
trap 'rm -rf --one-file-system "$WORK"' EXIT
say() { printf '\n== %s\n' "$*"; }

# The host's Debian mirror (and security mirror), as apt on this machine reaches them.
host_uri() {
  local found
  found=$({ grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'
            grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | sed 's/\[[^]]*\] *//' | awk '{print $2}'
          } | grep -m1 -E "$1" || true)
  echo "${found:-$2}"
}
MIRROR=${MIRROR:-$(host_uri '/debian/?$' http://deb.debian.org/debian)}
SECURITY=${SECURITY:-$(host_uri '/debian-security/?$' http://deb.debian.org/debian-security)}

# Run a command inside the root, in its own mount and PID namespaces: /proc, /dev/shm and /dev/pts are mounted
# there and vanish with the namespace, as does every process left (Xvfb). --offline adds an empty network namespace.
# Leading NAME=VALUE arguments set variables; nothing else of this shell's environment goes in. The shell stays
# PID 1 (no exec): Xvfb tells xvfb-run that it is ready by a signal to its parent, and sends none to PID 1.
enter() {
  local net=()
  if [ "${1:-}" = --offline ]; then net=(--net); shift; fi
  unshare --mount --pid --fork --kill-child "${net[@]}" -- /bin/sh -c '
    R=$1; shift
    mount -t proc proc "$R/proc"
    mount -t tmpfs -o mode=1777 shm "$R/dev/shm"
    mount -t devpts -o newinstance,ptmxmode=0666 devpts "$R/dev/pts" 2>/dev/null || true
    chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive REPOBOT_HOME=/tmp/home "$@"
    exit $?' sh "$R" "$@"
}
packages() { enter dpkg-query -W -f '${Package}\n' | sort; }

if [ -s "$ROOT_TAR" ]; then
  say "minimal Debian $SUITE root, unpacked from the cached $ROOT_TAR"
  tar -C "$R" --numeric-owner -xpzf "$ROOT_TAR"
else
  say "minimal Debian $SUITE root with debootstrap --variant=minbase from $MIRROR (cached as $ROOT_TAR)"
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
  debootstrap --variant=minbase "$SUITE" "$R" "$MIRROR" > "$OUT/debootstrap.log" 2>&1 \
    || { tail -20 "$OUT/debootstrap.log"; exit 1; }
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
    "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" "$SECURITY" "$SUITE" > "$R/etc/apt/sources.list"
  enter apt-get clean
  mkdir -p "$CACHE"
  tar -C "$R" --numeric-owner -czf "$ROOT_TAR.part" . && mv "$ROOT_TAR.part" "$ROOT_TAR"
fi
cp /etc/resolv.conf "$R/etc/resolv.conf"
mkdir -p "$R/dev/shm" "$R/dev/pts"
echo "root: $(du -sh "$R" | cut -f1), $(packages | wc -l) packages; cached tarball $(du -h "$ROOT_TAR" | cut -f1)"

say "the tarball's window on the bare root (no X libraries): the pre-flight check says what to install"
mkdir -p "$R/tmp/tarball"
tar -C "$R/tmp/tarball" -xzf "$TARBALL"
status=0
enter DISPLAY=:99 /tmp/tarball/repobot/repobot gui > "$OUT/bare.log" 2>&1 || status=$?
cat "$OUT/bare.log"
[ "$status" -eq 2 ] || { echo "expected exit status 2 from the pre-flight check, got $status"; exit 1; }
grep -q "sudo apt install " "$OUT/bare.log" && ! grep -q Traceback "$OUT/bare.log"
rm -rf "$R/tmp/tarball"

say "apt install ./$(basename "$DEB") ($(du -h "$DEB" | cut -f1)), without recommends"
packages > "$WORK/before.txt"
cp "$DEB" "$R/tmp/"
enter apt-get update -qq
enter apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$DEB")" > "$OUT/apt-install.log" 2>&1 \
  || { tail -20 "$OUT/apt-install.log"; exit 1; }
packages > "$WORK/after.txt"
comm -13 "$WORK/before.txt" "$WORK/after.txt" | grep -vx repobot > "$OUT/pulled-in.txt" || true
echo "Depends: $(enter dpkg-query -W -f '${Depends}' repobot)"
echo "apt pulled in $(wc -l < "$OUT/pulled-in.txt") packages: $(tr '\n' ' ' < "$OUT/pulled-in.txt")"
echo "installed: $(du -sh "$R/opt/repobot" | cut -f1) in /opt/repobot"

say "every library the installed bundle needs is found (ldd over /opt/repobot, before any test tool is installed)"
enter /bin/sh -c 'find /opt/repobot -type f \( -name "*.so" -o -name "*.so.*" -o -perm -u+x \) | while read -r f; do
    LD_LIBRARY_PATH=/opt/repobot/_internal ldd "$f" 2>/dev/null | sed -n "s/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p"
  done | sort -u' > "$WORK/not-found.txt"
unmet=()
while read -r name; do  # a library the bundle carries itself is its own business (PyInstaller's search path)
  [ -n "$(find "$R/opt/repobot" -name "$name" -print -quit)" ] || unmet+=("$name")
done < "$WORK/not-found.txt"
[ "${#unmet[@]}" -eq 0 ] || { echo "not found after installing the package: ${unmet[*]}"; exit 1; }
echo "all found ($(wc -l < "$WORK/not-found.txt") names resolved only inside the bundle)"
status=0
enter DISPLAY=:99 repobot gui > "$WORK/no-x.log" 2>&1 || status=$?
cat "$WORK/no-x.log"
[ "$status" -eq 2 ] && grep -q "no X server answers" "$WORK/no-x.log"

say "repobot --version"
enter repobot --version

say "repobot ask --json inside unshare -n (no network)"
cp -r "$CORPUS" "$R/tmp/corpus"
enter --offline repobot ask "$QUESTION" --corpus /tmp/corpus --json > "$OUT/answer.json"
python3 - "$OUT/answer.json" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
for key in ["question", "language", "model", "prompt", "retrieved", "answer", "check", "sources", "timings",
            "sentences", "verdict", "final_answer", "model_answer"]:
    assert key in data, key
assert len(data["retrieved"]) == 5 and data["verdict"] in ("verified", "extractive", "not_found")
assert {"compatibility.md", "quickstart.md"} & {r["source"] for r in data["retrieved"]}
print("verdict:", data["verdict"], "| model:", data["model"], "| retrieved:", [r["source"] for r in data["retrieved"]])
print("final answer:", data["final_answer"].replace("\n", " ")[:300])
print("timings:", data["timings"])
PY

say "Xvfb into the root (the test's own tool, not a dependency), then repobot gui --screenshot, inside unshare -n"
packages > "$WORK/before-xvfb.txt"
enter apt-get install -y -qq --no-install-recommends xvfb xauth > "$OUT/apt-xvfb.log" 2>&1 \
  || { tail -20 "$OUT/apt-xvfb.log"; exit 1; }
echo "test tools: $(packages | comm -13 "$WORK/before-xvfb.txt" - | wc -l) packages (xvfb, xauth and theirs)"
status=0
enter --offline xvfb-run -a -s "-screen 0 1600x1000x24" repobot gui --corpus /tmp/corpus \
  --ask "$QUESTION" --open-source 1 --screenshot /tmp/gui.png --quit > "$OUT/gui.log" 2>&1 || status=$?
grep -v propagateSizeHints "$OUT/gui.log" || true
[ "$status" -eq 0 ] || { echo "the window exited with status $status"; exit 1; }
# without fontconfig's configuration or a font the window still opens, with every letter drawn as a box
! grep -qE "Fontconfig error|QFontDatabase: Cannot find font" "$OUT/gui.log" || { echo "the window found no fonts"; exit 1; }
test -s "$R/tmp/gui.png"
cp "$R/tmp/gui.png" "$OUT/gui.png"
echo "screenshot: $OUT/gui.png ($(du -h "$OUT/gui.png" | cut -f1))"

say "removing the package"
enter apt-get remove -y -qq repobot > /dev/null
test ! -e "$R/opt/repobot" && test ! -e "$R/usr/bin/repobot"
echo "removed /opt/repobot and /usr/bin/repobot"
test -d "$R/tmp/home/indexes" && echo "user data kept: /tmp/home in the root"
say "smoke test passed (the root is deleted; its tarball stays cached in $CACHE)"
