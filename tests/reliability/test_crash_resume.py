"""SIGKILL during indexing: the saved index stays usable (searchable, old vectors kept) and the next run resumes, in the real CLI."""

import faulthandler
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from repobot.engine.store import load_index, store_dir

pytestmark = pytest.mark.integration


def write_corpus(folder, files, start=0):
    folder.mkdir(exist_ok=True)
    for f in range(start, start + files):
        sections = "\n\n".join(
            f"## Section {s} of page {f}\n\nParagraph {s} explains option_{f}_{s} and how the client uses it "
            f"when sending requests to server number {f * 100 + s}." for s in range(10)
        )
        (folder / f"page{f:03d}.md").write_text(f"# Page {f}\n\n{sections}\n", encoding="utf-8")


def index(corpus, env):
    return subprocess.run([sys.executable, "-m", "repobot", "index", "--corpus", str(corpus), "--json"],
                          capture_output=True, text=True, timeout=900, env=env)


def test_kill_during_indexing_keeps_the_old_index_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path / "home"))
    env = dict(os.environ)
    corpus = tmp_path / "docs"
    write_corpus(corpus, 5)
    first = index(corpus, env)
    assert first.returncode == 0, first.stderr
    write_corpus(corpus, 160, start=5)  # 1,600 new chunks: several checkpoint groups

    partial = store_dir(corpus) / "partial"
    proc = subprocess.Popen([sys.executable, "-m", "repobot", "index", "--corpus", str(corpus), "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 600
    while time.time() < deadline and not any(partial.rglob("*.npy")):
        assert proc.poll() is None, "indexing finished before it could be killed"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before_kill = len(list(partial.rglob("*.npy")))
    assert done_before_kill >= 1

    # The saved index loads: every file is searchable (BM25) at once, the old files keep
    # their vectors, and the new ones are still waiting for theirs.
    saved = load_index(corpus)
    assert len(saved.files) == 165
    first_five = {f"page{f:03d}.md" for f in range(5)}
    assert saved.pending and not first_five & set(saved.pending)
    assert saved.embedded.sum() >= 50

    second = index(corpus, env)
    assert second.returncode == 0, second.stderr
    report = json.loads(second.stdout)
    assert report["files"] == 165
    assert report["embedded_chunks"] <= report["chunks"] - 10 * done_before_kill  # resumed, not restarted
    assert len(load_index(corpus).files) == 165
    assert not partial.exists()


def test_a_native_crash_is_recorded_and_named_at_the_next_start(tmp_path):
    """A segfault inside native code (here a null read standing in for llama.cpp) leaves its Python stack behind."""
    from repobot.desktop.app import KEPT_CRASH_LOG, record_crashes

    crash = ("import ctypes, pathlib, sys\n"
             "from repobot.desktop.app import record_crashes\n"
             "record_crashes(pathlib.Path(sys.argv[1]))\n"
             "def decode():\n    ctypes.string_at(0)\n"
             "decode()\n")
    result = subprocess.run([sys.executable, "-c", crash, str(tmp_path)], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == -signal.SIGSEGV
    log, message = record_crashes(tmp_path)
    log.close()
    faulthandler.disable()
    assert message.startswith("RepoBot stopped unexpectedly last time, in native code.")
    assert "in decode" in (tmp_path / KEPT_CRASH_LOG).read_text()
    again, message = record_crashes(tmp_path)
    again.close()
    faulthandler.disable()
    assert message is None  # the report was kept aside once; the new log is empty


def test_two_ctrl_c_while_embedding_quit_cleanly_and_the_next_run_finishes(tmp_path, monkeypatch):
    # The second Ctrl-C used to land while Python waited for the embedder's threads, and the
    # process aborted inside onnxruntime (exit 134). `timeout -s INT` sends two, to the process and its group.
    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path / "home"))
    env = dict(os.environ)
    corpus = tmp_path / "docs"
    write_corpus(corpus, 100)
    partial = store_dir(corpus) / "partial"
    proc = subprocess.Popen([sys.executable, "-m", "repobot", "index", "--corpus", str(corpus), "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while time.time() < deadline and not any(partial.rglob("*.npy")):
        assert proc.poll() is None, "indexing finished before it could be interrupted"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines() == ["repobot: interrupted"]

    finished = index(corpus, env)
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["files"] == 100
    assert not partial.exists()
