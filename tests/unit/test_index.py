import threading

import numpy as np
import pytest

from repobot.engine.errors import Cancelled, IndexStoreError
from repobot.engine.bm25 import Bm25Index
from repobot.engine.index import embed_pending, update_index
from repobot.engine.store import DiskCheckpoint, load_index, save_index, store_dir
from repobot.engine.load import load_corpus
from repobot.engine.retrieve import retrieve, widen


def build(docs, embedder, previous=None):
    """Both steps: searchable, then embedded."""
    index, report = update_index(load_corpus(docs), embedder, previous)
    list(embed_pending(index, embedder))
    return index, report


def test_build_search_and_persist(docs, fake_embedder):
    index, report = build(docs, fake_embedder)
    assert sorted(report.added) == ["guide/redirects.md", "timeouts.md"]
    assert index.vectors.shape == (len(index.chunks), fake_embedder.dim)
    hits = retrieve(index, fake_embedder, ["follow_redirects"], mode="bm25")
    assert hits[0].chunk.source == "guide/redirects.md"
    save_index(index)
    again = load_index(docs)
    assert again.chunks == index.chunks and np.array_equal(again.vectors, index.vectors)


def test_incremental_edit_delete_rename(docs, fake_embedder):
    first, _ = build(docs, fake_embedder)
    (docs / "timeouts.md").write_text("# Timeouts\n\nChanged text.\n")
    second, report = update_index(load_corpus(docs), fake_embedder, first)
    assert report.updated == ["timeouts.md"] and second.pending == ["timeouts.md"] and second.pending_chunks == 1
    list(embed_pending(second, fake_embedder))
    (docs / "guide" / "redirects.md").rename(docs / "moved.md")
    third, report = update_index(load_corpus(docs), fake_embedder, second)
    assert report.added == ["moved.md"] and report.removed == ["guide/redirects.md"]
    assert third.pending == []  # same content, new name: vectors reused
    assert {c.source for c in third.chunks} == {"moved.md", "timeouts.md"}


def test_a_page_or_folder_that_cannot_be_read_for_a_moment_keeps_what_was_indexed(docs, fake_embedder, monkeypatch):
    """A permission changed for a moment dropped the pages from the index ("skipped", yet "removed 11")."""
    import os
    from pathlib import Path

    (docs / "index.md").write_text("# Home\n\nStart here.\n")
    first, _ = build(docs, fake_embedder)
    real_scandir, real_read = os.scandir, Path.read_bytes

    def scandir(path="."):  # root reads any folder: refuse as the system would refuse a user
        if Path(path).name == "guide":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def read_bytes(path):
        if path.name == "timeouts.md":
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    corpus = load_corpus(docs)
    assert [d.source for d in corpus.documents] == ["index.md"]
    second, report = update_index(corpus, fake_embedder, first)
    assert report.removed == [] and sorted(report.unchanged) == ["guide/redirects.md", "index.md", "timeouts.md"]
    assert sorted(second.chunks) == sorted(first.chunks) and second.pending == []
    hits = retrieve(second, fake_embedder, ["follow_redirects"], mode="bm25")
    assert hits[0].chunk.source == "guide/redirects.md"
    binary = corpus._replace(problems=[p._replace(reason="skipped: binary file, not markdown") for p in corpus.problems])
    assert update_index(binary, fake_embedder, first)[1].removed == ["guide/redirects.md", "timeouts.md"]


def test_searchable_before_embedding_and_dense_as_files_arrive(docs, fake_embedder):
    index, _ = update_index(load_corpus(docs), fake_embedder)
    assert sorted(index.pending) == ["guide/redirects.md", "timeouts.md"] and not index.embedded.any()
    hits = retrieve(index, fake_embedder, ["timeout"], mode="hybrid")
    assert hits[0].chunk.source == "timeouts.md"  # BM25 alone, at once
    steps = list(embed_pending(index, fake_embedder, group=1))
    assert [done for done, _ in steps] == sorted(done for done, _ in steps) and steps[-1][0] == steps[-1][1]
    assert index.pending == [] and index.embedded.all()


