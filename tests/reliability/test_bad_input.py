"""Bad corpora, bad questions and damaged settings: a clear message, and nothing lost."""

import json
import shutil
import subprocess
import sys

import pytest

from repobot.engine.errors import RepoBotError
from repobot.engine.store import load_index
from repobot.engine.load import MAX_LINE_CHARS, load_corpus
from repobot.engine.pipeline import Pipeline, clean_question
from repobot.desktop.settings import Settings, SettingsStore
from tests.conftest import fake_models


def test_huge_file_long_line_and_empty_file(tmp_path, fake_embedder):
    (tmp_path / "ok.md").write_text("# OK\n\nHTTPX does not follow redirects by default.\n")
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "oneline.md").write_text("x" * 2_000_000)
    with open(tmp_path / "huge.md", "wb") as fh:
        fh.write(b"# Huge\n\n" + b"lorem ipsum dolor sit amet\n" * 2_000_000)  # about 54 MB
    corpus = load_corpus(tmp_path)
    problems = dict(corpus.problems)
    assert problems["huge.md"].startswith("skipped: 51 MB is over the 20 MB limit")
    assert "cut" in problems["oneline.md"]
    oneline = next(d for d in corpus.documents if d.source == "oneline.md")
    assert len(oneline.text) == MAX_LINE_CHARS
    pipe = Pipeline(tmp_path, models=fake_models())
    pipe.build_index()
    assert set(pipe.index.files) == {"empty.md", "ok.md", "oneline.md"}
    assert pipe.search("redirects").hits[0].chunk.source == "ok.md"


def test_folder_that_disappears_while_indexing_keeps_the_previous_index(tmp_path, fake_embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nFirst version.\n")
    pipe = Pipeline(folder, models=fake_models())
    pipe.build_index()
    (folder / "b.md").write_text("# B\n\nSecond file.\n")

    def vanish(stage, done, total):
        shutil.rmtree(folder, ignore_errors=True)

    again = Pipeline(folder, models=fake_models())
    try:
        again.build_index(progress=vanish)
    except RepoBotError as err:  # a clear message is acceptable; a crash is not
        assert "folder" in str(err).lower()
    assert load_index(folder) is not None  # the last complete index is still there
    with pytest.raises(RepoBotError, match="No such folder"):
        Pipeline(folder, models=fake_models()).build_index()


@pytest.mark.parametrize("question", ["", "   \n\t ", "\x00\x01\x02"])
def test_empty_questions_are_refused(question):
    with pytest.raises(RepoBotError, match="empty"):
        clean_question(question)


def test_long_and_strange_questions_are_cleaned_and_reported(docs, fake_embedder):
    text, notes = clean_question("why? " * 20_000)
    assert len(text) == 2000 and "shortened" in notes[0]
    pipe = Pipeline(docs, models=fake_models("HTTPX does not follow redirects by default [1]."))
    for question in ["Redirects\x1b[31m?\x07", "ريدايركت؟ リダイレクト？ 重定向？ редирект?", "redirects " * 10_000]:
        answer = pipe.ask(question)
        assert answer.final_answer.strip()  # an answer of some kind, never an empty one
        assert "\x1b" not in answer.prompt[-1]["content"] and "\x07" not in answer.prompt[-1]["content"]


@pytest.mark.integration  # the query is embedded by the real embedder
def test_cli_long_question_gives_an_answer_not_a_traceback(docs):
    result = subprocess.run(
        [sys.executable, "-m", "repobot", "search", "redirects " * 9000, "--corpus", str(docs), "--json"],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hits"]


def test_a_line_of_unclosed_includes_and_tags_is_checked_in_one_pass():
    # "{*", "<div" and "<a" never closed, 100,000 times on one line: each pattern once read its way to the line's end
    # from every opening (about 20 s for 40,000 of one kind); now the line is read once. The guard is a hang, not a speed.
    text = "Use it [1]. " + "{*<div<a" * 100_000 + " [2]"
    result = subprocess.run([sys.executable, "-m", "repobot", "check", "--n-docs", "2"], input=text,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["cited"] == [1, 2]
    from repobot.engine.copied import without_html
    from repobot.engine.markup import strip_markup
    assert strip_markup(without_html(text)).startswith("Use it [1]. {*")  # the shown text and the checker's words


def test_damaged_settings_are_set_aside_and_defaults_used(tmp_path):
    path = tmp_path / "settings.json"
    store = SettingsStore(path)
    store.save(Settings(k=7, collections=("/docs",)))
    assert SettingsStore(path).load().k == 7
    path.write_text('{"k": 7, "collec')  # a crash mid-write by another program
    fresh = SettingsStore(path)
    assert fresh.load() == Settings()
    assert "damaged" in fresh.problem and (tmp_path / "settings.damaged").exists()


def test_settings_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    store = SettingsStore(path)
    store.save(Settings(k=3))

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("repobot.desktop.settings.os.replace", crash)
    with pytest.raises(OSError):
        store.save(Settings(k=9))
    assert SettingsStore(path).load().k == 3  # the old file is intact
