"""The pre-flight check before Qt loads: no display, or a platform plugin whose libraries are missing,
ends in a message that says what to do and exit code 2; never an abort, a core dump or a traceback."""

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from repobot.desktop import elf, preflight

PYSIDE = preflight.pyside_dir()
PLUGIN = PYSIDE / "Qt" / "plugins" / "platforms" / "libqxcb.so" if PYSIDE else None
needs_plugin = pytest.mark.skipif(not (sys.platform.startswith("linux") and PLUGIN and PLUGIN.exists()),
                                  reason="needs Linux and PySide6's xcb platform plugin")
MISSING = "libdoesnotexist.so.9"


def gui_env(**changes) -> dict:
    """The test process's environment without any display or Qt platform choice, plus ``changes``."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE", "REPOBOT_SKIP_PREFLIGHT")}
    env.update(changes)
    return env


def repobot_gui(env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "repobot", "gui", "--quit"], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.fixture(scope="module")
def broken_plugin(tmp_path_factory) -> Path:
    """A copy of libqxcb.so whose DT_NEEDED also names a library that exists nowhere.

    With patchelf (Debian's ``patchelf``): the real plugin, its RUNPATH pointed back at PySide6's Qt/lib so
    that only the made-up library is missing. Without it: a tiny plugin built with gcc against a stub library
    of that name, which is then deleted."""
    folder = tmp_path_factory.mktemp("plugin")
    copy = folder / "libqxcb.so"
    if shutil.which("patchelf"):
        shutil.copy(PLUGIN, copy)
        # two calls: patchelf 0.14 given both options at once writes the new name into RUNPATH as well
        subprocess.run(["patchelf", "--set-rpath", str(PYSIDE / "Qt" / "lib"), str(copy)], check=True)
        subprocess.run(["patchelf", "--add-needed", MISSING, str(copy)], check=True)
    elif shutil.which("gcc"):
        source = folder / "plugin.c"
        source.write_text("int repobot_plugin(void) { return 0; }\n")
        stub = folder / MISSING
        subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{MISSING}", "-o", str(stub), str(source)], check=True)
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(copy), str(source), "-Wl,--no-as-needed", str(stub)],
                       check=True)
        stub.unlink()
    else:
        pytest.skip("neither patchelf nor gcc is installed: cannot make a plugin with a missing library")
    assert MISSING in elf.read_elf(copy).needed
    return copy


@needs_plugin
def test_the_elf_reader_agrees_with_readelf():
    if not shutil.which("readelf"):
        pytest.skip("readelf (binutils) is not installed")
    for path in [PLUGIN, *sorted((PYSIDE / "Qt" / "lib").glob("libQt6*.so.6"))[:8]]:
        out = subprocess.run(["readelf", "-dW", str(path)], capture_output=True, text=True, check=True).stdout
        found = elf.read_elf(path)
        assert found.needed == tuple(re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", out)), path
        assert found.runpath == tuple(":".join(re.findall(r"\(RUNPATH\)\s+Library runpath: \[(.*)\]", out)).split(":")
                                    if "RUNPATH" in out else ())


@pytest.mark.skipif(not (os.path.exists("/etc/ld.so.cache") and shutil.which("ldconfig")), reason="needs glibc's ldconfig")
def test_the_ld_cache_reader_agrees_with_ldconfig():
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    listed = set(re.findall(r"^\s+(\S+) \(.*\) => (\S+)$", out, re.M))
    cache = elf.parse_ld_cache(Path("/etc/ld.so.cache").read_bytes())
    assert {(name, path) for name, paths in cache.items() for path in paths} == listed


@needs_plugin
def test_a_plugin_with_a_missing_library_names_it_and_how_to_find_it(broken_plugin):
    missing = elf.missing_libraries([broken_plugin], elf.system_search())
    assert MISSING in missing and missing[MISSING] == ["libqxcb.so"]
    assert not any(name.startswith("libQt6") for name in missing)  # only the made-up one is not where it should be
    message = preflight.check(gui_env(DISPLAY=":99", REPOBOT_QXCB_PLUGIN=str(broken_plugin)))
    assert message.startswith("repobot: the window cannot open:")
    assert MISSING in message
    assert f"apt-file search {MISSING}" in message and f"dnf provides '*/{MISSING}'" in message
    assert 'repobot ask "QUESTION"' in message


@needs_plugin
def test_repobot_gui_with_the_broken_plugin_exits_2_with_the_message(broken_plugin):
    result = repobot_gui(gui_env(DISPLAY=":99", REPOBOT_QXCB_PLUGIN=str(broken_plugin)))
    assert result.returncode == 2, result.stderr  # not -6 (abort) or a core dump
    assert MISSING in result.stderr and f"apt-file search {MISSING}" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


@needs_plugin
def test_every_system_library_qt_needs_maps_to_apt_and_dnf_packages():
    # Nothing but the libraries' own RUNPATHs to search: everything Qt takes from the system shows up as missing.
    files = preflight.files_to_check({"DISPLAY": ":0"}, PYSIDE)
    missing = elf.missing_libraries(files, elf.Search((), {}, ()))
    assert {"libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0", "libX11-xcb.so.1"} <= set(missing)
    assert not any(name.startswith("libQt6") for name in missing)  # PySide6's own, found through $ORIGIN
    debian, fedora, unknown = preflight.packages_for(missing)
    assert unknown == []
    message = preflight.missing_message(missing)
    apt = re.search(r"^  Debian/Ubuntu: sudo apt install (.+)$", message, re.M).group(1).split()
    dnf = re.search(r"^  Fedora: +sudo dnf install (.+)$", message, re.M).group(1).split()
    assert {"libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0", "libx11-xcb1", "libxkbcommon-x11-0"} <= set(apt)
    assert {"xcb-util-wm", "xcb-util-keysyms", "xcb-util-cursor", "libX11-xcb", "libxkbcommon-x11"} <= set(dnf)


def test_no_display_exits_2_with_one_line_that_says_what_to_do():
    result = repobot_gui(gui_env())
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "no display" in result.stderr
    assert 'repobot ask "QUESTION"' in result.stderr and "QT_QPA_PLATFORM=offscreen" in result.stderr


def test_an_explicit_platform_and_a_wayland_session_skip_the_x11_checks():
    assert preflight.display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert preflight.display_problem({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}) is None
    assert preflight.files_to_check({"QT_QPA_PLATFORM": "offscreen"}, None) == []
    assert preflight.check(gui_env(QT_QPA_PLATFORM="offscreen")) is None  # as `make test` runs the window


def test_a_display_nobody_listens_on_is_found_before_qt_aborts():
    number = 60000 + os.getpid() % 5000
    assert not preflight.x_server_answers(f":{number}")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:  # an X server's abstract socket, no file
        server.bind(f"\0/tmp/.X11-unix/X{number}")
        server.listen(1)
        assert preflight.x_server_answers(f":{number}") and preflight.x_server_answers(f"unix:{number}.0")


@needs_plugin
def test_repobot_gui_with_no_x_server_at_display_exits_2_with_one_line():
    # The offscreen plugin stands in for a healthy xcb plugin: its libraries load wherever `make test` runs.
    healthy = PYSIDE / "Qt" / "plugins" / "platforms" / "libqoffscreen.so"
    result = repobot_gui(gui_env(DISPLAY=":64999", REPOBOT_QXCB_PLUGIN=str(healthy)))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "no X server answers on display :64999" in result.stderr and "repobot ask" in result.stderr
