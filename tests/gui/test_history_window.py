"""Conversations in the window: they survive closing it, reopen exactly as checked, and a damaged file is set aside."""

import shutil

import pytest

from repobot.desktop.labels import passage_rows
from repobot.desktop.settings import SettingsStore
from repobot.desktop.tasks import Busy
from repobot.desktop.window import MainWindow
from repobot.engine.store import store_dir
from tests.conftest import FakeLLM, register_fake_llm

ANSWER = "HTTPX does not follow redirects by default."


@pytest.fixture
def open_window(qtbot, docs, tmp_path_factory):
    settings = tmp_path_factory.mktemp("settings") / "settings.json"
    model = register_fake_llm(FakeLLM(ANSWER))
    made = []

    def make(corpus=None):
        win = MainWindow(corpus=str(corpus or docs), store=SettingsStore(settings), embedder="fake", model=model)
        qtbot.addWidget(win)
        win.show()
        c = win.controller
        qtbot.waitUntil(lambda: c.models_ok and c.busy is Busy.IDLE and c.active in c.indexed_reports, timeout=20000)
        made.append(win)
        return win

    yield make
    for win in made:
        win.close()


def ask(qtbot, win, question):
    c = win.controller
    before = len(c.turns)
    assert win.ask(question)
    qtbot.waitUntil(lambda: len(c.turns) > before and c.busy is Busy.IDLE, timeout=20000)


def test_a_conversation_survives_closing_and_reopening_the_window(open_window, qtbot):
    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    ask(qtbot, win, "And how do I enable it?")
    first = win.controller.conversation.id
    assert win.history.list.count() == 1 and "2 questions" in win.history.list.item(0).text()
    shown = win.chat.conversation.toPlainText()
    win.close()

    again = open_window()
    assert again.controller.turns == []  # a new window starts a new conversation …
    assert again.history.list.count() == 1  # … and lists the saved one
    assert again.controller.conversation.open(first)
    assert [t.answer.question for t in again.controller.turns] == [
        "Does HTTPX follow redirects by default?", "And how do I enable it?"]
    assert again.chat.conversation.toPlainText() == shown  # exactly as checked then
    listed = [again.chat.retrieved_list.item(n).text() for n in range(again.chat.retrieved_list.count())]
    assert listed and all(line.startswith("[") for line in listed)  # the last answer's passages
    assert listed == [row.label for row in passage_rows(again.controller.turns[-1].answer.retrieved)]
    assert again.open_link("cite:0:1") and again.viewer.title.text().startswith("<b>guide/redirects.md</b>")
    again.controller.conversation.new()
    assert again.chat.retrieved_list.count() == 0  # not the passages of an answer no longer on screen
    assert again.controller.conversation.open(first)
    ask(qtbot, again, "Does HTTPX follow redirects by default?")  # continues the reopened conversation
    assert again.controller.conversation.id == first and "3 questions" in again.history.list.item(0).text()


def test_rename_search_delete_and_a_changed_source(open_window, qtbot, docs):
    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    c = win.controller.conversation
    c.rename(c.id, "Redirects")
    assert win.history.list.item(0).text().startswith("Redirects")
    c.list("timeout")
    assert win.history.list.count() == 0
    c.list("")
    (docs / "guide" / "redirects.md").write_text("# Redirects\n\nRewritten since.\n", encoding="utf-8")
    c.open(c.id)
    assert "changed since this answer" in win.chat.conversation.toPlainText()
    assert win.open_source(1) and "changed since this answer" in win.viewer.title.text()
    c.delete(c.id)
    assert win.history.list.count() == 0 and win.controller.turns == []


def test_a_damaged_history_is_set_aside_and_the_window_still_opens(open_window, docs):
    path = store_dir(docs.resolve()) / "history.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00garbage" * 1000)
    win = open_window()
    assert "set aside" in win.chat.banner.text()
    assert win.history.list.count() == 0
    assert list(path.parent.glob("history.damaged-*.sqlite3"))