def test_killed_embedding_resumes_from_its_checkpoint(docs, fake_embedder, tmp_path):
    checkpoint = DiskCheckpoint(tmp_path / "partial", fake_embedder.name)
    index, _ = update_index(load_corpus(docs), fake_embedder, checkpoint=checkpoint)
    first = index.pending[0]
    next(embed_pending(index, fake_embedder, checkpoint=checkpoint, group=1))  # one file done, then "killed"
    again, _ = update_index(load_corpus(docs), fake_embedder, checkpoint=checkpoint)
    assert first not in again.pending and len(again.pending) == 1


def test_a_checkpoint_file_left_empty_by_a_power_cut_is_embedded_again(docs, fake_embedder, tmp_path):
    checkpoint = DiskCheckpoint(tmp_path / "partial", fake_embedder.name)
    index, _ = update_index(load_corpus(docs), fake_embedder, checkpoint=checkpoint)
    list(embed_pending(index, fake_embedder, checkpoint=checkpoint))
    for saved in checkpoint.folder.glob("*.npy"):
        saved.write_bytes(b"")
    again, _ = update_index(load_corpus(docs), fake_embedder, checkpoint=checkpoint)  # EOFError before
    assert len(again.pending) == 2


@pytest.mark.parametrize("name", ["vectors.npy", "chunks.jsonl", "bm25.npz"])
def test_corrupt_store_is_detected(docs, fake_embedder, name):
    index, _ = build(docs, fake_embedder)
    generation = save_index(index)
    with open(generation / name, "r+b") as fh:
        fh.truncate(100)
    with pytest.raises(IndexStoreError, match="damaged"):
        load_index(docs)


def test_saved_postings_search_like_a_fresh_fit(docs, fake_embedder):
    index, _ = build(docs, fake_embedder)
    save_index(index)
    loaded = load_index(docs)
    assert loaded.bm25 is not None  # loaded from the saved postings, not fitted again
    for query in (["redirects"], ["follow_redirects", "enable"], ["timeout", "absent"]):
        assert loaded.lexical.search(query, 5) == Bm25Index(index.tokens).search(query, 5)


def test_an_unchanged_folder_keeps_its_saved_postings_and_a_changed_one_refits(docs, fake_embedder):
    index, _ = build(docs, fake_embedder)
    save_index(index)
    loaded = load_index(docs)
    again, report = update_index(load_corpus(docs), fake_embedder, loaded)
    assert report.unchanged and again.bm25 is loaded.bm25
    (docs / "timeouts.md").write_text("# Timeouts\n\nThe pool timeout is new.\n")
    changed, _ = update_index(load_corpus(docs), fake_embedder, loaded)
    assert changed.bm25 is None and changed.lexical.search(["pool"], 5)


def test_cancel_leaves_the_saved_index_alone(docs, fake_embedder):
    index, _ = build(docs, fake_embedder)
    save_index(index)
    with pytest.raises(Cancelled):
        update_index(load_corpus(docs), fake_embedder, cancelled=lambda: True)
    assert load_index(docs).chunks == index.chunks
    assert not [p for p in store_dir(docs).iterdir() if p.name.startswith(".tmp")]


