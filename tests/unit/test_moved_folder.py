"""A documentation folder that moved keeps its index and conversations; nothing else is ever taken or replaced."""

import shutil

import pytest

from repobot.engine.collection import Collection
from repobot.engine.history import History
from repobot.engine.result import Answer
from repobot.engine.store import load_index, store_dir
from tests.conftest import fake_models


@pytest.fixture(autouse=True)
def own_home(tmp_path_factory, monkeypatch):
    """A data folder of this test's own: the stores other tests leave behind are not candidates."""
    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def folder(docs, tmp_path_factory):
    """The small documentation folder, alone in a place of its own (``docs`` is the test's whole tmp_path)."""
    return shutil.copytree(docs, tmp_path_factory.mktemp("project") / "docs")


@pytest.fixture
def elsewhere(tmp_path_factory):
    return tmp_path_factory.mktemp("elsewhere")


def indexed_with_a_conversation(folder):
    collection = Collection(folder, fake_models())
    collection.update()
    conversation = collection.history.new("Redirects")
    collection.history.add(conversation, Answer("Are redirects followed?", "en", "fake", [], []))
    collection.history.close()
    return conversation


def titles(collection):
    return [c.title for c in collection.history.conversations()]


def test_a_moved_folder_brings_its_index_and_conversations(folder, elsewhere):
    indexed_with_a_conversation(folder)
    moved = elsewhere / "docs-renamed"
    shutil.move(folder, moved)
    collection = Collection(moved, fake_models())
    assert titles(collection) == ["Redirects"]  # listed before any update (`repobot history`, the window's start)
    report = collection.update()
    assert titles(collection) == ["Redirects"]
    assert collection.moved_from == folder.resolve()
    assert any("its index and conversations came with it" in note for note in collection.notes)
    assert report.added == [] and report.updated == [] and report.embedded_chunks == 0  # nothing read again
    assert [p.name for p in store_dir(folder).iterdir()] == ["moved.json"]  # word of where it went, nothing else
    assert load_index(moved).root == moved.resolve()


def test_a_deleted_folder_is_not_a_new_folder_with_a_page_of_the_same_name(folder, elsewhere):
    indexed_with_a_conversation(folder)
    shutil.rmtree(folder)
    other = elsewhere / "other"
    other.mkdir()
    (other / "timeouts.md").write_text("# Timeouts\n\nAnother project's page.\n")
    collection = Collection(other, fake_models())
    collection.update()
    assert titles(collection) == [] and collection.moved_from is None
    assert (store_dir(folder) / "history.sqlite3").exists()  # the old conversations stay where they were


def test_a_copy_is_not_a_move(folder, elsewhere):
    indexed_with_a_conversation(folder)
    copy = shutil.copytree(folder, elsewhere / "copy")
    collection = Collection(copy, fake_models())
    collection.update()
    assert titles(collection) == [] and collection.moved_from is None


def test_a_place_with_conversations_of_its_own_keeps_them_and_takes_nothing(folder, elsewhere):
    indexed_with_a_conversation(folder)
    moved = elsewhere / "moved"
    own = History(store_dir(moved) / "history.sqlite3")  # asked about there before, never indexed
    own.new("Asked here first")
    own.close()
    shutil.move(folder, moved)
    collection = Collection(moved, fake_models())
    collection.update()
    assert titles(collection) == ["Asked here first"] and collection.moved_from is None
    assert (store_dir(folder) / "history.sqlite3").exists()


def test_a_copy_of_a_folder_that_moved_takes_nothing_from_it(folder, elsewhere):
    """Listed at its new place (the store taken, its index not saved there yet), the folder is then copied."""
    indexed_with_a_conversation(folder)
    moved = shutil.move(folder, elsewhere / "moved")
    assert titles(Collection(moved, fake_models())) == ["Redirects"]
    copy = Collection(shutil.copytree(moved, elsewhere / "copy"), fake_models())
    copy.update()
    assert titles(copy) == [] and titles(Collection(moved, fake_models())) == ["Redirects"]


def test_a_translated_tree_that_moved_keeps_the_languages_chosen_for_it(elsewhere):
    tree = elsewhere / "tree"
    for lang, text in (("en", "Redirects are off."), ("ja", "リダイレクトしません。"), ("fr", "Pas de redirection.")):
        (tree / lang).mkdir(parents=True)
        (tree / lang / "redirects.md").write_text(f"# Redirects\n\n{text}\n", encoding="utf-8")
    Collection(tree, fake_models(), languages=["ja", "fr"]).update()
    moved = Collection(shutil.move(tree, elsewhere / "moved-tree"), fake_models())
    report = moved.update()
    assert moved.selected == {"ja", "fr"} and report.added == [] and report.removed == []


def test_the_window_listing_conversations_while_its_worker_updates_takes_the_store_once(folder, elsewhere):
    import threading

    indexed_with_a_conversation(folder)
    moved = Collection(shutil.move(folder, elsewhere / "moved"), fake_models())
    worker = threading.Thread(target=moved.update)
    worker.start()
    listed = titles(moved)
    worker.join()
    assert listed == ["Redirects"] and titles(moved) == ["Redirects"] and moved.index.size