def test_a_source_read_with_its_neighbours_is_changed_only_when_its_words_are(tmp_path):
    from repobot.desktop.conversation import source_changed
    from repobot.engine.chunk import Chunk
    from repobot.engine.retrieve import Hit

    (tmp_path / "a.md").write_text("# A\n\nFirst part.\n   \nSecond part.\n", encoding="utf-8")
    read = Hit(1, 0, Chunk("a.md", "A", 1, 5, "# A\n\nFirst part.\n\nSecond part."), 0.1)  # the blank line joined
    assert not source_changed(tmp_path, read)
    (tmp_path / "a.md").write_text("# A\n\nFirst part.\n   \nSecond part, edited.\n", encoding="utf-8")
    assert source_changed(tmp_path, read)
    (tmp_path / "a.md").unlink()
    assert source_changed(tmp_path, read)


def test_a_source_is_not_changed_by_what_its_chunks_leave_out(tmp_path):
    """A new answer's source was said to have changed since: the chunker leaves out an image line between the chunks
    a hit is read with, and a chunk may hold part of a long line."""
    from repobot.desktop.conversation import source_changed
    from repobot.engine.chunk import Chunk
    from repobot.engine.retrieve import Hit

    page = "# A\n\nFirst part.\n\n<img src=\"a.png\" class=\"illustration\">\n\nSecond part.\n\n" + "word " * 400 + "\n"
    (tmp_path / "a.md").write_text(page, encoding="utf-8")
    joined = Hit(1, 0, Chunk("a.md", "A", 1, 7, "# A\n\nFirst part.\n\n\n\nSecond part."), 0.1)
    part_of_a_line = Hit(2, 1, Chunk("a.md", "A", 9, 9, "word " * 150), 0.1)
    assert not source_changed(tmp_path, joined) and not source_changed(tmp_path, part_of_a_line)
    (tmp_path / "a.md").write_text(page.replace("<img src=\"a.png\" class=\"illustration\">", "A new sentence."))
    assert source_changed(tmp_path, joined)  # words between its paragraphs are a change
    (tmp_path / "a.md").write_text(page.replace("Second part.", "Second part, edited."))
    assert source_changed(tmp_path, joined)
    (tmp_path / "a.md").write_text(page.replace("First part.", "Never: First part."))
    assert source_changed(tmp_path, joined)  # words before the passage's first
    (tmp_path / "a.md").write_text(page.replace("Second part.", "Second part. Only on Linux."))
    assert source_changed(tmp_path, joined)  # and after its last
    (tmp_path / "a.md").write_text(page.replace("word " * 400, "edited " + "word " * 400))
    assert not source_changed(tmp_path, part_of_a_line)  # the rest of a long line it holds only part of
    korean = "의존성에서만 사용하는 데이터베이스 세션을 다시는 사용하지 않으며 응답을 전송하는 데 오랜 시간이 걸리는 경우"
    (tmp_path / "k.md").write_text(f"# K\n\n{korean}\n", encoding="utf-8")
    middle = Hit(4, 3, Chunk("k.md", "K", 3, 3, korean[12:40]), 0.1)  # the embedder cut this 60-letter line
    assert not source_changed(tmp_path, middle)
    empty = Hit(3, 2, Chunk("a.md", "A", 2, 2, "  "), 0.1)
    assert not source_changed(tmp_path, empty)  # line 2 is blank
    (tmp_path / "a.md").write_text("# A\nNow words here.\n")
    assert source_changed(tmp_path, empty)


def titles_and_questions(c):
    history = c.conversation.history()
    return {info.id: [a.question for a in history.turns(info.id)] for info in history.conversations()}


def test_an_answer_joins_the_conversation_it_was_asked_in_when_another_is_opened_meanwhile(qtbot, docs, tmp_path_factory):
    from tests.gui.test_window import SlowLLM

    settings = tmp_path_factory.mktemp("settings") / "settings.json"
    win = MainWindow(corpus=str(docs), store=SettingsStore(settings), embedder="fake",
                     model=register_fake_llm(SlowLLM("word " * 200, piece=5)))
    qtbot.addWidget(win)
    c = win.controller
    qtbot.waitUntil(lambda: c.models_ok and c.busy is Busy.IDLE and c.active in c.indexed_reports, timeout=20000)
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    first = c.conversation.id
    c.conversation.new()
    ask(qtbot, win, "What is the default timeout?")
    second = c.conversation.id
    c.conversation.open(first)
    tokens = []
    c.token.connect(tokens.append)
    assert win.ask("How do I enable redirects?")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=10000)
    c.conversation.open(second)  # while the first conversation's answer is being written
    shown = len(tokens)
    qtbot.waitUntil(lambda: c.busy is Busy.IDLE, timeout=30000)
    assert len(tokens) <= shown + 1  # its tokens stopped being drawn over the conversation now on screen
    assert [t.answer.question for t in c.turns] == ["What is the default timeout?"]
    assert titles_and_questions(c) == {
        first: ["Does HTTPX follow redirects by default?", "How do I enable redirects?"],
        second: ["What is the default timeout?"],
    }
    assert "saved in the conversation it was asked in" in win.status.text()
    win.close()


