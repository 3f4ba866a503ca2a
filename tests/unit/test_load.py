import os
from pathlib import Path

import pytest

from repobot.engine.errors import CorpusError
from repobot.engine.load import load_corpus
from tests.conftest import refuse_listing


def test_missing_empty_and_file_paths_give_a_fix(tmp_path):
    with pytest.raises(CorpusError, match="No such folder"):
        load_corpus(tmp_path / "nope")
    with pytest.raises(CorpusError, match=r"No readable markdown \(\*\.md\) files"):
        load_corpus(tmp_path)
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(CorpusError, match="is a file, not a folder"):
        load_corpus(tmp_path / "a.txt")


def test_bad_files_are_reported_and_good_ones_kept(tmp_path):
    (tmp_path / "good.md").write_text("# Good\nfine", encoding="utf-8")
    (tmp_path / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (tmp_path / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (tmp_path / "empty.md").write_text("")
    corpus = load_corpus(tmp_path)
    sources = [d.source for d in corpus.documents]
    assert sources == ["empty.md", "good.md", "latin1.md"]
    problems = dict(corpus.problems)
    assert problems["binary.md"] == "skipped: binary file, not markdown"
    assert "not UTF-8" in problems["latin1.md"]
    assert "\ufffd" in corpus.documents[2].text


def test_utf16_files_with_a_byte_order_mark_are_read_not_skipped_as_binary(tmp_path):
    text = "# Clients\n\n使用 `httpx.Client()` 复用连接。\n"
    (tmp_path / "le.md").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    (tmp_path / "be.md").write_bytes(b"\xfe\xff" + text.encode("utf-16-be"))
    (tmp_path / "cut.md").write_bytes(b"\xff\xfe" + text.encode("utf-16-le") + b"#")  # an odd byte at the end
    corpus = load_corpus(tmp_path)
    documents = {d.source: d.text for d in corpus.documents}
    assert documents["le.md"] == documents["be.md"] == text
    assert documents["cut.md"].startswith(text) and "not valid UTF-16" in dict(corpus.problems)["cut.md"]


def test_unreadable_file_is_skipped(tmp_path, monkeypatch):
    (tmp_path / "ok.md").write_text("# ok")
    secret = tmp_path / "secret.md"
    secret.write_text("# secret")
    secret.chmod(0)
    if os.geteuid() == 0:  # root reads anything: make the read fail as it would for a user
        real = Path.read_bytes

        def denied(self):
            if self.name == "secret.md":
                raise PermissionError(13, "Permission denied")
            return real(self)

        monkeypatch.setattr(Path, "read_bytes", denied)
    corpus = load_corpus(tmp_path)
    assert dict(corpus.problems)["secret.md"] == "skipped: cannot read (Permission denied)"
    assert [d.source for d in corpus.documents] == ["ok.md"]


def test_symlinks_outside_the_folder_and_loops_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.md").write_text("# private")
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "page.md").write_text("# page")
    (root / "escape").symlink_to(outside)
    (root / "escape.md").symlink_to(outside / "private.md")
    (root / "sub" / "loop").symlink_to(root)
    corpus = load_corpus(root)
    assert [d.source for d in corpus.documents] == ["sub/page.md"]


def test_a_link_to_a_version_folder_does_not_index_that_version_twice(tmp_path):
    for version in ("v1", "v2"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "install.md").write_text(f"# Install {version}\n")
    (tmp_path / "latest").symlink_to(tmp_path / "v2")  # sorts before v1 and v2
    (tmp_path / "install.md").symlink_to(tmp_path / "v2" / "install.md")
    assert [d.source for d in load_corpus(tmp_path).documents] == ["v1/install.md", "v2/install.md"]


def test_hidden_and_dependency_folders_are_skipped(tmp_path):
    """A docs site's folder holds installed packages' READMEs too (node_modules): they are not its documentation."""
    for folder in (".git", "node_modules/left-pad", "site/__pycache__", "venv/lib/python3.11/site-packages/x"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "README.md").write_text("# not the docs")
    (tmp_path / "a.md").write_text("# a")
    assert [d.source for d in load_corpus(tmp_path).documents] == ["a.md"]


def test_a_looping_link_a_pipe_and_an_unlistable_folder_are_reported_not_fatal(tmp_path, monkeypatch):
    (tmp_path / "ok.md").write_text("# ok")
    (tmp_path / "self.md").symlink_to(tmp_path / "self.md")  # resolves to itself: Python 3.11 raises RuntimeError
    os.mkfifo(tmp_path / "pipe.md")  # reading it would wait forever
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.md").write_text("# x")
    refuse_listing(monkeypatch, "locked")
    corpus = load_corpus(tmp_path)
    assert [d.source for d in corpus.documents] == ["ok.md"]
    problems = dict(corpus.problems)
    assert problems["pipe.md"] == "skipped: not a regular file"
    assert problems["locked/"] == "skipped: cannot list this folder (Permission denied)"


def test_a_folder_that_may_be_listed_but_not_searched_is_skipped_alone(tmp_path, monkeypatch):
    # As root, chmod a-x does not stop lstat, so the refusal the kernel gives other users is staged here.
    (tmp_path / "ok.md").write_text("# Ok\nfine")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "page.md").write_text("# Page")
    real_is_symlink = Path.is_symlink

    def is_symlink(path):
        if path.parent.name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_is_symlink(path)

    monkeypatch.setattr(Path, "is_symlink", is_symlink)
    corpus = load_corpus(tmp_path)
    assert [d.source for d in corpus.documents] == ["ok.md"]
    assert dict(corpus.problems) == {"locked/": "skipped: cannot list this folder (Permission denied)"}


def test_a_corpus_under_a_folder_that_may_not_be_searched_says_how_to_fix_it(tmp_path, monkeypatch):
    def exists(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Path, "exists", exists)
    with pytest.raises(CorpusError, match=r"^Cannot reach .*docs: Permission denied\. Check that you may open"):
        load_corpus(tmp_path / "private" / "docs")
