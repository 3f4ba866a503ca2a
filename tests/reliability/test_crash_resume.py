"""SIGKILL during indexing: the saved index stays usable (searchable, old vectors kept) and the next run resumes, in the real CLI."""

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