def test_removing_the_folder_on_screen_opens_the_user_guide_in_a_conversation_of_its_own(open_window, qtbot, docs,
                                                                                          tmp_path_factory):
    win = open_window()
    c = win.controller
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    assert c.remove_collection(str(docs.resolve()))
    assert c.active == c.bundled and c.turns == [] and c.conversation.id is None
    qtbot.waitUntil(lambda: c.busy is Busy.IDLE and c.bundled in c.indexed_reports, timeout=30000)
    before = titles_and_questions(c)  # the guide's own conversations (other tests of this session ask it too)
    ask(qtbot, win, "How do I add a folder?")
    after = titles_and_questions(c)
    assert {k: v for k, v in after.items() if k in before} == before  # none of them was written into
    assert [after[k] for k in after if k not in before] == [["How do I add a folder?"]]


def test_a_chinese_title_keeps_both_lines_of_its_conversation(qtbot):
    """Qt sized the items by the list's Latin font; a Chinese title, drawn in a taller fallback font, did not fit,
    so it ended in "…" and the line with the count and date was not shown."""
    from types import SimpleNamespace

    from repobot.desktop.panels.history import HistoryPanel
    from repobot.desktop.qt import QFontMetrics

    panel = HistoryPanel()
    qtbot.addWidget(panel)
    titles = ["httpx 支持 HTTP/3 吗？", "Does httpx support HTTP/3?"]
    panel.show_conversations([SimpleNamespace(id=n, title=t, turns=n + 1, updated=0) for n, t in enumerate(titles)], 0)
    metrics = QFontMetrics(panel.list.font())
    chinese, english = (panel.list.item(n) for n in range(2))
    assert chinese.text().endswith("1 question · " + chinese.text().split(" · ")[-1])
    assert "2 questions" in english.text()
    tallest = metrics.boundingRect(titles[0]).height()
    assert chinese.sizeHint().height() >= tallest + metrics.lineSpacing()
    panel.resize(400, 300)
    panel.show()
    assert panel.list.visualItemRect(chinese).width() >= metrics.horizontalAdvance(titles[0])


def test_a_long_title_ends_in_an_ellipsis_at_the_lists_width_with_no_sideways_scroll_bar(qtbot):
    from types import SimpleNamespace

    from repobot.desktop.panels.history import HistoryPanel
    from repobot.desktop.qt import Qt

    panel = HistoryPanel()
    qtbot.addWidget(panel)
    title = "How do I make httpx give up if the server takes far too long to answer my request at all? " * 2
    panel.show_conversations([SimpleNamespace(id=1, title=title, turns=2, updated=0)], 1)
    panel.resize(300, 300)
    panel.show()
    item = panel.list.item(0)
    assert panel.list.visualItemRect(item).width() <= panel.list.viewport().width()
    assert not panel.list.horizontalScrollBar().isVisible()
    assert panel.list.textElideMode() == Qt.TextElideMode.ElideRight and item.toolTip() == title


def test_a_turn_whose_saved_data_cannot_be_read_opens_with_its_question_and_answer(open_window, qtbot):
    import sqlite3

    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    ask(qtbot, win, "And how do I enable it?")
    conversation = win.controller.conversation.id
    with sqlite3.connect(win.controller.conversation.history().path) as db:
        db.execute("UPDATE turns SET data = '{not json' WHERE position = 0")
    assert win.controller.conversation.open(conversation)
    shown = win.chat.conversation.toPlainText()
    unreadable = shown.split("Q: And how do I enable it?")[0]  # the first turn alone
    assert "could not be read back" in unreadable and ANSWER.rstrip(".") + " [1]." in unreadable
    first, second = [t.answer for t in win.controller.turns]
    assert first.verdict == "unreadable" and second.verdict != "unreadable" and second.retrieved
    assert not win.open_link("cite:0:1") and "ask its question again" in win.chat.banner.text()
    assert win.open_link("cite:1:1")  # the readable turn still opens its source


