"""The saved index against hostile names and data folders: a file name that is not UTF-8, a data folder that cannot
be written, a corpus folder name too long for a file name, a saved index of the wrong shape. Each ends in one line
that says how to fix it (or in a rebuild), and nothing saved is lost."""

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from repobot.engine import store
from repobot.engine.collection import Collection
from repobot.engine.errors import IndexStoreError, RepoBotError
from repobot.engine.history import History
from repobot.engine.load import NAME_NOT_UTF8, load_corpus
from repobot.engine.pipeline import Pipeline
from repobot.engine.store import NAME_BYTES, DiskCheckpoint, load_index, save_index, store_dir
from tests.conftest import fake_models

BAD_NAME = os.fsdecode(b"z\xff.md")  # as Python names a file whose name has a byte that is not UTF-8
UNWRITABLE = r"^RepoBot cannot write its data folder .* make it a folder you can write, or set REPOBOT_HOME to one\.$"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("REPOBOT_HOME", str(folder))
    return folder


def indexed(folder: Path) -> Pipeline:
    pipe = Pipeline(folder, models=fake_models())
    pipe.build_index()
    return pipe


def leftovers(folder: Path) -> list[str]:
    """Temporary folders a save left behind in a store."""
    return [p.name for p in folder.iterdir() if p.name.startswith(".tmp-")]


def repobot(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "repobot", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


# -- 2. a file name that is not UTF-8 ----------------------------------------------------------------------------
def test_a_file_name_that_is_not_utf8_is_skipped_and_named_and_the_rest_indexed(docs, home):
    (docs / BAD_NAME).write_text("# Bad name\n\nThe pool limits are here.\n")
    assert ("z\\xff.md", NAME_NOT_UTF8) in load_corpus(docs).problems
    pipe = indexed(docs)
    assert set(pipe.index.files) == {"guide/redirects.md", "timeouts.md"}
    assert [p.source for p in pipe.collection.problems] == ["z\\xff.md"]
    assert load_index(docs).files.keys() == pipe.index.files.keys()
    for hit in pipe.search("redirects timeout pool").hits:  # every name shown can be printed and saved as UTF-8
        hit.chunk.source.encode("utf-8")


def test_json_saved_with_a_path_that_is_not_utf8_reads_back_the_same(tmp_path):
    """Settings hold folder paths: such a path made the settings unsavable (UTF-8 cannot hold its lone surrogate)."""
    from repobot.engine.files import write_json_atomic

    data = {"collections": [f"/docs/{BAD_NAME}"], "title": "重定向"}
    write_json_atomic(tmp_path / "s.json", data)
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == data
    write_json_atomic(tmp_path / "t.json", {"title": "重定向"})
    assert "重定向" in (tmp_path / "t.json").read_text(encoding="utf-8")  # readable when it can be


def test_a_failed_save_leaves_no_temporary_folder_and_keeps_the_saved_index(docs, home):
    pipe = indexed(docs)
    before = load_index(docs).chunks
    broken = pipe.index
    broken.chunks[0] = broken.chunks[0]._replace(source=BAD_NAME)  # what a save met before names were checked
    with pytest.raises(UnicodeEncodeError):
        save_index(broken)
    assert leftovers(store_dir(docs)) == []
    assert load_index(docs).chunks == before


@pytest.mark.integration  # the real embedder, in the real command
def test_cli_indexes_and_searches_a_folder_with_a_file_name_that_is_not_utf8(docs, home):
    (docs / BAD_NAME).write_text("# Bad name\n\nThe pool limits are here.\n")
    strict = {"PYTHONIOENCODING": "utf-8:strict"}  # a surrogate printed would be an error, as under en_US.UTF-8
    result = repobot("index", "--corpus", str(docs), env=strict)
    assert result.returncode == 0, result.stderr
    assert f"warning: z\\xff.md: {NAME_NOT_UTF8}" in result.stderr.splitlines()
    found = repobot("search", "redirects", "--corpus", str(docs), "--json", env=strict)
    assert found.returncode == 0, found.stderr
    assert {hit["source"] for hit in json.loads(found.stdout)["hits"]} <= {"guide/redirects.md", "timeouts.md"}
    assert leftovers(store_dir(docs)) == []


@pytest.mark.integration  # the real embedder, in the real command
def test_json_output_names_a_folder_that_is_not_utf8_in_valid_unicode(docs, home):
    """Strict JSON tools reject the lone surrogate Python keeps for such a byte: it is written \\xff instead."""
    folder = docs.parent / os.fsdecode(b"c2\xffdir")
    docs.rename(folder)
    result = repobot("index", "--corpus", str(folder), "--json", env={"PYTHONIOENCODING": "utf-8:strict"})
    assert result.returncode == 0, result.stderr
    corpus = json.loads(result.stdout)["corpus"]
    assert corpus.endswith("c2\\xffdir") and corpus.encode("utf-8")


# -- 4. a data folder that cannot be written ---------------------------------------------------------------------
def test_a_data_folder_that_is_a_file_is_one_line_with_the_fix(docs, tmp_path, monkeypatch):
    a_file = tmp_path / "home"
    a_file.write_text("not a folder")
    monkeypatch.setenv("REPOBOT_HOME", str(a_file))
    for action in (lambda: indexed(docs), lambda: load_index(docs),
                   lambda: Collection(docs, fake_models()).choose_languages(["en"]),
                   lambda: Collection(docs, fake_models()).history.new("Redirects")):
        with pytest.raises(RepoBotError, match=UNWRITABLE) as caught:
            action()
        assert "Not a directory" in str(caught.value) and "\n" not in str(caught.value)
    assert a_file.read_text() == "not a folder"


@pytest.mark.parametrize("step", ["mkdir", "lock", "CURRENT"])
def test_a_read_only_data_folder_is_one_line_and_the_saved_index_is_kept(docs, home, monkeypatch, step):
    # Tests run as root, where a read-only folder can still be written: the refusal is raised where it would be.
    pipe = indexed(docs)
    before = load_index(docs).chunks
    (docs / "timeouts.md").write_text("# Timeouts\n\nChanged.\n")

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(home))

    write = store.write_text_atomic
    with monkeypatch.context() as patch:
        if step == "mkdir":
            patch.setattr(store.Path, "mkdir", refuse)
        elif step == "lock":
            patch.setattr(store, "locked", refuse)
        else:
            patch.setattr(store, "write_text_atomic",
                          lambda path, text: refuse() if path.name == "CURRENT" else write(path, text))
        with pytest.raises(RepoBotError, match=UNWRITABLE) as caught:
            pipe.build_index()
    assert f"data folder {home} (Permission denied)" in str(caught.value)
    assert load_index(docs).chunks == before
    assert [p.name for p in store_dir(docs).iterdir() if p.is_dir()] == [(store_dir(docs) / "CURRENT").read_text()]