def back_after_a_copy_took_its_store(folder, elsewhere):
    """The folder with a conversation is copied, goes away while the copy is listed (which takes its store), comes
    back and is updated: returns the copy and the folder's collection."""
    indexed_with_a_conversation(folder)
    copy = shutil.copytree(folder, elsewhere / "copy")
    away = shutil.move(folder, elsewhere / "away")
    assert titles(Collection(copy, fake_models())) == ["Redirects"]
    shutil.move(away, folder)
    back = Collection(folder, fake_models())
    back.update()
    return copy, back


def test_a_folder_missing_while_a_copy_took_its_store_is_told_where_its_conversations_went(folder, elsewhere):
    """A copy made beside the folder looks moved while the folder is briefly gone (a checkout, a drive not under
    /media): when the folder comes back, it says where its conversations are instead of showing none."""
    copy, back = back_after_a_copy_took_its_store(folder, elsewhere)
    assert titles(back) == [] and back.moved_from is None
    assert any(f"its index and conversations went to {copy.resolve()}" in note for note in back.notes)
    shutil.rmtree(copy)  # the copy deleted too: no word of a place that is gone
    assert Collection(folder, fake_models()).moved_note == ""


def test_a_folder_moved_back_where_it_was_takes_its_store_back_and_no_stale_word_travels(folder, elsewhere):
    """The word left at the old place (moved.json) must not stop the folder's return, nor travel with the store."""
    indexed_with_a_conversation(folder)
    moved = shutil.move(folder, elsewhere / "moved")
    there = Collection(moved, fake_models())
    there.update()
    assert titles(there) == ["Redirects"]
    there.history.close()
    shutil.move(moved, folder)
    back = Collection(folder, fake_models())
    back.update()
    assert titles(back) == ["Redirects"] and back.moved_from == moved.resolve()
    assert not (store_dir(folder) / "moved.json").exists()


def test_a_folder_moved_away_and_back_before_anything_was_saved_at_the_other_place_finds_its_store(
        folder, elsewhere):
    """The other place took the store when its conversations were listed (`repobot history`, the window's start),
    but never saved it under its own path: the folder, back, must still find it."""
    indexed_with_a_conversation(folder)
    moved = shutil.move(folder, elsewhere / "moved")
    there = Collection(moved, fake_models())
    assert titles(there) == ["Redirects"] and there.moved_from == folder.resolve()  # taken, not saved there
    there.history.close()
    shutil.move(moved, folder)
    back = Collection(folder, fake_models())
    assert titles(back) == ["Redirects"]  # listed before any update, as the window does
    report = back.update()
    assert titles(back) == ["Redirects"] and report.embedded_chunks == 0
    assert load_index(folder).root == folder.resolve()


def test_the_word_of_where_conversations_went_stops_once_the_folder_has_its_own(folder, elsewhere):
    _, back = back_after_a_copy_took_its_store(folder, elsewhere)
    assert back.moved_note
    back.history.new("Asked here again")
    assert back.moved_note == ""


def test_a_folder_moved_back_while_another_folder_now_stands_at_the_other_place_takes_its_store_back(
        folder, elsewhere):
    indexed_with_a_conversation(folder)
    moved = shutil.move(folder, elsewhere / "moved")
    assert titles(Collection(moved, fake_models())) == ["Redirects"]  # taken there, never saved there
    shutil.move(moved, folder)
    moved.mkdir()
    (moved / "other.md").write_text("# Other\n\nSomething else entirely.\n")
    back = Collection(folder, fake_models())
    assert titles(back) == ["Redirects"] and back.moved_note.startswith("This folder was at")
    other = Collection(moved, fake_models())
    assert titles(other) == [] and other.moved_note == ""  # no word sends the other folder to this one


@pytest.mark.parametrize("word", ['{"to": "/tmp/' + "x" * 300 + '"}', '{"to": ' + "[" * 100000 + "]" * 100000 + "}",
                                  '{"to": "/"}', '{"to": ""}', '{"to": 5}', "not json", '{"to": "relative/path"}'])
def test_a_damaged_word_of_where_the_store_went_is_no_word(folder, word):
    """moved.json made by hand or damaged: every command on the folder used to end in a traceback, or a note that
    sent the user to open "/"."""
    store_dir(folder).mkdir(parents=True)
    (store_dir(folder) / "moved.json").write_text(word)
    collection = Collection(folder, fake_models())
    assert collection.moved_note == ""
    collection.update()
    assert titles(collection) == [] and collection.index.size > 0


def test_a_folder_moved_on_again_before_anything_was_saved_where_it_stopped_brings_its_store(folder, elsewhere):
    """A → B (its conversations listed at B, nothing saved there) → C: C used to show no conversations."""
    indexed_with_a_conversation(folder)
    stop = shutil.move(folder, elsewhere / "stop")
    assert titles(Collection(stop, fake_models())) == ["Redirects"]
    final = shutil.move(stop, elsewhere / "final")
    there = Collection(final, fake_models())
    assert titles(there) == ["Redirects"] and there.moved_from == folder.resolve()  # where its index was made
    there.update()
    assert load_index(final).root == final.resolve() and titles(there) == ["Redirects"]