def test_export_refuses_a_device_a_missing_folder_and_writes_a_file(open_window, qtbot, tmp_path):
    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    conversation = win.controller.conversation
    assert not conversation.export(conversation.id, "/dev/null")
    assert "/dev/null is not a regular file" in win.chat.banner.text()
    assert not conversation.export(conversation.id, str(tmp_path / "missing" / "x.md"))
    assert "does not exist" in win.chat.banner.text() and not (tmp_path / "missing").exists()
    assert conversation.export(conversation.id, str(tmp_path / "x.md"))
    assert "*Verdict: verified.*" in (tmp_path / "x.md").read_text()


def test_export_offers_a_name_from_the_title_in_documents_then_in_the_last_folder_used(
        open_window, qtbot, tmp_path, monkeypatch):
    """It offered "conversation.md" in whatever folder RepoBot had been started from."""
    from repobot.desktop.panels import history as panel

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "Documents").mkdir()
    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    offered = []

    def save_as(_parent, _caption, suggested, _filter):
        offered.append(suggested)
        return str(tmp_path / "kept" / "mine.md"), ""

    (tmp_path / "kept").mkdir()
    monkeypatch.setattr(panel.QFileDialog, "getSaveFileName", save_as)
    win.history.list.setCurrentRow(0)
    win.history._export()
    win.history._export()
    assert offered == [str(tmp_path / "Documents" / "Does-HTTPX-follow-redirects-by-default.md"),
                       str(tmp_path / "kept" / "Does-HTTPX-follow-redirects-by-default.md")]
    assert "*Verdict: verified.*" in (tmp_path / "kept" / "mine.md").read_text()


def test_a_folder_that_moved_keeps_its_conversations(open_window, qtbot, docs, tmp_path_factory):
    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    win.close()
    moved = shutil.move(docs, tmp_path_factory.mktemp("moved") / "docs-renamed")

    again = open_window(moved)  # the folder added again where it is now
    c = again.controller
    assert again.history.list.count() == 1 and "1 question" in again.history.list.item(0).text()
    assert str(docs) not in c.settings.collections and c.active == str(moved)
    assert again.chat.banner.text() == f"This folder was at {docs}: its index and conversations came with it."
    assert "#ddf4ff" in again.chat.banner.styleSheet() and not c.index_message  # news, not a problem
    assert [p.name for p in store_dir(docs).iterdir()] == ["moved.json"]  # only word of where it went


def test_a_moved_folder_with_a_file_problem_says_both(open_window, qtbot, docs, tmp_path_factory):
    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    win.close()
    moved = shutil.move(docs, tmp_path_factory.mktemp("moved") / "docs")
    (moved / "broken.md").write_bytes(b"# Caf\xe9\n")  # not UTF-8: read with a replacement, and said
    again = open_window(moved)
    banner = again.chat.banner.text()
    assert banner.startswith(f"This folder was at {docs}: its index and conversations came with it.")
    assert "1 file(s) had problems: broken.md" in banner and again.history.list.count() == 1


def test_delete_asks_first_enter_opens_a_conversation_and_ctrl_n_starts_one(open_window, qtbot):
    from repobot.desktop.qt import Qt

    win = open_window()
    ask(qtbot, win, "Does HTTPX follow redirects by default?")
    first = win.controller.conversation.id
    history = win.history
    history.list.setCurrentRow(0)
    asked = []
    history.confirm_delete = lambda title: asked.append(title) or False  # the user says No
    history._delete()
    assert asked == ["Does HTTPX follow redirects by default?"] and history.list.count() == 1  # it was gone at once
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)
    assert win.chat.question.hasFocus()  # a new window is for asking (it opened in the file filter)
    history.list.setFocus()
    qtbot.keyClick(history.list, Qt.Key.Key_Delete)  # the Delete key asks too
    assert asked[-1] == "Does HTTPX follow redirects by default?" and len(asked) == 2 and history.list.count() == 1
    qtbot.keyClick(win, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # a new conversation
    assert win.controller.conversation.id != first and win.controller.turns == [] and win.chat.question.hasFocus()
    history.list.setFocus()
    history.list.setCurrentRow(0)
    qtbot.keyClick(history.list, Qt.Key.Key_Return)  # opened by keyboard, not only by a click
    assert win.controller.conversation.id == first and len(win.controller.turns) == 1
    history.confirm_delete = lambda title: True
    history._delete()
    assert history.list.count() == 0 and win.controller.turns == []
