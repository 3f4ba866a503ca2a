"""A translated documentation tree: its languages are found, the default is the user's language and English,
a choice is remembered, and only the chosen pages are indexed."""

import json
import subprocess
import sys

import pytest

from repobot.engine.collection import Collection
from repobot.engine.errors import CorpusError
from repobot.engine.load import load_corpus
from tests.conftest import fake_models, refuse_listing


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "docs"
    for lang, text in (("en", "Redirects are not followed by default."), ("zh", "默认不跟随重定向。"),
                       ("ja", "デフォルトではリダイレクトしません。"), ("fr", "Les redirections ne sont pas suivies.")):
        (root / lang / "docs").mkdir(parents=True)
        (root / lang / "docs" / "redirects.md").write_text(f"# Redirects\n\n{text}\n", encoding="utf-8")
    (root / "missing-translation.md").write_text("# Missing\n\nThis page is not translated yet.\n", encoding="utf-8")
    (root / "notes.md").write_text("---\nlang: de\n---\n# Notizen\n\nNur auf Deutsch.\n", encoding="utf-8")
    return root


def test_the_languages_of_a_tree_are_found(tree):
    corpus = load_corpus(tree)
    assert corpus.languages == {"en": 1, "zh": 1, "ja": 1, "fr": 1, "de": 1}
    assert {d.source: d.language for d in corpus.documents}["missing-translation.md"] is None


def test_the_default_is_the_users_language_and_english(tree, monkeypatch):
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    collection = Collection(tree, fake_models())
    collection.update()
    assert collection.selected == {"en", "zh"}
    assert sorted(collection.index.files) == ["en/docs/redirects.md", "missing-translation.md", "zh/docs/redirects.md"]


def test_a_choice_is_remembered_and_changes_the_index(tree):
    Collection(tree, fake_models(), languages=["ja", "fr"]).update()
    again = Collection(tree, fake_models())  # a later run, no choice given: the saved one holds
    again.update()
    assert again.selected == {"ja", "fr"}
    assert sorted(again.index.files) == ["fr/docs/redirects.md", "ja/docs/redirects.md", "missing-translation.md"]


def test_languages_asked_of_a_tree_without_them_are_refused_and_not_remembered(tmp_path):
    (tmp_path / "guide.md").write_text("# Guide\n\nOne language only.\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"has no pages in other languages .*: --languages is for a translated tree"):
        Collection(tmp_path, fake_models(), languages=["xx"]).update()
    assert Collection(tmp_path, fake_models()).chosen_languages() is None


def test_a_language_the_tree_lacks_is_refused_beside_one_it_has_and_not_remembered(tree):
    """``--languages en,xx`` was remembered as "en, xx", with no word that xx has no pages."""
    with pytest.raises(CorpusError, match=r"has no pages in xx \(it has de, en, fr, ja, zh\): choose other languages"):
        Collection(tree, fake_models(), languages=["en", "xx"]).update()
    assert Collection(tree, fake_models()).chosen_languages() is None


def test_a_language_folder_that_cannot_be_listed_now_is_said_so_not_called_absent(tree, monkeypatch):
    """zh/ unreadable for a moment: `--languages en,zh` used to say the tree "has no pages in zh"."""
    refuse_listing(monkeypatch, "zh")
    with pytest.raises(CorpusError, match=r"docs/zh cannot be listed now \(Permission denied\): check that you may "
                                          r"open it, or choose other languages.$"):
        Collection(tree, fake_models(), languages=["en", "zh"]).update()
    for layout in ("two/{lang}", "nested/docs/{lang}"):  # a tree of en/ and zh/ alone; FastAPI's docs/<lang>/ tree
        for lang in ("en", "zh"):
            page = tree.parent / layout.format(lang=lang) / "redirects.md"
            page.parent.mkdir(parents=True)
            page.write_text("# Redirects\n\nText.\n", encoding="utf-8")
        with pytest.raises(CorpusError, match=r"zh cannot be listed now \(Permission denied\)"):
            Collection(tree.parent / layout.split("/")[0], fake_models(), languages=["en", "zh"]).update()


@pytest.mark.integration  # `repobot index` embeds with the real embedder
def test_the_cli_takes_languages_and_reports_them(tree):
    result = subprocess.run([sys.executable, "-m", "repobot", "index", "--corpus", str(tree), "--languages", "en,zh",
                             "--json"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["languages"] == ["en", "zh"] and data["files"] == 3
    assert data["available_languages"] == {"en": 1, "zh": 1, "ja": 1, "fr": 1, "de": 1}
    wrong = subprocess.run([sys.executable, "-m", "repobot", "index", "--corpus", str(tree), "--languages", "ko"],
                           capture_output=True, text=True, timeout=600)
    assert wrong.returncode == 2 and "choose other languages" in wrong.stderr and "Traceback" not in wrong.stderr
    assert Collection(tree, fake_models()).chosen_languages() == {"en", "zh"}  # a failed choice is not remembered