def test_the_language_choice_that_cannot_be_saved_is_one_line(docs, home, monkeypatch):
    def refuse(path, data):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr("repobot.engine.collection.write_json_atomic", refuse)
    with pytest.raises(RepoBotError, match=UNWRITABLE):
        Collection(docs, fake_models()).choose_languages(["en"])


def test_the_history_and_the_checkpoint_say_the_same_about_an_unwritable_folder(tmp_path, home):
    a_file = tmp_path / "file"
    a_file.write_text("")
    history = History(a_file / "history.sqlite3")  # only read so far: nothing to write, nothing to refuse
    assert history.conversations() == []
    with pytest.raises(RepoBotError, match=UNWRITABLE):
        history.new("Redirects")
    with pytest.raises(RepoBotError, match=UNWRITABLE):
        DiskCheckpoint(a_file, "fake-embedder").put("abc", np.ones((1, 2), np.float32))


def test_cli_with_a_data_folder_that_is_a_file(docs, tmp_path):
    a_file = tmp_path / "home"
    a_file.write_text("")
    result = repobot("index", "--corpus", str(docs), env={"REPOBOT_HOME": str(a_file)})
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"repobot: RepoBot cannot write its data folder {a_file} (Not a directory): "
                                          "make it a folder you can write, or set REPOBOT_HOME to one."]


WITHOUT_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]  # root that file modes stop


def can_drop_override() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv") is not None and \
        subprocess.run([*WITHOUT_OVERRIDE, "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not can_drop_override(), reason="needs root and a setpriv that may drop capabilities")
def test_cli_with_a_read_only_home(docs, tmp_path):
    """A read-only HOME and no REPOBOT_HOME, as root without the capability to override file permissions."""
    read_only = tmp_path / "ro-home"
    read_only.mkdir(mode=0o555)
    env = {k: v for k, v in os.environ.items() if k not in ("REPOBOT_HOME", "XDG_DATA_HOME")}
    result = subprocess.run([*WITHOUT_OVERRIDE, sys.executable, "-m", "repobot", "index", "--corpus", str(docs)],
                            capture_output=True, text=True, timeout=600, env={**env, "HOME": str(read_only)})
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"repobot: RepoBot cannot write its data folder {read_only}/.local/share/"
                                          "repobot (Permission denied): make it a folder you can write, or set "
                                          "REPOBOT_HOME to one."]


# -- 5. a corpus folder name too long to name its store after --------------------------------------------------------
@pytest.mark.parametrize("name", ["d" * 250, "é" + "文" * 79, "n" * 239])
def test_a_long_folder_name_is_indexed_in_a_store_with_a_short_name(tmp_path, home, name):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nHTTPX does not follow redirects by default.\n")
    pipe = indexed(folder)
    assert len(os.fsencode(store_dir(folder).name)) <= 120
    assert load_index(folder).files.keys() == pipe.index.files.keys() == {"a.md"}
    assert store_dir(folder).name.startswith(name[:20])


@pytest.mark.parametrize("name", ["docs", "文档", "n" * 238])
def test_a_folder_whose_store_name_fits_keeps_its_store_where_it_was(tmp_path, home, name):
    folder = tmp_path / name
    key = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:16]  # the name every store had so far
    assert store_dir(folder) == home / "indexes" / f"{name}-{key}"
    assert len(os.fsencode(store_dir(folder).name)) <= NAME_BYTES


