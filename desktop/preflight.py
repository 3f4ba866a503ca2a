"""Before Qt loads: can the window open here? If not, say what to install, and exit with code 2.

When Qt's platform plugin cannot load, Qt aborts the whole process ("Aborted",
often a core dump) and names at most one missing library. This check runs
first, on Linux only, and imports no Qt:

1. No display at all (no ``DISPLAY``, no ``WAYLAND_DISPLAY``, no ``QT_QPA_PLATFORM``):
   say so, and point to ``repobot ask`` and ``QT_QPA_PLATFORM=offscreen``.
2. Otherwise walk the shared libraries that PySide6's QtWidgets module and,
   when Qt will use X11, its xcb platform plugin (``libqxcb.so``) need, as the
   dynamic loader would (``DT_NEEDED``, ``RPATH``/``RUNPATH`` with ``$ORIGIN``,
   ``LD_LIBRARY_PATH``, ``/etc/ld.so.cache``, the default folders). The ELF
   reader below is plain Python. When that walk finds a missing library and
   ``ldd`` exists, ``ldd`` (the loader itself) has the last word.
3. Name the missing libraries, the ``sudo apt install`` and ``sudo dnf install``
   commands that provide them.
4. With X11, check that something answers at ``DISPLAY`` (Qt aborts when nothing does).

``REPOBOT_QXCB_PLUGIN`` points the check at another plugin file (for tests);
``REPOBOT_SKIP_PREFLIGHT=1`` turns the check off.

>>> qt_platform({"DISPLAY": ":0"})
'xcb'
>>> packages_for(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
(['libxcb-icccm4', 'libxcb-keysyms1'], ['xcb-util-keysyms', 'xcb-util-wm'], [])
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import socket
import sys
from pathlib import Path
from typing import Iterable, Mapping

from .elf import ldd_missing, missing_libraries, system_search

EXIT_CODE = 2

# soname -> (Debian/Ubuntu package, Fedora package). The libraries PySide6's Qt needs from the system
# (QtCore, QtGui, QtWidgets, the xcb and wayland platform plugins), and the usual ones around them.
PACKAGES: dict[str, tuple[str, str]] = {
    "libX11.so.6": ("libx11-6", "libX11"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libXau.so.6": ("libxau6", "libXau"),
    "libXdmcp.so.6": ("libxdmcp6", "libXdmcp"),
    "libXext.so.6": ("libxext6", "libXext"),
    "libXrender.so.1": ("libxrender1", "libXrender"),
    "libXi.so.6": ("libxi6", "libXi"),
    "libICE.so.6": ("libice6", "libICE"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so.1": ("libwayland-egl1", "libwayland-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libexpat.so.1": ("libexpat1", "expat"),
    "libpng16.so.16": ("libpng16-16", "libpng"),
    "libz.so.1": ("zlib1g", "zlib"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgobject-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgio-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libzstd.so.1": ("libzstd1", "libzstd"),
    "libbz2.so.1.0": ("libbz2-1.0", "bzip2-libs"),
    "libbrotlidec.so.1": ("libbrotli1", "libbrotli"),
    "libpcre2-8.so.0": ("libpcre2-8-0", "pcre2"),
    "libffi.so.8": ("libffi8", "libffi"),
    "libuuid.so.1": ("libuuid1", "libuuid"),
    "libgomp.so.1": ("libgomp1", "libgomp"),
    "libstdc++.so.6": ("libstdc++6", "libstdc++"),
    "libgcc_s.so.1": ("libgcc-s1", "libgcc"),
    "libc.so.6": ("libc6", "glibc"),
    "libm.so.6": ("libc6", "glibc"),
    "libdl.so.2": ("libc6", "glibc"),
    "libpthread.so.0": ("libc6", "glibc"),
    "librt.so.1": ("libc6", "glibc"),
    "ld-linux-x86-64.so.2": ("libc6", "glibc"),
}

NO_DISPLAY = (
    "repobot: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set). "
    'Ask in the terminal with `repobot ask "QUESTION"`, or run the window without a screen '
    "with QT_QPA_PLATFORM=offscreen."
)
NO_X_DISPLAY = (
    "repobot: Qt will use X11 (xcb) but DISPLAY is not set{wayland}. "
    'Ask in the terminal with `repobot ask "QUESTION"`, or run the window without a screen '
    "with QT_QPA_PLATFORM=offscreen."
)


# ---- the decision: which platform plugin Qt will load, and whether there is a display for it


def qt_platform(env: Mapping[str, str]) -> str:
    """The platform plugin Qt tries first on Linux, chosen from the environment as QGuiApplication does.

    ``QT_QPA_PLATFORM`` wins (its first entry, without options); a Wayland session
    (``XDG_SESSION_TYPE=wayland`` with ``WAYLAND_DISPLAY``) tries wayland first; else xcb.

    >>> qt_platform({})
    'xcb'
    >>> qt_platform({"QT_QPA_PLATFORM": "offscreen"}), qt_platform({"QT_QPA_PLATFORM": "xcb:nograb;wayland"})
    ('offscreen', 'xcb')
    >>> qt_platform({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"})
    'wayland'
    """
    chosen = env.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0].strip()
    if env.get("XDG_SESSION_TYPE") == "wayland" and env.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "xcb"


def display_problem(env: Mapping[str, str]) -> str | None:
    """The one-line message when Qt would find no display to connect to; None when there is one.

    >>> display_problem({"DISPLAY": ":0"}) is None, display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    (True, True)
    >>> print(display_problem({}))  # doctest: +ELLIPSIS
    repobot: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set). Ask in the terminal ...
    >>> print(display_problem({"WAYLAND_DISPLAY": "wayland-0"}))  # doctest: +ELLIPSIS
    repobot: Qt will use X11 (xcb) but DISPLAY is not set (on Wayland, set QT_QPA_PLATFORM=wayland). Ask ...
    """
    if qt_platform(env) != "xcb" or env.get("DISPLAY"):
        return None
    if not env.get("QT_QPA_PLATFORM") and not env.get("WAYLAND_DISPLAY"):
        return NO_DISPLAY
    wayland = " (on Wayland, set QT_QPA_PLATFORM=wayland)" if env.get("WAYLAND_DISPLAY") else ""
    return NO_X_DISPLAY.format(wayland=wayland)


def x_address(display: str) -> tuple[int, str | tuple[str, int]] | None:
    """(socket family, address) where the X server of a ``DISPLAY`` value listens, as libxcb connects;
    None for forms this check leaves to Qt (a socket path, another protocol).

    >>> x_address(":1") == (socket.AF_UNIX, "/tmp/.X11-unix/X1")
    True
    >>> x_address("localhost:10.0") == (socket.AF_INET, ("localhost", 6010))
    True
    """
    match = re.fullmatch(r"(?:(tcp|unix)/)?(\[[^\]]*\]|[^:/]*):(\d+)(?:\.\d+)?", display.strip())
    if not match:
        return None
    protocol, host, number = match.group(1), match.group(2).strip("[]"), int(match.group(3))
    if protocol == "unix" or (not protocol and host in ("", "unix")):
        return socket.AF_UNIX, f"/tmp/.X11-unix/X{number}"
    return socket.AF_INET, (host or "localhost", 6000 + number)


def x_server_answers(display: str, timeout: float = 3.0) -> bool:
    """Whether something accepts connections where ``DISPLAY`` points (True when this check cannot tell).

    A local display is a socket in /tmp/.X11-unix or, on Linux, the same name in the abstract namespace.

    >>> x_server_answers(":64999")
    False
    """
    address = x_address(display)
    if address is None:
        return True
    family, where = address
    targets = [where, "\0" + where] if family == socket.AF_UNIX else [where]
    for target in targets:
        try:
            if family == socket.AF_UNIX:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(timeout)
                    sock.connect(target)
            else:
                socket.create_connection(target, timeout=timeout).close()
            return True
        except OSError:
            continue
    return False


def unreachable_display_message(display: str) -> str:
    """The one line to print when no X server answers at ``DISPLAY``.

    >>> print(unreachable_display_message(":7"))  # doctest: +ELLIPSIS
    repobot: no X server answers on display :7 (DISPLAY=:7). Start RepoBot in a desktop session, ...
    """
    return (f"repobot: no X server answers on display {display} (DISPLAY={display}). Start RepoBot in a desktop "
            'session, ask in the terminal with `repobot ask "QUESTION"`, or run the window without a screen '
            "with QT_QPA_PLATFORM=offscreen.")


def packages_for(sonames: Iterable[str]) -> tuple[list[str], list[str], list[str]]:
    """(Debian/Ubuntu packages, Fedora packages, sonames with no known package), each sorted and unique.

    >>> packages_for(["libxcb-cursor.so.0", "libX11-xcb.so.1", "libxcb-shm.so.0", "libdoesnotexist.so.9"])
    (['libx11-xcb1', 'libxcb-cursor0', 'libxcb-shm0'], ['libX11-xcb', 'libxcb', 'xcb-util-cursor'], ['libdoesnotexist.so.9'])
    """
    sonames = list(sonames)
    known = [PACKAGES[s] for s in sonames if s in PACKAGES]
    return (sorted({d for d, _ in known}), sorted({f for _, f in known}), sorted({s for s in sonames if s not in PACKAGES}))


def missing_message(missing: Mapping[str, list[str]]) -> str:
    """What to print when libraries are missing: which ones, and the commands that install them.

    >>> print(missing_message({"libxcb-icccm.so.4": ["libqxcb.so"], "libxcb-keysyms.so.1": ["libqxcb.so"]}))
    repobot: the window cannot open: Qt needs 2 system libraries that are not installed: libxcb-icccm.so.4, libxcb-keysyms.so.1.
    Install them, then start RepoBot again:
      Debian/Ubuntu: sudo apt install libxcb-icccm4 libxcb-keysyms1
      Fedora:        sudo dnf install xcb-util-keysyms xcb-util-wm
    Without a window, `repobot ask "QUESTION"` answers in the terminal.
    >>> print(missing_message({"libdoesnotexist.so.9": ["libqxcb.so"]}))  # doctest: +ELLIPSIS
    repobot: the window cannot open: Qt needs 1 system library that is not installed: libdoesnotexist.so.9.
    Install it, then start RepoBot again:
      libdoesnotexist.so.9 (needed by libqxcb.so): find its package with `apt-file search libdoesnotexist.so.9` ...
    ...
    """
    names = sorted(missing)
    debian, fedora, unknown = packages_for(names)
    one = len(names) == 1
    lines = [
        f"repobot: the window cannot open: Qt needs {len(names)} system "
        f"{'library that is' if one else 'libraries that are'} not installed: {', '.join(names)}.",
        f"Install {'it' if one else 'them'}, then start RepoBot again:",
    ]
    if debian:
        lines.append(f"  Debian/Ubuntu: sudo apt install {' '.join(debian)}")
        lines.append(f"  Fedora:        sudo dnf install {' '.join(fedora)}")
    for name in unknown:
        needed_by = f" (needed by {', '.join(sorted(set(missing[name])))})" if missing[name] else ""
        lines.append(f"  {name}{needed_by}: find its package with `apt-file search {name}` "
                     f"(Debian/Ubuntu) or `dnf provides '*/{name}'` (Fedora)")
    lines.append('Without a window, `repobot ask "QUESTION"` answers in the terminal.')
    return "\n".join(lines)


# ---- the files to check, and the check


def bundle_dirs() -> list[str]:
    """The PyInstaller bundle's library folders (empty when running from source)."""
    bundle = getattr(sys, "_MEIPASS", None)
    return [bundle] if bundle else []


def pyside_dir() -> Path | None:
    """PySide6's package folder, found without importing it (importing it would load Qt)."""
    if getattr(sys, "_MEIPASS", None):
        return Path(sys._MEIPASS) / "PySide6"
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def files_to_check(env: Mapping[str, str], pyside: Path | None) -> list[str]:
    """QtWidgets' extension module, and the xcb plugin when Qt will use X11 (``REPOBOT_QXCB_PLUGIN`` overrides it).

    >>> files_to_check({"QT_QPA_PLATFORM": "xcb", "REPOBOT_QXCB_PLUGIN": "/tmp/libqxcb.so"}, None)
    ['/tmp/libqxcb.so']
    """
    files = []
    if pyside is not None:
        files += sorted(glob.glob(str(pyside / "QtWidgets*.so")))[:1]
    if qt_platform(env) == "xcb":
        plugin = env.get("REPOBOT_QXCB_PLUGIN")
        if not plugin and env.get("QT_QPA_PLATFORM_PLUGIN_PATH"):
            plugin = os.path.join(env["QT_QPA_PLATFORM_PLUGIN_PATH"], "libqxcb.so")
        if not plugin and pyside is not None:
            plugin = str(pyside / "Qt" / "plugins" / "platforms" / "libqxcb.so")
        if plugin and (os.path.exists(plugin) or env.get("REPOBOT_QXCB_PLUGIN")):
            files.append(plugin)
    return files


def check(env: Mapping[str, str] | None = None) -> str | None:
    """The message to print before exiting with code 2, or None when the window can start.

    >>> check({"QT_QPA_PLATFORM": "minimal", "REPOBOT_SKIP_PREFLIGHT": "1"}) is None
    True
    """
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux") or env.get("REPOBOT_SKIP_PREFLIGHT") == "1":
        return None
    problem = display_problem(env)
    if problem:
        return problem
    files = files_to_check(env, pyside_dir())
    if not files:
        return None
    missing = missing_libraries(files, system_search(env, bundle_dirs()))
    if missing:
        confirmed = ldd_missing(files, bundle_dirs())
        if confirmed is not None:
            missing = {name: by for name, by in missing.items() if name in confirmed}
            missing.update({name: [] for name in confirmed if name not in missing})
    if missing:
        return missing_message(missing)
    if qt_platform(env) == "xcb" and not x_server_answers(env["DISPLAY"]):
        return unreachable_display_message(env["DISPLAY"])
    return None


if __name__ == "__main__":
    message = check()
    print(message or "repobot: the window can open here.", file=sys.stderr if message else sys.stdout)
    sys.exit(EXIT_CODE if message else 0)
