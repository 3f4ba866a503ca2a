#!/usr/bin/env bash
# Build the Linux installer from a clean checkout:
#   dist/repobot_<version>_amd64.deb      (installs to /opt/repobot, `repobot` on the PATH, menu entry, icon)
#   dist/repobot-<version>-linux-x86_64.tar.gz   (the same bundle, for systems without dpkg)
# Only pip and apt packages are used; nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VERSION=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
BUILD=$ROOT/build/pkg
VENV=$BUILD/venv
WHEELS=$BUILD/wheels
mkdir -p "$BUILD" "$WHEELS" dist

step() { printf '\n== %s\n' "$*"; }

step "default models into models/ (the GGUF, sha256-checked, and the int8 ONNX embedding graph)"
make install >/dev/null

step "clean build venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet torch==2.13.0   # the CPU build; a looser pin pulls CUDA

step "portable llama-cpp-python (no -march=native; every x86-64 CPU variant, chosen at run time)"
if ! ls "$WHEELS"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON" \
    "$VENV/bin/pip" wheel --no-cache-dir --no-deps -w "$WHEELS" llama-cpp-python==0.3.36
fi
"$VENV/bin/pip" install --quiet --force-reinstall "$WHEELS"/llama_cpp_python-*.whl "$ROOT" pyinstaller==6.22.3

step "PyInstaller one-folder bundle"
rm -rf "$BUILD/dist" "$BUILD/work"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
  --distpath "$BUILD/dist" --workpath "$BUILD/work" packaging/repobot.spec
BUNDLE=$BUILD/dist/repobot
# no tests, caches or headers in the bundle
find "$BUNDLE" -name '__pycache__' -prune -exec rm -rf {} + 2>/dev/null || true
rm -rf "$BUNDLE"/_internal/torch/include "$BUNDLE"/_internal/torch/share/cmake 2>/dev/null || true

step "Depends: the system libraries the bundle's ELF files need and do not carry, and their Debian packages"
# Read from the bundle (DT_NEEDED, then `dpkg -S` on this machine), never written by hand: the build stops
# here when a needed library is not installed or belongs to no package.
# --also: what no DT_NEEDED shows. The bundled libfontconfig reads /etc/fonts/fonts.conf, and fontconfig-config
# brings that and, through its own Depends, a font (fonts-dejavu-core or another); without them Qt draws every
# letter as a box.
if ! DEPENDS=$("$VENV/bin/python" packaging/deb_depends.py "$BUNDLE" --also fontconfig-config); then
  echo "build stopped: the package's dependencies are incomplete (see above)" >&2
  exit 1
fi
echo "Depends: $DEPENDS"

step "tarball"
TAR=dist/repobot-$VERSION-linux-x86_64.tar.gz
tar -C "$BUILD/dist" -czf "$TAR" repobot

step "deb"
STAGE=$BUILD/deb
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
         "$STAGE/usr/share/icons/hicolor/256x256/apps"
cp -a "$BUNDLE" "$STAGE/opt/repobot"
ln -s /opt/repobot/repobot "$STAGE/usr/bin/repobot"
cp packaging/repobot.desktop "$STAGE/usr/share/applications/repobot.desktop"
QT_QPA_PLATFORM=offscreen "$VENV/bin/python" packaging/make_icon.py "$STAGE/usr/share/icons/hicolor/256x256/apps/repobot.png"
SIZE_KB=$(du -sk "$STAGE" | cut -f1)
cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: repobot
Version: $VERSION
Section: utils
Priority: optional
Architecture: amd64
Installed-Size: $SIZE_KB
Depends: $DEPENDS
Maintainer: RepoBot developers <repobot@localhost>
Description: Offline, cited answers about a folder of markdown documentation
 RepoBot runs a local language model and local embeddings to answer questions
 about your markdown docs. Every sentence cites its passage, and the citations
 are checked. Nothing is sent over the network.
CONTROL
# Uninstalling removes /opt/repobot only: indexes, settings and models in ~/.local/share/repobot stay.
fakeroot dpkg-deb --build -Zxz "$STAGE" "dist/repobot_${VERSION}_amd64.deb" >/dev/null

step "done"
ls -la dist/
du -sh "$BUNDLE" | sed 's/^/unpacked bundle: /'
echo "Depends: $DEPENDS"