# -- 10. a saved index of the wrong shape ------------------------------------------------------------------------
def _meta(change):
    def damage(folder: Path) -> None:
        path = folder / (folder / "CURRENT").read_text() / "meta.json"
        path.write_text(json.dumps(change(json.loads(path.read_text()))))
    return damage


def _meta_text(text):
    def damage(folder: Path) -> None:
        (folder / (folder / "CURRENT").read_text() / "meta.json").write_text(text)
    return damage


def _current(write):
    def damage(folder: Path) -> None:
        (folder / "CURRENT").unlink()
        write(folder / "CURRENT")
    return damage


def _without(key):
    return lambda meta: {k: v for k, v in meta.items() if k != key}


def _entries(change):
    return lambda meta: {**meta, "files": {source: change(entry) for source, entry in meta["files"].items()}}


DAMAGES = {
    "CURRENT undecodable": _current(lambda p: p.write_bytes(b"\xff\xfe\x00g1")),
    "CURRENT a folder": _current(lambda p: (p.mkdir(), (p / "x").write_text("x"))),
    "CURRENT empty": _current(lambda p: p.write_text("")),
    "CURRENT leads out of the store": _current(lambda p: p.write_text("..")),
    "CURRENT names a missing generation": _current(lambda p: p.write_text("g1")),
    "meta.json garbage": _meta_text('{"format": 9, "ro'),
    "meta.json nested too deep": _meta_text("[" * 100_000),
    "meta.json a string": _meta(lambda meta: "{"),
    "meta.json a list": _meta(lambda meta: [meta]),
    "sha256 null": _meta(lambda meta: {**meta, "sha256": None}),
    "sha256 of other files": _meta(lambda meta: {**meta, "sha256": {"../../x": "0"}}),
    "root missing": _meta(_without("root")),
    "pending missing": _meta(_without("pending")),
    "pending a number": _meta(lambda meta: {**meta, "pending": 5}),
    "pending of numbers": _meta(lambda meta: {**meta, "pending": [5]}),
    "chunks a string": _meta(lambda meta: {**meta, "chunks": "2"}),
    "files a list": _meta(lambda meta: {**meta, "files": []}),
    "a file entry short": _meta(_entries(lambda entry: entry[:2])),
    "a file entry of strings": _meta(_entries(lambda entry: [str(value) for value in entry])),
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_saved_index_of_the_wrong_shape_is_rebuilt_with_a_note(docs, home, damage):
    first = indexed(docs).index
    damage(store_dir(docs))
    with pytest.raises(IndexStoreError, match=r"^The saved index in .* is damaged \(.*\); it will be rebuilt\.$"):
        load_index(docs)
    again = indexed(docs)
    assert len(again.collection.notes) == 1 and "damaged" in again.collection.notes[0]
    assert again.index.chunks == first.chunks
    assert load_index(docs).chunks == first.chunks  # saved again, sound
    assert (store_dir(docs) / "CURRENT").is_file()


def test_two_repobots_asked_about_one_folder_at_once_embed_it_once(docs, home, monkeypatch):
    """The window and a command on the same new folder: the second waits for the first's embedding, saying so, and
    takes it up instead of embedding the folder again. Both end with the whole folder embedded."""
    from tests.conftest import FakeEmbedder

    go, calls = threading.Event(), []
    plain = FakeEmbedder.embed_batch

    def embed_batch(self, texts):
        calls.append(threading.current_thread().name)
        go.wait(10)  # the first RepoBot is still embedding while the second arrives
        return plain(self, texts)

    monkeypatch.setattr(FakeEmbedder, "embed_batch", embed_batch)
    first, second = Collection(docs, fake_models()), Collection(docs, fake_models())
    first.update(embed=False)
    stages, reports = [], []
    threads = [threading.Thread(target=lambda: reports.append(list(first.embed_steps())), name="first"),
               threading.Thread(target=lambda: reports.append(second.update(progress=lambda *p: stages.append(p))),
                                name="second")]
    threads[0].start()
    while not calls:
        time.sleep(0.01)
    threads[1].start()
    deadline = time.monotonic() + 10
    while not any(stage == "wait" for stage, _, _ in stages) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ("wait", 0, first.index.pending_chunks) in stages and threads[1].is_alive()
    go.set()
    for thread in threads:
        thread.join(20)
    assert set(calls) == {"first"}  # the second embedded nothing
    report = next(r for r in reports if not isinstance(r, list))
    assert report.embedded_chunks == 0
    assert not second.index.pending and not first.index.pending
    assert np.array_equal(second.index.vectors, first.index.vectors)


def test_a_store_where_no_embedding_lock_can_be_had_is_still_embedded(docs, home):
    """A read-only store (or a file system without locks) gave a traceback from the lock file: the work goes ahead
    unlocked, and saving says what is wrong if anything is."""
    store.prepared_store_dir(docs)
    (store_dir(docs) / "embedding").mkdir()  # opening it for the lock fails, as in a read-only store
    report = Collection(docs, fake_models()).update()
    assert report.embedded_chunks > 0 and not load_index(docs).pending