def test_two_processes_saving_one_index_never_delete_each_others_work(docs, fake_embedder, tmp_path):
    """Two RepoBots (here two processes' worth of threads) save the same folder's index over and over."""
    index, _ = build(docs, fake_embedder)
    errors = []

    def save_many():
        try:
            for _ in range(15):
                save_index(index, tmp_path)
        except Exception as err:  # noqa: BLE001 (the test reports any failure)
            errors.append(err)

    threads = [threading.Thread(target=save_many) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert load_index(docs, tmp_path).chunks == index.chunks
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == [(tmp_path / "CURRENT").read_text()]


def test_version_filter(tmp_path, fake_embedder):
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    (tmp_path / "v1" / "a.md").write_text("# Redirects\nRedirects are followed.")
    (tmp_path / "v2" / "a.md").write_text("# Redirects\nRedirects are not followed.")
    index, _ = build(tmp_path, fake_embedder)
    hits = retrieve(index, fake_embedder, ["redirects"], version="v2")
    assert [h.chunk.source for h in hits] == ["v2/a.md"]


def test_the_same_page_in_two_versions_keeps_each_version_when_updated(tmp_path, fake_embedder):
    """Versioned docs often start as a copy: reusing one copy's chunks must not give both its version."""
    for version in ("v1", "v2"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "install.md").write_text("# Install\n\npip install httpx\n")
    first, _ = build(tmp_path, fake_embedder)
    second, _ = build(tmp_path, fake_embedder, first)  # every start updates the saved index like this
    assert sorted((c.source, c.version) for c in second.chunks) == [("v1/install.md", "v1"), ("v2/install.md", "v2")]
    assert [h.chunk.source for h in retrieve(second, fake_embedder, ["install"], version="v1")] == ["v1/install.md"]


def test_page_languages_and_the_primary_language(tmp_path, fake_embedder):
    (tmp_path / "en").mkdir()
    (tmp_path / "zh").mkdir()
    (tmp_path / "en" / "a.md").write_text("# Redirects\nHTTPX does not follow redirects by default.")
    (tmp_path / "zh" / "a.md").write_text("# 重定向\nHTTPX 默认不会跟随重定向。")
    (tmp_path / "zh" / "b.md").write_text("# 超时\n默认超时是五秒。")
    index, _ = build(tmp_path, fake_embedder)
    assert index.languages == {"zh": 2, "en": 1}
    assert index.primary_language == "en"  # the original, even where translations outnumber it
    assert index.has("httpx") and not index.has("HTTP/3")


def test_an_english_page_that_quotes_japanese_is_english(tmp_path, fake_embedder):
    (tmp_path / "asking.md").write_text(
        "# Asking\n\nWhen the documents do not answer a question, RepoBot says so in a fixed phrase of the question's "
        "language and does not guess.\n\n- Chinese: \"文档里没有找到相关说明\"\n"
        "- Japanese: \"ドキュメントには関連する説明が見つかりませんでした\"\n\n"
        "The phrase is exact, so that programs can recognise it; keep it as it is when you copy an answer.\n")
    index, _ = build(tmp_path, fake_embedder)
    assert index.languages == {"en": 1}  # two kana were enough for Japanese before, as in a question


def test_one_long_page_cannot_fill_the_top_hits(tmp_path, fake_embedder):
    sections = "\n\n".join(f"## Timeouts {n}\nThe timeout of part {n} is five seconds, timeout timeout.\n" + "x " * 150
                           for n in range(6))
    (tmp_path / "long.md").write_text(f"# Timeouts\n{sections}")
    (tmp_path / "short.md").write_text("# Pool\nThe pool timeout is separate.")
    index, _ = build(tmp_path, fake_embedder)
    assert sum(c.source == "long.md" for c in index.chunks) >= 5
    hits = retrieve(index, fake_embedder, ["timeout"], mode="bm25", k=5)
    assert [h.chunk.source for h in hits] == ["long.md"] * 3 + ["short.md", "long.md"]  # the others come after


def test_a_hit_is_read_with_the_chunk_after_it_when_there_is_room(tmp_path, fake_embedder):
    filler = "More words about the old status code and why it changed. " * 8
    (tmp_path / "auth.md").write_text(f"# Old status codes\n\n## Before\nUntil 0.122.0 a failed login got 403. {filler}\n\n"
                                      f"## Going back\nOverride make_not_authenticated_error to get 403 again. {filler}\n")
    (tmp_path / "other.md").write_text("# Other\n\nA page about the 403 status code and nothing else.\n")
    index, _ = build(tmp_path, fake_embedder)
    assert [c.source for c in index.chunks] == ["auth.md", "auth.md", "other.md"]
    first, last = (retrieve(index, fake_embedder, [q], mode="bm25", k=1)[0]
                   for q in ("failed login until 0.122.0", "override make_not_authenticated_error"))
    assert (first.chunk_id, last.chunk_id) == (0, 1)

    [wide] = widen([first], index.chunks, budget=3000)  # the chunk after it
    assert "make_not_authenticated_error" in wide.chunk.text and wide.chunk.text.startswith(first.chunk.text)
    assert (wide.rank, wide.chunk_id, wide.chunk.start, wide.chunk.heading) == (
        first.rank, first.chunk_id, first.chunk.start, first.chunk.heading)
    assert wide.chunk.end == last.chunk.end  # the viewer highlights what the model read

    [wide] = widen([last], index.chunks, budget=3000)  # the next chunk is another page's: the one before instead
    assert "Other" not in wide.chunk.text and wide.chunk.text.startswith(first.chunk.text)
    assert wide.chunk.heading == last.chunk.heading  # its own section's heading, not the previous chunk's
    assert widen([first, last], index.chunks, budget=3000) == [first, last]  # a hit is never repeated in another
    assert widen([first], index.chunks, budget=len(first.chunk.text) + len(last.chunk.text) - 1) == [first]  # no room
    assert widen([first], index.chunks, budget=0) == [first]


def test_a_change_log_comes_after_the_page_that_explains_unless_versions_are_asked_about(tmp_path, fake_embedder):
    (tmp_path / "release-notes.md").write_text("# Release Notes\n\n## 0.9.0\n\n* Add background tasks to send an "
                                               "email in the background after the response. Email, email.\n")
    (tmp_path / "background.md").write_text("# Background tasks\n\nSend the email after returning the response.\n")
    for name in ("cors", "files", "forms", "testing"):
        (tmp_path / f"{name}.md").write_text(f"# {name.title()}\n\nHow {name} works.\n")
    index, _ = build(tmp_path, fake_embedder)

    def first(question, mode):
        return retrieve(index, fake_embedder, [question], mode=mode, k=2)[0].chunk.source

    for mode in ("dense", "hybrid"):
        assert first("send an email in the background", mode) == "background.md", mode  # the log's score counts half
    assert first("the 0.9.0 release: email in background tasks", "bm25") == "release-notes.md"


def test_a_page_kept_while_unreadable_keeps_its_own_source_and_version_beside_a_twin_of_the_same_text(
        tmp_path, fake_embedder, monkeypatch):
    import os
    from pathlib import Path

    for version in ("v1", "v2"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "api.md").write_text("# API\n\nThe same text in both versions.\n")
    first, _ = build(tmp_path, fake_embedder)
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": (_ for _ in ()).throw(PermissionError(13, "Permission denied",
                        str(path))) if Path(path).name == "v1" else real_scandir(path))
    second, report = update_index(load_corpus(tmp_path), fake_embedder, first)
    assert report.removed == []
    assert sorted((c.source, c.version) for c in second.chunks) == sorted((c.source, c.version) for c in first.chunks)


def test_the_folder_says_which_pages_keep_what_was_indexed_of_them(docs, monkeypatch, tmp_path_factory):
    from pathlib import Path

    from repobot.engine.collection import Collection
    from tests.conftest import fake_models

    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path_factory.mktemp("home")))
    (docs / "index.md").write_text("# Home\n\nStart here.\n")
    Collection(docs, fake_models()).update()
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: (_ for _ in ()).throw(PermissionError(13, "Permission denied"))
                        if p.name == "timeouts.md" else real_read(p))
    again = Collection(docs, fake_models())
    report = again.update()
    assert report.removed == [] and "timeouts.md" in again.index.files
    assert again.notes == ["timeouts.md could not be read this time: what was indexed of them before is kept until "
                           "they can be read again."]
    assert [p.reason for p in again.problems] == ["skipped: cannot read (Permission denied)"]
