#!/usr/bin/env bash
# Smoke test of the built .deb on this machine (not part of `make test`: it needs the installer built first).
#  1. install the .deb (apt resolves its few system libraries)   2. repobot --version
#  3. repobot ask --json on the httpx docs inside `unshare -n` (no network at all), and check the JSON
#  4. repobot gui --screenshot under Xvfb                         5. remove the package; user data stays
set -euo pipefail
cd "$(dirname "$0")/.."
DEB=$(ls -t dist/repobot_*_amd64.deb | head -1)
CORPUS=$(realpath "${CORPUS:-../shared/corpora/httpx/docs}")
WORK=$(mktemp -d)
export REPOBOT_HOME=$WORK/home
say() { printf '\n== %s\n' "$*"; }

say "installing $DEB ($(du -h "$DEB" | cut -f1))"
apt-get install -y -qq "./$DEB" >/dev/null
echo "installed: $(du -sh /opt/repobot | cut -f1) in /opt/repobot"
command -v repobot

say "repobot --version"
repobot --version

say "repobot ask --json inside unshare -n (no network)"
unshare -n repobot ask "Does httpx follow redirects by default?" --corpus "$CORPUS" --json > "$WORK/answer.json"
python3 - "$WORK/answer.json" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
for key in ["question", "language", "model", "prompt", "retrieved", "answer", "check", "sources", "timings",
            "sentences", "verdict", "final_answer", "model_answer"]:
    assert key in data, key
assert len(data["retrieved"]) == 5 and data["verdict"] in ("verified", "extractive", "not_found")
assert {"compatibility.md", "quickstart.md"} & {r["source"] for r in data["retrieved"]}
print("verdict:", data["verdict"], "| retrieved:", [r["source"] for r in data["retrieved"]])
print("final answer:", data["final_answer"].replace("\n", " ")[:300])
print("timings:", data["timings"])
PY

say "repobot gui --screenshot under Xvfb, inside unshare -n too"
status=0
unshare -n xvfb-run -a -s "-screen 0 1600x1000x24" repobot gui --corpus "$CORPUS" \
  --ask "Does httpx follow redirects by default?" --open-source 1 --screenshot "$WORK/gui.png" --quit \
  > "$WORK/gui.log" 2>&1 || status=$?
grep -v propagateSizeHints "$WORK/gui.log" || true
[ "$status" -eq 0 ] || { echo "the window exited with status $status"; exit 1; }
test -s "$WORK/gui.png"
echo "screenshot: $WORK/gui.png ($(du -h "$WORK/gui.png" | cut -f1))"

say "removing the package"
apt-get remove -y -qq repobot >/dev/null
hash -r
test ! -e /opt/repobot
test ! -e /usr/bin/repobot
echo "removed /opt/repobot and /usr/bin/repobot"
test -d "$REPOBOT_HOME/indexes" && echo "user data kept: $REPOBOT_HOME"
say "smoke test passed"
