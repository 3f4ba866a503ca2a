"""The desktop window, headless (QT_QPA_PLATFORM=offscreen), with deterministic fakes for the models."""

import threading
import time

import pytest

from repobot.desktop.labels import passage_rows
from repobot.desktop.settings import Settings, SettingsStore
from repobot.desktop.tasks import Busy
from repobot.desktop.window import MainWindow
from repobot.engine.registry import register_embedder
from tests.conftest import FakeEmbedder, FakeLLM, redirects_in_chinese, register_fake_llm

ANSWER = "HTTPX does not follow redirects by default [1]. Pass `follow_redirects=True` to enable it [1]."


class SlowLLM(FakeLLM):
    """Sleeps between tokens so that Stop can arrive mid-answer; ``writing`` says whether a reply is under way."""

    writing = False

    def stream_chat(self, messages, *, max_tokens):
        self.writing = True
        try:
            for piece in super().stream_chat(messages, max_tokens=max_tokens):
                time.sleep(0.02)
                yield piece
        finally:
            self.writing = False


def idle(c):
    return c.busy is Busy.IDLE


def ask_and_wait(qtbot, win, question="Does HTTPX follow redirects by default?"):
    """Ask through the window and wait until the window itself has shown the answer."""
    c = win.controller
    before = len(c.turns)
    assert win.ask(question)
    qtbot.waitUntil(lambda: len(c.turns) > before and idle(c), timeout=30000)
    return c.turns[-1]


@pytest.fixture
def settings_path(tmp_path_factory):
    return tmp_path_factory.mktemp("settings") / "settings.json"  # outside the watched docs folder


@pytest.fixture
def window(qtbot, docs, settings_path):
    def make(llm=None, corpus=docs):
        win = MainWindow(corpus=str(corpus), store=SettingsStore(settings_path), embedder="fake",
                         model=register_fake_llm(llm or FakeLLM(ANSWER)))
        qtbot.addWidget(win)
        win.show()
        c = win.controller
        qtbot.waitUntil(lambda: c.models_ok and idle(c) and c.active in c.indexed_reports, timeout=20000)
        return win

    made = []
    yield lambda **kw: made.append(make(**kw)) or made[-1]
    for win in made:
        win.close()


def test_asking_shows_quotes_at_once_streams_tokens_then_the_checked_answer(window, qtbot):
    win = window()
    c = win.controller
    events = []
    c.preview.connect(lambda choice: events.append(("preview", win.chat.conversation.toPlainText())))
    c.token.connect(lambda text: events.append(("token", text)))
    ask_and_wait(qtbot, win)
    assert events[0][0] == "preview" and "Quoted from the documents while the model writes" in events[0][1]
    assert "".join(text for kind, text in events if kind == "token") == ANSWER
    text = win.chat.conversation.toPlainText()
    assert "Verified" in text and "follow redirects by default" in text
    assert "while the model writes" not in text  # the checked answer replaced the quotes
    assert "Sources:" in text and "guide/redirects.md" in text
    assert win.chat.retrieved_list.count() >= 2


class PreparedLLM(FakeLLM):
    """Records the prompts it is given to read ahead (``LLM.prepare``)."""

    def __init__(self, reply):
        super().__init__(reply)
        self.prepared: list[list[dict]] = []

    def prepare(self, messages):
        self.prepared.append(list(messages))


def test_the_model_reads_the_answer_rules_ahead_once_the_folder_and_the_model_are_ready(window, qtbot):
    """The first answer's first token came 2.4 s after the next ones': the model read its rules and worked example
    then. The window now has it read them in the background as soon as it can, and an answer still comes as before."""
    from repobot.engine.options import AskOptions
    from repobot.engine.prompt import build_messages

    llm = PreparedLLM(ANSWER)
    win = window(llm=llm)
    rules = build_messages("", [], lang="en", style=AskOptions().style)[:-1]
    assert any(prepared[:-1] == rules for prepared in llm.prepared)
    assert "follow_redirects=True" in ask_and_wait(qtbot, win).answer.final_answer
    assert llm.calls[-1][:-1] == rules  # the answer's prompt begins with what was read ahead


class SlowPreparedLLM(FakeLLM):
    """Takes 0.4 s to read each prompt ahead; records what it did, in order: ("prepare", system prompt) or
    ("answer", None)."""

    def __init__(self, reply):
        super().__init__(reply)
        self.done: list[tuple[str, str | None]] = []
        self.reading = threading.Event()

    def prepare(self, messages):
        self.reading.set()
        time.sleep(0.4)
        self.done.append(("prepare", messages[0]["content"]))

    def stream_chat(self, messages, *, max_tokens):
        if "<docs>" in messages[-1]["content"]:
            self.done.append(("answer", None))
        yield from super().stream_chat(messages, max_tokens=max_tokens)


def test_a_question_goes_before_the_rest_of_the_reading_ahead_and_stop_stops_it(window, qtbot):
    from repobot.engine.rewrite import translation_messages

    llm = SlowPreparedLLM(ANSWER)
    win = window(llm=llm)
    c = win.controller
    rewrite_rules = translation_messages("", "en")[0]["content"]
    llm.done.clear()
    llm.reading.clear()
    c.prepare(c.active)
    qtbot.waitUntil(llm.reading.is_set, timeout=5000)  # the first part is being read
    ask_and_wait(qtbot, win)
    assert [kind for kind, _ in llm.done] == ["prepare", "answer", "prepare"]  # the question came between the two
    assert llm.done[-1][1] == rewrite_rules
    llm.done.clear()
    llm.reading.clear()
    c.prepare(c.active)
    qtbot.waitUntil(llm.reading.is_set, timeout=5000)
    c.cancel()  # Stop
    qtbot.waitUntil(lambda: idle(c), timeout=5000)
    assert len(llm.done) == 1  # the part under way ends; the next is not read


def test_the_quotes_stay_when_the_model_fails_the_checks(window, qtbot):
    win = window(llm=FakeLLM("HTTPX ships a built-in HTTP/3 server written in Rust [7]."))
    turn = ask_and_wait(qtbot, win)
    assert turn.answer.verdict == "extractive"
    text = win.chat.conversation.toPlainText()
    assert "Quoted from the documents" in text and "does not follow redirects" in text
    assert "written in Rust" in text  # shown only as the model's own answer, marked unsupported
    assert "✗" in text


def test_attributed_citations_are_marked_as_added_by_repobot(window, qtbot):
    win = window(llm=FakeLLM("HTTPX does not follow redirects by default."))
    turn = ask_and_wait(qtbot, win)
    assert turn.answer.verdict == "verified" and turn.answer.final_sentences[0].cited_by == "checker"
    assert "cited by RepoBot" in win.chat.conversation.toPlainText()


def test_clicking_a_citation_opens_the_file_scrolled_to_the_cited_lines(window, qtbot, docs):
    filler = "\n\n".join(f"Filler paragraph number {i} about nothing in particular." for i in range(80))
    (docs / "guide" / "redirects.md").write_text(
        f"# Redirects\n\n{filler}\n\n## Default\n\nHTTPX does not follow redirects by default.\n", encoding="utf-8"
    )
    win = window()
    turn = ask_and_wait(qtbot, win)
    first = turn.answer.retrieved[0]
    assert first.chunk.source == "guide/redirects.md"
    assert win.open_link("cite:0:1")
    assert win.viewer.title.text().startswith("<b>guide/redirects.md</b>")
    assert f"lines {first.chunk.start}–{first.chunk.end}" in win.viewer.title.text()
    assert "background-color" in win.viewer.view.toHtml()
    qtbot.waitUntil(lambda: win.viewer.view.verticalScrollBar().value() > 0, timeout=3000)
    assert win.open_source(1)
    assert win.open_link("sent:0:final:0")
    assert "supported" in win.controller.conversation.reason("sent:0:final:0")
    assert not win.open_link("cite:0:9") and "does not exist" in win.chat.banner.text()


def test_a_chinese_question_gets_the_translated_checked_answer_and_hover_shows_what_was_checked(window, qtbot):
    win = window(llm=redirects_in_chinese())
    drafts = []
    win.controller.drafting.connect(lambda _label: drafts.append(win.chat.conversation.toPlainText()))
    turn = ask_and_wait(qtbot, win, "HTTPX 默认会跟随重定向吗？")
    assert "The model is writing in English, the documents' language" in drafts[0]  # the draft streams in English
    assert turn.answer.verdict == "verified" and turn.answer.final_answer == "HTTPX 默认不跟随重定向 [1]。"
    shown = win.chat.conversation.toPlainText()
    assert "HTTPX 默认不跟随重定向" in shown  # and, under it, the English that was checked
    assert shown.index("HTTPX 默认不跟随重定向") < shown.index("checked as: HTTPX does not follow redirects by default.")
    hover = win.controller.conversation.reason("sent:0:final:0")
    assert hover.startswith("supported") and hover.endswith("Checked as: HTTPX does not follow redirects by default.")
    # the same on the sentence's words, not only on its ✓ (a tooltip Qt shows from the text's format)
    view = win.chat.conversation
    found = view.document().find("默认不跟随")
    assert not found.isNull() and found.charFormat().toolTip() == hover
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent

    from repobot.desktop.qt import QApplication, QToolTip

    view.setTextCursor(found)
    view.ensureCursorVisible()
    at = view.cursorRect(found).center() - QPoint(8, 0)  # over the words
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, at, view.viewport().mapToGlobal(at)))
    qtbot.waitUntil(lambda: QToolTip.text() == hover, timeout=3000)


def test_the_viewer_reads_a_file_as_the_index_did(window, docs, monkeypatch):
    win = window()
    (docs / "notepad.md").write_bytes("# Proxies\n\nUse `proxy=` on the client.\n".encode("utf-16"))
    assert win.viewer.open_file(docs, "notepad.md")  # UTF-16 with its byte order mark, as Notepad saves it
    assert "Use proxy= on the client." in win.viewer.view.toPlainText().replace("`", "")
    monkeypatch.setattr("repobot.engine.load.MAX_FILE_BYTES", 10)  # a huge file is refused, not read on this thread
    errors = []
    win.viewer.error.connect(errors.append)
    assert not win.viewer.open_file(docs, "notepad.md")
    assert errors and "over the" in errors[0] and "skipped" not in errors[0]


def test_the_viewer_shows_the_site_generators_lines_as_what_they_mean(window, docs):
    """FastAPI's pages showed "{* ../../docs_src/… hl[9,17] *}", "/// note | Technical Details" and "///" as text."""
    win = window()
    (docs / "site.md").write_text("# Files\n\n/// note | Technical Details\n\nFile uses SpooledTemporaryFile.\n\n///\n\n"
                                  "{* ../../docs_src/request_files/tutorial001.py hl[9] *}\n\nThe end.\n", encoding="utf-8")
    assert win.viewer.open_file(docs, "site.md", lines=(5, 5))
    shown = win.viewer.view.toPlainText()
    assert "Note: Technical Details" in shown and "///" not in shown and "{*" not in shown
    assert "[example code from ../../docs_src/request_files/tutorial001.py, which is kept outside this folder]" in shown
    assert "File uses SpooledTemporaryFile." in shown and "The end." in shown


def test_tab_leaves_the_question_box_and_a_reader_scrolled_up_stays_put_while_the_answer_is_written(window, qtbot):
    win = window(llm=SlowLLM("word " * 300, piece=5))
    chat = win.chat
    assert chat.question.tabChangesFocus()  # Tab typed a tab character into the question
    for n in range(3):
        ask_and_wait(qtbot, win, f"Does HTTPX follow redirects by default? ({n})")
    tokens = []
    win.controller.token.connect(tokens.append)
    assert win.ask("And how do I enable it?")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=10000)
    bar = chat.conversation.verticalScrollBar()
    assert bar.value() >= bar.maximum() - 20  # a new question is followed
    bar.setValue(0)  # the user scrolls up to read an earlier answer
    seen = len(tokens)
    qtbot.waitUntil(lambda: len(tokens) >= seen + 5 or idle(win.controller), timeout=10000)
    assert len(tokens) > seen and bar.value() == 0, (seen, len(tokens))  # it snapped back to the end within 2 s
    win.controller.cancel()
    qtbot.waitUntil(lambda: idle(win.controller), timeout=30000)
    assert bar.value() == 0  # nor once the answer is in


def test_stop_cancels_generation(window, qtbot):
    win = window(llm=SlowLLM("word " * 300, piece=5))
    c = win.controller
    tokens = []
    c.token.connect(tokens.append)
    assert win.ask("Does HTTPX follow redirects by default?")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=10000)
    c.cancel()
    assert win.status.text() == "Stopping…"
    qtbot.waitUntil(lambda: bool(c.turns) and idle(c), timeout=30000)
    assert c.turns[-1].answer.stop_reason == "cancelled"
    assert win.status.text().startswith("Stopped:")  # it said "Stopping…" long after the answer said it stopped
    shown = win.chat.conversation.toPlainText()
    if c.turns[-1].answer.verdict == "extractive":  # stopped: nothing failed the checks
        assert "Stopped before the model's answer was complete" in shown and "failed the checks" not in shown
    assert len(tokens) < 100
    assert win.chat.ask_button.isEnabled() and not win.chat.stop_button.isEnabled()


def test_the_status_bar_keeps_the_model_in_view_whatever_news_follows(window, qtbot):
    win = window()
    c = win.controller
    assert win.model_state.text() == f"Model: {c.models.llm.name}" and not win.model_state.toolTip()
    c.status.emit("Files changed in docs; updating the index…")
    assert win.model_state.text() == f"Model: {c.models.llm.name}"
    c.status.emit("Embedding paused; the folder stays searchable by words, and resumes from here.")
    ask_and_wait(qtbot, win)
    assert win.status.text() == ""  # older news does not outlive the next answer
    c.choose_model(c.settings.model)  # the same model chosen again: loading, then ready again
    assert win.model_state.text() == "Model: loading…"
    qtbot.waitUntil(lambda: c.models_ok and idle(c), timeout=20000)
    assert win.model_state.text() == f"Model: {c.models.llm.name}"


def test_a_source_opened_while_the_viewer_is_dragged_shut_opens_it_again(window):
    win = window()
    win.splitter.setSizes([300, 1200, 0])
    assert win.splitter.sizes()[2] == 0
    from repobot.engine.chunk import Chunk
    from repobot.engine.retrieve import Hit

    assert win.open_hit(win.controller.pipeline(win.controller.active).collection.root,
                        Hit(1, 0, Chunk("guide/redirects.md", "Redirects", 1, 3, ""), 0.1))
    assert win.splitter.sizes()[2] > 100  # it opened out of sight, with no word


def test_the_status_bar_says_the_draft_is_being_checked_then_clears_when_the_answer_is_in(window, qtbot):
    """After the model's last token the window said nothing of the check, nor of the translation after it (up to
    half a minute for a Chinese question on two cores)."""
    from repobot.desktop.controller import ANSWERING
    from tests.conftest import redirects_in_chinese

    win = window(llm=redirects_in_chinese())
    c, said = win.controller, []
    c.checking.connect(lambda _label: said.append(win.status.text()))  # after the window's own slot
    with qtbot.waitSignal(c.answered, timeout=20000):
        assert win.ask("HTTPX 默认会跟随重定向吗？")
    checking = "Checking the draft against the passages, then putting the checked answer into Chinese…"
    assert said == [checking]  # in place of "Answering…"
    assert win.status.text() not in (ANSWERING, checking)  # cleared once the answer is in
    assert "HTTPX 默认不跟随重定向" in win.chat.conversation.toPlainText()
    win.status.setText("docs: 1 file changed, re-indexed")  # news that came while the model wrote stays
    c.checking.emit(checking)
    assert win.status.text() == "docs: 1 file changed, re-indexed"


def test_remove_asks_first_and_no_keeps_the_folder(window, monkeypatch):
    from repobot.desktop.panels import collections as panel

    win = window()
    c, asked = win.controller, []
    folder = c.active

    def reply(answer):
        return lambda parent, title, text: asked.append(text) or answer

    win.collections.tree.setCurrentItem(win.collections.tree.topLevelItem(c.collections.index(folder)))
    monkeypatch.setattr(panel, "ask_yes_no", reply(False))
    win.collections.remove_button.click()
    assert folder in c.collections and "Nothing on disk is deleted" in asked[0]
    monkeypatch.setattr(panel, "ask_yes_no", reply(True))
    win.collections.remove_button.click()
    assert folder not in c.collections


def test_the_question_before_removing_shows_its_text_as_written_and_says_no_by_default(qtbot):
    from repobot.desktop.panels.layout import ask_yes_no
    from repobot.desktop.qt import QApplication, QMessageBox, QTimer, Qt

    seen = []

    def look():
        box = QApplication.activeModalWidget()
        seen.append((box.textFormat(), box.text(), box.defaultButton() is box.button(QMessageBox.StandardButton.No)))
        box.defaultButton().click()

    QTimer.singleShot(50, look)
    title = "How do I use `<code>` in a `<pre>` block?"
    assert ask_yes_no(None, "Delete conversation", f"Delete “{title}”?") is False
    assert seen == [(Qt.TextFormat.PlainText, f"Delete “{title}”?", True)]


def test_browse_for_a_model_starts_in_the_data_folders_models_or_home(tmp_path, monkeypatch):
    from repobot.desktop.panels.chat import browse_folder

    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert browse_folder() == tmp_path / "home"  # it started in whatever folder RepoBot was run from
    (tmp_path / "data" / "models").mkdir(parents=True)
    assert browse_folder() == tmp_path / "data" / "models"


def test_the_window_fits_a_small_screen_with_every_pane_in_view(window, monkeypatch):
    """It opened 1,734-2,068 px wide on a 1400 x 900 screen, the viewer off its edge: the model list was as wide as
    its longest entry and four buttons stood in a row. Here the headless 800 x 800 screen is taken for a real one."""
    from repobot.desktop import window as window_module

    win = window()
    monkeypatch.setattr(window_module, "offscreen", lambda: False)
    win.fit_screen()
    assert win.minimumSizeHint().width() <= 1000  # a 1024-px screen holds it
    assert win.width() == max(800, win.minimumSizeHint().width()) and win.height() <= 800
    assert all(size > 100 for size in win.splitter.sizes())  # the viewer too
    before = win.collections.minimumSizeHint().width()
    win.collections.label.setText("Searchable now (by words); embedding 3,731 passages in the background — " * 3)
    assert win.collections.minimumSizeHint().width() == before  # long news wraps; it never widens the pane


def test_a_folder_being_indexed_says_so_where_its_files_will_be_listed(qtbot, tmp_path):
    """It said "Not opened yet: click to index" while the folder was being indexed."""
    from pathlib import Path

    from repobot.desktop.panels.collections import CollectionsPanel

    panel = CollectionsPanel(str(tmp_path / "guide"))
    qtbot.addWidget(panel)
    root = str(tmp_path / "docs")
    panel.show_collections([root], root, {})
    hint = lambda: panel.tree.topLevelItem(0).child(0).text(0)  # noqa: E731
    assert hint().startswith("Not opened yet")
    panel.indexing(root)
    assert hint().startswith("Indexing: its files are listed here")
    assert panel.label.text() == f"Indexing {Path(root).parent.name}/docs…"  # named as the tree names it
    panel.indexing(str(tmp_path / "guide"))
    assert panel.label.text() == "Indexing RepoBot user guide…"  # not "Indexing corpus…"
    panel.indexing(root)
    other = str(tmp_path / "other")
    panel.show_collections([root, other], root, {})  # drawn again meanwhile (another folder added)
    assert hint().startswith("Indexing:")
    panel.indexing(other)  # clicked while the first still indexes
    assert hint().startswith("Indexing:") and panel.tree.topLevelItem(1).child(0).text(0).startswith("Indexing:")
    panel.show_stopped(root)
    assert hint().startswith("Not opened yet")
    assert panel.tree.topLevelItem(1).child(0).text(0).startswith("Indexing:")  # queued meanwhile: still to come


def test_the_model_list_names_the_default_model_once(window):
    from pathlib import Path

    from repobot.engine.models import default_model_path

    combo = window().chat.model_combo
    data = [combo.itemData(n) for n in range(combo.count())]
    assert data[0] == ""  # "Qwen2.5-Coder-0.5B (default)"
    assert not any(isinstance(d, str) and d and Path(d).resolve() == default_model_path().resolve() for d in data)


def test_choosing_a_model_while_an_answer_is_written_never_blocks_the_window(window, qtbot):
    slow = SlowLLM(" ".join(f"step{i}" for i in range(150)), piece=5)  # about 4 s, never repeating
    win = window(llm=slow)
    c = win.controller
    other = FakeLLM(ANSWER)
    other.name = "other.gguf"
    tokens, ready = [], []
    c.token.connect(tokens.append)
    c.models_ready.connect(ready.append)
    assert win.ask("Does HTTPX follow redirects by default?")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=10000)
    c.choose_model(register_fake_llm(other))  # the answer being written holds the model …
    assert slow.writing  # … and the window did not wait for it
    qtbot.waitUntil(lambda: idle(c) and bool(ready), timeout=30000)
    assert ready == ["other.gguf"] and c.models.llm is other
    assert c.turns[-1].answer.model == SlowLLM.name  # the answer kept the model it was asked with


def test_adding_an_empty_folder_shows_the_error_and_keeps_working(window, qtbot, tmp_path):
    win = window()
    empty = tmp_path / "empty"
    empty.mkdir()
    win.controller.add_collection(str(empty))
    qtbot.waitUntil(lambda: idle(win.controller) and win.chat.banner.isVisible(), timeout=20000)
    assert "No readable markdown" in win.chat.banner.text()
    # not still "Indexing …"; the folder named as the tree names it
    assert win.status.text() == f"Indexing {tmp_path.name}/empty stopped: see the message above."


def test_a_folder_whose_path_is_not_utf8_is_refused_in_one_line_and_settings_still_save(window, tmp_path, settings_path):
    """Qt's text cannot hold such a path: kept, it was saved and shown under another name, and settings failed."""
    import os

    win = window()
    c = win.controller
    odd = tmp_path / os.fsdecode(b"z\xffdir")
    odd.mkdir()
    (odd / "a.md").write_text("# A\n\nText.\n")
    c.add_collection(str(odd))
    assert "cannot open" in win.chat.banner.text() and "z\\xffdir" in win.chat.banner.text()
    assert str(odd) not in c.settings.collections
    c.save_settings()
    assert settings_path.is_file()


def test_remote_links_need_confirmation_and_paths_stay_inside_the_folder(window, docs):
    win = window()
    asked = []
    win.viewer.confirm_external = lambda url: asked.append(url.toString()) or False
    win.viewer.open_file(docs, "timeouts.md")
    from repobot.desktop.qt import QUrl

    win.viewer.follow_link(QUrl("https://example.com/x"))
    assert asked == ["https://example.com/x"]
    assert not win.viewer.open_file(docs, "../../../etc/passwd")
    assert "outside the indexed folder" in win.chat.banner.text()


def test_settings_persist_between_runs(window, settings_path, docs):
    win = window()
    win.chat.k_spin.setValue(3)
    win.chat.mode_combo.setCurrentText("bm25")
    saved = SettingsStore(settings_path).load()
    assert (saved.k, saved.mode) == (3, "bm25")
    assert saved.active == str(docs.resolve())


def test_closing_a_window_keeps_a_folder_another_window_added(window, settings_path, tmp_path):
    """Closing wrote the whole of its settings back, dropping a folder another RepoBot window had saved since."""
    import json

    first, second = window(), window()
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "x.md").write_text("# X\n\nHello there.\n", encoding="utf-8")
    assert first.controller.add_collection(str(extra)) is not False
    second.close()
    saved = json.loads(settings_path.read_text(encoding="utf-8"))
    assert str(extra.resolve()) in saved["collections"] and len(saved["panes"]) == 3


def test_stop_pressed_as_an_answer_ends_on_its_own_does_not_leave_stopping(window, qtbot):
    """Stop while the gate refused or the check ran ends the answer with another stop reason than "cancelled", and
    the status bar kept "Stopping…" for good."""
    from repobot.desktop.controller import STOPPING

    win = window()
    c = win.controller
    c.status.emit(STOPPING)
    c.answered.emit(c.turns[-1] if c.turns else None)
    assert win.status.text() == ""


def test_an_answer_that_fails_does_not_leave_the_status_saying_answering(window, qtbot):
    class Broken(FakeLLM):
        def stream_chat(self, messages, *, max_tokens):
            raise RuntimeError("the model crashed")
            yield  # a generator, as a model's stream is

    win = window(llm=Broken(ANSWER))
    assert win.ask("Does HTTPX follow redirects by default?")
    qtbot.waitUntil(lambda: idle(win.controller) and bool(win.chat.banner.text()), timeout=20000)
    assert win.status.text() != "Answering…"


def test_a_settings_file_naming_the_default_models_file_shows_the_default_entry(window, settings_path):
    from repobot.engine.models import default_model_path

    chat = window().chat
    chat.fill_models(str(default_model_path()))  # what picking its own entry saved before
    assert chat.model_combo.currentIndex() == 0 and chat.model_combo.currentData() == ""
    assert not any("your own" in chat.model_combo.itemText(n) for n in range(chat.model_combo.count()))


def test_the_panes_are_as_wide_as_they_were_left(window):
    """A pane widened by hand was back to its first width after a restart."""
    first = window()
    first.splitter.setSizes([600, 600, 300])
    left = first.splitter.sizes()
    first.close()
    again = window()
    now = again.splitter.sizes()
    assert all(abs(a / sum(now) - b / sum(left)) < 0.02 for a, b in zip(now, left)), (now, left)


def test_watched_folder_picks_up_created_changed_and_deleted_files(window, qtbot, docs):
    win = window()
    c = win.controller
    root = c.active
    (docs / "new.md").write_text("# New page\n\nBrand new content about proxies.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: c.indexed_reports[root].added == 1 and idle(c), timeout=15000)
    assert "new.md" in c.indexed_reports[root].sources
    (docs / "timeouts.md").write_text("# Timeouts\n\nChanged.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: c.indexed_reports[root].updated == 1 and idle(c), timeout=15000)
    (docs / "new.md").unlink()
    qtbot.waitUntil(lambda: c.indexed_reports[root].removed == 1 and idle(c), timeout=15000)
    assert "new.md" not in c.indexed_reports[root].sources
    assert "1 file removed" in win.collections.label.text()  # it said "(+0 ~0 −1)"


def test_a_removed_folder_is_no_longer_watched_or_reindexed(window, qtbot, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")  # outside the docs folder, which is watched too
    (other / "a.md").write_text("# A\n\nSome page about proxies.\n", encoding="utf-8")
    win = window()
    c = win.controller
    c.add_collection(str(other))
    root = str(other.resolve())
    qtbot.waitUntil(lambda: root in c.indexed_reports and idle(c), timeout=15000)
    assert c.remove_collection(root)
    assert root not in c.indexed_reports and root not in c.collections
    assert not [p for p in c.watcher.paths if p.startswith(root)]
    indexed = []
    c.indexing.connect(indexed.append)
    (other / "a.md").write_text("# A\n\nEdited after removal.\n", encoding="utf-8")
    qtbot.wait(2500)  # longer than the watcher's quiet second
    assert indexed == [] and root not in c.watcher.pending


def test_a_question_asked_while_indexing_waits_for_the_complete_index(window, qtbot, docs):
    win = window()
    c = win.controller
    c.index(c.active)
    assert c.tasks.waiting(Busy.INDEXING)
    statuses = []
    c.status.connect(statuses.append)
    assert win.ask("Does HTTPX follow redirects by default?")
    assert any("as soon as the folder can be searched" in s for s in statuses)  # it said "the complete index", and
    # was asked once the words were indexed, before the embedding
    qtbot.waitUntil(lambda: bool(c.turns) and idle(c), timeout=20000)
    assert c.turns[-1].answer.question == "Does HTTPX follow redirects by default?"


class SlowEmbedder(FakeEmbedder):
    """The fake embedder, slow at embedding a folder (0.3 s a group of passages) until the test lets it go at full
    speed (``release``), so that a question can arrive while the folder is still being embedded. Questions are
    embedded at once."""

    name = "slow-fake-embedder"
    release = threading.Event()

    def embed_many(self, texts, **kwargs):
        if not self.release.is_set():
            time.sleep(0.3)
        return super().embed_many(texts, **kwargs)


def slow_window(qtbot, docs, settings_path, pages: int) -> MainWindow:
    """A window on ``docs`` grown by ``pages`` pages, embedded slowly (``SlowEmbedder``) until the test lets it go."""
    for n in range(pages):
        (docs / f"page{n}.md").write_text(f"# Page {n}\n\nProxy settings number {n} for the client.\n" * 20,
                                          encoding="utf-8")
    register_embedder("slow-fake", SlowEmbedder)
    SlowEmbedder.release.clear()
    win = MainWindow(corpus=str(docs), store=SettingsStore(settings_path), embedder="slow-fake",
                     model=register_fake_llm(FakeLLM(ANSWER)))
    qtbot.addWidget(win)
    return win


def test_cancel_during_embedding_says_it_is_paused_and_turns_cancel_off(qtbot, docs, settings_path):
    """The panel kept saying "embedding 1,049 / 2,159" with Cancel on, and a second Cancel did nothing."""
    win = slow_window(qtbot, docs, settings_path, 40)
    win.show()
    c = win.controller
    qtbot.waitUntil(lambda: c.models_ok and c.tasks.waiting(Busy.EMBEDDING), timeout=20000)
    qtbot.waitUntil(lambda: "embedding" in win.collections.label.text(), timeout=20000)
    assert win.collections.cancel_button.isEnabled()
    win.collections.cancel_button.click()
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING), timeout=20000)
    assert win.collections.label.text().startswith("Embedding paused")
    assert not win.collections.cancel_button.isEnabled()
    win.close()


def test_esc_while_a_folder_embeds_in_the_background_neither_stops_it_nor_says_stopping(qtbot, docs, settings_path):
    """Esc said "Stopping…" for good while the embedding went on: that has its own Cancel, which pauses it."""
    win = slow_window(qtbot, docs, settings_path, 40)
    win.show()
    c = win.controller
    qtbot.waitUntil(lambda: c.models_ok and c.busy is Busy.EMBEDDING, timeout=20000)
    statuses = []
    c.status.connect(statuses.append)
    c.cancel()  # Esc
    assert statuses == [] and c.tasks.waiting(Busy.EMBEDDING)
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING), timeout=20000)
    assert not win.collections.label.text().startswith("Embedding paused")  # it went on to the end
    win.close()


def test_a_new_folder_answers_at_once_by_words_while_it_is_embedded(qtbot, docs, settings_path):
    win = slow_window(qtbot, docs, settings_path, 40)  # 40 pages, each its own group (12 s until the test lets go)
    win.show()
    c = win.controller
    qtbot.waitUntil(lambda: c.models_ok and c.active in c.indexed_reports, timeout=20000)
    assert c.tasks.waiting(Busy.EMBEDDING) and "Searchable" in win.collections.label.text()
    assert win.ask("Does HTTPX follow redirects by default?")
    qtbot.waitUntil(lambda: len(c.turns) == 1, timeout=20000)
    turn = c.turns[0]
    assert c.tasks.waiting(Busy.EMBEDDING)  # answered before the embedding ended
    # said of the answer, in the past: it stays true once the folder is embedded and the status bar says so
    assert any(note.startswith("Asked while this folder was being embedded: ") and note.endswith(
        "were searched by meaning; the others were found by their words alone (BM25).") for note in turn.answer.notes)
    assert "guide/redirects.md" in {h.chunk.source for h in turn.answer.retrieved}
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING), timeout=60000)
    assert c.indexed_reports[c.active].pending == 0
    assert not any("BM25" in note for note in ask_and_wait(qtbot, win).answer.notes)
    win.close()


def waiting_window(qtbot, docs, settings_path):
    """A window opened on ``docs`` while another RepoBot (a command, say) holds its embedding turn; and that turn."""
    from repobot.engine.store import embedding_turn, prepared_store_dir

    theirs = embedding_turn(prepared_store_dir(docs))
    assert theirs is not None
    win = MainWindow(corpus=str(docs), store=SettingsStore(settings_path), embedder="fake",
                     model=register_fake_llm(FakeLLM(ANSWER)))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: "another RepoBot is embedding it" in win.collections.label.text(), timeout=20000)
    return win, theirs


def test_a_folder_another_repobot_is_embedding_answers_by_words_and_is_embedded_once_it_may(qtbot, docs, settings_path):
    win, theirs = waiting_window(qtbot, docs, settings_path)
    c = win.controller
    assert win.ask("Does HTTPX follow redirects by default?")  # the wait gives way to a question, as embedding does
    qtbot.waitUntil(lambda: len(c.turns) == 1, timeout=20000)
    assert any("found by their words alone (BM25)" in note for note in c.turns[0].answer.notes)
    assert not c.tasks.waiting(Busy.EMBEDDING)  # the wait holds no job: the worker is free for other folders
    theirs.close()  # the other RepoBot stopped before it saved anything: the window embeds the folder itself
    qtbot.waitUntil(lambda: c.indexed_reports[c.active].pending == 0, timeout=20000)
    assert not c.pipeline(c.active).collection.index.pending
    win.close()


def test_cancel_or_remove_stops_a_wait_for_another_repobot_and_other_folders_embed_meanwhile(
        qtbot, docs, settings_path, tmp_path_factory):
    win, theirs = waiting_window(qtbot, docs, settings_path)
    c = win.controller
    other = tmp_path_factory.mktemp("other")
    (other / "page.md").write_text("# Proxies\n\nSet a proxy for the client.\n" * 5, encoding="utf-8")
    c.add_collection(str(other))  # its embedding is not held up by the wait
    qtbot.waitUntil(lambda: str(other) in c.indexed_reports and c.indexed_reports[str(other)].pending == 0,
                    timeout=20000)
    assert "another RepoBot" not in win.collections.label.text()  # said once, not over the other folder's report
    c.set_active(str(docs))  # brought up to date again: still another RepoBot's to embed
    qtbot.waitUntil(lambda: "another RepoBot is embedding it" in win.collections.label.text(), timeout=20000)
    c.cancel_indexing()
    assert win.collections.label.text().startswith("Embedding paused")
    assert not win.collections.cancel_button.isEnabled()
    theirs.close()
    qtbot.wait(4000)  # past the next try: cancelled, the wait is not taken up again by itself
    assert c.pipeline(str(docs)).collection.index.pending
    assert c.remove_collection(str(docs)) and not c.tasks.waiting(Busy.EMBEDDING)
    win.close()


def test_a_chosen_model_that_turns_out_cut_off_is_shown_as_chosen_with_its_problem(qtbot, docs, settings_path, tmp_path):
    """The picker used to show the default model as chosen while the error named the cut-off file."""
    from tests.conftest import tiny_gguf

    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_gguf()[:-1])
    win = MainWindow(corpus=str(docs), store=SettingsStore(settings_path), embedder="fake", model=str(cut))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: "cannot be used as a model" in win.chat.banner.text(), timeout=20000)
    assert win.chat.model_combo.currentText().startswith("cut.gguf — cannot be used: it is incomplete")
    assert win.chat.model_combo.currentData() == str(cut)
    win.close()


def test_a_re_indexed_folder_keeps_track_of_its_new_embedding_so_removing_it_stops_it(qtbot, docs, settings_path):
    """Re-indexing replaces the running embedding; the new one stays tracked (the replaced one's end never drops its
    entry), so removing the folder stops it instead of leaving it to embed a folder no one uses."""
    win = slow_window(qtbot, docs, settings_path, 40)
    win.show()
    c, folder = win.controller, str(docs.resolve())
    embedding = c.library.embeddings._jobs
    qtbot.waitUntil(lambda: folder in embedding, timeout=20000)
    replaced = embedding[folder]
    c.index(folder)  # Re-index: the running embedding is replaced by the new index's
    qtbot.waitUntil(lambda: replaced not in c.tasks._jobs and embedding.get(folder, replaced) != replaced,
                    timeout=20000)
    newer = embedding[folder]
    qtbot.wait(500)
    assert embedding.get(folder) == newer and newer in c.tasks._jobs
    assert c.remove_collection(folder)
    qtbot.waitUntil(lambda: newer not in c.tasks._jobs, timeout=20000)  # stopped, not left embedding a removed folder
    SlowEmbedder.release.set()
    win.close()


def test_a_question_when_the_model_failed_to_load_is_refused_with_the_reason(qtbot, docs, settings_path):
    from repobot.engine.errors import ModelError
    from repobot.engine.registry import register_llm

    def broken():
        raise ModelError("broken.gguf is corrupt or incomplete: run `make install`.")

    register_llm("broken-llm", broken)
    win = MainWindow(corpus=str(docs), store=SettingsStore(settings_path), embedder="fake", model="broken-llm")
    qtbot.addWidget(win)
    win.show()
    c = win.controller
    qtbot.waitUntil(lambda: idle(c) and c.active in c.indexed_reports, timeout=20000)
    assert not c.models_ok
    assert not win.ask("Does HTTPX follow redirects by default?")  # not parked as if the model were still loading
    assert c.pending_question == "" and "choose another model" in win.chat.banner.text()
    # the indexing news that came after replaced "Models not loaded" in the status line; the lasting corner keeps it
    assert "Models not loaded" not in win.status.text()
    assert win.model_state.text() == "Model not loaded" and "corrupt or incomplete" in win.model_state.toolTip()
    win.close()


def test_a_question_waiting_for_an_index_that_was_stopped_is_not_asked(window, qtbot, tmp_path, monkeypatch):
    from repobot.engine.collection import Collection
    from repobot.engine.errors import Cancelled

    win = window()
    c = win.controller

    def stopped(self, **kwargs):  # the user pressed Cancel before the folder was searchable
        raise Cancelled()

    monkeypatch.setattr(Collection, "update", stopped)
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("# A\n\nSome text about A.\n", encoding="utf-8")
    statuses, asked = [], []
    c.status.connect(statuses.append)
    c.asking.connect(asked.append)
    c.add_collection(str(other))
    assert win.ask("What is in A?")  # waits for the index
    qtbot.waitUntil(lambda: idle(c) and not c.tasks.waiting(Busy.INDEXING), timeout=10000)
    assert asked == [] and c.pending_question == ""  # never answered by building the whole index past Cancel
    assert any("not asked" in s for s in statuses)


@pytest.mark.parametrize("text", ["null", "[]", '"hybrid"'])
def test_a_settings_file_that_is_not_an_object_is_set_aside(tmp_path, text):
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    store = SettingsStore(path)
    assert store.load() == Settings()
    assert "moved to settings.damaged" in store.problem
    assert (tmp_path / "settings.damaged").read_text(encoding="utf-8") == text


def test_a_scripted_question_that_is_refused_or_fails_ends_the_script_as_failed(qtbot, docs, settings_path):
    from repobot.desktop.app import Script

    class Broken(FakeLLM):
        def stream_chat(self, messages, *, max_tokens):
            raise RuntimeError("the model crashed")
            yield  # a generator, as a model's stream is

    for question, llm in (("   ", FakeLLM(ANSWER)), ("Does HTTPX follow redirects by default?", Broken())):
        win = MainWindow(corpus=str(docs), store=SettingsStore(settings_path), embedder="fake",
                         model=register_fake_llm(llm))
        qtbot.addWidget(win)
        script = Script(win, ask=question, screenshot=None, open_source=None, quit_after=False)
        qtbot.waitUntil(lambda: script.failed, timeout=20000)  # it used to wait for an answer that never came
        win.close()


def test_a_scripted_question_whose_model_failed_to_load_says_it_was_not_asked(qtbot, docs, settings_path, capsys):
    from repobot.desktop.app import Script
    from repobot.engine.errors import ModelError
    from repobot.engine.registry import register_llm

    def broken():
        raise ModelError("broken.gguf is corrupt or incomplete: run `make install`.")

    register_llm("broken-llm-2", broken)
    win = MainWindow(corpus=str(docs), store=SettingsStore(settings_path), embedder="fake", model="broken-llm-2")
    qtbot.addWidget(win)
    script = Script(win, ask="Does HTTPX follow redirects by default?", screenshot=None, open_source=None,
                    quit_after=False)
    win.show()
    qtbot.waitUntil(lambda: script.failed, timeout=20000)
    qtbot.wait(200)
    said = capsys.readouterr().err
    assert "broken.gguf is corrupt" in said and "your question was not asked" in said  # it was dropped without a word
    assert not win.controller.turns
    win.close()


def test_a_scripted_answer_that_could_not_be_saved_ends_the_script_as_failed(qtbot, docs, settings_path, monkeypatch):
    """`gui --ask … --quit` exited 0 when the answer was shown but its conversation could not be saved."""
    from repobot.desktop.app import Script
    from repobot.engine.errors import RepoBotError
    from repobot.engine.history import History

    def refuse(self, conversation, answer):
        raise RepoBotError("The conversation could not be saved (attempt to write a readonly database).")

    monkeypatch.setattr(History, "record", refuse)
    win = MainWindow(corpus=str(docs), store=SettingsStore(settings_path), embedder="fake",
                     model=register_fake_llm(FakeLLM(ANSWER)))
    qtbot.addWidget(win)
    script = Script(win, ask="Does HTTPX follow redirects by default?", screenshot=None, open_source=None,
                    quit_after=False)
    qtbot.waitUntil(lambda: len(win.controller.turns) == 1 and idle(win.controller), timeout=20000)
    assert script.failed and "could not be saved" in win.controller.conversation.unsaved
    win.close()


def test_indexing_another_folder_does_not_stop_this_folders_embedding(qtbot, docs, settings_path, tmp_path):
    win = slow_window(qtbot, docs, settings_path, 8)
    c = win.controller
    first = c.active
    qtbot.waitUntil(lambda: c.models_ok and first in c.indexed_reports, timeout=20000)
    assert c.tasks.waiting(Busy.EMBEDDING)
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("# A\n\nSome text about A.\n", encoding="utf-8")
    c.add_collection(str(other))  # indexed (and embedded) while the first folder is still being embedded
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING) and idle(c), timeout=60000)
    assert c.indexed_reports[first].pending == 0  # it used to stop at "Embedding paused" and never resume
    win.close()


def test_forgetting_a_folder_keeps_watching_a_folder_inside_it(qapp, tmp_path):
    from repobot.desktop.watch import FolderWatcher

    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "a.md").write_text("# A\n", encoding="utf-8")
    watcher = FolderWatcher()
    watcher.watch(str(tmp_path), ["api/a.md"])
    watcher.watch(str(tmp_path / "api"), ["a.md"])
    watcher.forget(str(tmp_path))
    assert {str(tmp_path / "api"), str(tmp_path / "api" / "a.md")} <= set(watcher.paths)
    assert str(tmp_path) not in watcher.paths


def test_a_folder_not_opened_yet_is_listed_by_the_indexer_not_by_the_window(window, qtbot):
    win = window()
    c, tree = win.controller, win.collections.tree
    guide = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).toolTip(0) == c.bundled)
    assert c.bundled not in c.indexed_reports
    assert [guide.child(j).text(0) for j in range(guide.childCount())] == [
        "Not opened yet: click to index and list its files"]
    win.collections._clicked(guide.child(0))
    qtbot.waitUntil(lambda: c.bundled in c.indexed_reports and idle(c), timeout=20000)
    guide = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).toolTip(0) == c.bundled)
    files = [guide.child(j).text(0) for j in range(guide.childCount())]
    assert files == c.indexed_reports[c.bundled].sources and all(f.endswith(".md") for f in files)


def test_closing_hides_the_window_before_waiting_for_the_worker(window, monkeypatch):
    win = window()
    seen = []
    real = win.controller.shutdown
    monkeypatch.setattr(win.controller, "shutdown", lambda: (seen.append(win.isVisible()), real()))
    win.close()
    assert seen == [False]  # a step the worker cannot cut (a model loading) no longer leaves a frozen window


def select(browser, words: str, last: bool = False) -> None:
    """Select the first (or ``last``) ``words`` in a text browser, as a reader's drag would."""
    from repobot.desktop.qt import QTextCursor

    text = browser.toPlainText()
    start = text.rindex(words) if last else text.index(words)
    cursor = browser.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(start + len(words), QTextCursor.MoveMode.KeepAnchor)
    browser.setTextCursor(cursor)


def viewer_at_cited_line(qtbot, folder, title: str, filler: str, cited: str, size: tuple[int, int]):
    """A viewer of ``size`` showing long.md (``filler``, a ``cited`` line under "## Target", ``filler``) at that line."""
    from repobot.desktop.panels.viewer import ViewerPanel

    (folder / "long.md").write_text(f"# {title}\n\n{filler}\n\n## Target\n\n{cited}\n\n{filler}\n", encoding="utf-8")
    line = f"# {title}\n\n{filler}\n\n## Target\n\n".count("\n") + 1
    viewer = ViewerPanel()
    qtbot.addWidget(viewer)
    viewer.resize(*size)
    viewer.show()
    assert viewer.open_file(folder, "long.md", lines=(line, line))
    return viewer


def test_the_cited_lines_stay_in_view_when_the_viewer_is_resized_until_the_user_scrolls(qtbot, tmp_path):
    from PySide6.QtCore import QPoint

    filler = "\n\n".join(f"Paragraph {i}: " + "words that wrap differently at every width " * 4 for i in range(120))
    viewer = viewer_at_cited_line(qtbot, tmp_path, "Long", filler, "The cited line.", (500, 600))

    def top_line() -> str:
        return viewer.view.cursorForPosition(QPoint(5, 5)).block().text()

    assert top_line() == "The cited line."
    viewer.resize(250, 600)  # the text wraps anew: the same scroll position would show other lines
    qtbot.waitUntil(lambda: top_line() == "The cited line.", timeout=2000)
    viewer.view.verticalScrollBar().triggerAction(viewer.view.verticalScrollBar().SliderAction.SliderPageStepAdd)
    scrolled = top_line()
    assert scrolled != "The cited line."
    viewer.resize(400, 600)
    assert viewer.view.pinned is None  # the user scrolled: a resize no longer pulls the view back


def test_the_languages_of_a_translated_tree_are_chosen_in_the_window(window, qtbot, tmp_path, monkeypatch):
    from repobot.desktop.panels.collections import LanguagesDialog
    from repobot.desktop.qt import QDialog
    from repobot.engine.collection import Collection
    from tests.conftest import fake_models

    monkeypatch.setenv("LC_ALL", "C")  # the default: English alone
    root = tmp_path / "translated"
    for lang, text in (("en", "Redirects are not followed by default."), ("zh", "默认不跟随重定向。"),
                       ("ja", "デフォルトではリダイレクトしません。")):
        (root / lang / "docs").mkdir(parents=True)
        (root / lang / "docs" / "redirects.md").write_text(f"# Redirects\n\n{text}\n", encoding="utf-8")
    win = window()
    c, panel = win.controller, win.collections
    assert not panel.languages_button.isEnabled()  # the test docs are not a translated tree
    c.add_collection(str(root))
    qtbot.waitUntil(lambda: str(root) in c.indexed_reports and idle(c), timeout=20000)
    report = c.indexed_reports[str(root)]
    assert report.languages == ("en",) and dict(report.available) == {"en": 1, "ja": 1, "zh": 1}
    assert panel.languages_button.isEnabled()

    def tick_chinese(dialog):
        assert [box.text() for box in dialog.boxes.values()][0] == "English (en) — 1 page"
        assert dialog.boxes["en"].isChecked() and not dialog.boxes["zh"].isChecked()
        dialog.boxes["zh"].setChecked(True)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(LanguagesDialog, "exec", tick_chinese)
    panel.languages_button.click()
    qtbot.waitUntil(lambda: c.indexed_reports[str(root)].languages == ("en", "zh") and idle(c), timeout=20000)
    assert c.indexed_reports[str(root)].sources == ["en/docs/redirects.md", "zh/docs/redirects.md"]
    assert Collection(root, fake_models()).chosen_languages() == {"en", "zh"}  # remembered for the folder

    def untick_all(dialog):
        for box in dialog.boxes.values():
            box.setChecked(False)
        assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()  # nothing to index: no OK
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(LanguagesDialog, "exec", untick_all)
    panel.languages_button.click()
    assert c.indexed_reports[str(root)].languages == ("en", "zh")


def test_a_language_choice_that_cannot_be_saved_is_said_in_the_window(window, monkeypatch):
    from repobot.engine.collection import Collection
    from repobot.engine.errors import unwritable_data_folder

    def refuse(self, languages):
        raise unwritable_data_folder("/data", PermissionError(13, "Permission denied"))

    monkeypatch.setattr(Collection, "choose_languages", refuse)
    win = window()
    errors, indexed = [], []
    win.controller.error.connect(errors.append)
    win.controller.indexing.connect(indexed.append)
    win.controller.choose_languages(win.controller.bundled, ["en", "zh"])
    assert errors == ["RepoBot cannot write its data folder /data (Permission denied): make it a folder you can "
                      "write, or set REPOBOT_HOME to one."]
    assert indexed == []  # nothing re-indexed with a choice that was not kept


def test_a_long_file_opens_in_part_around_its_cited_lines_without_holding_the_window(window, docs):
    """Qt lays out a rendered page on the window's thread (12 s for a 1.6 MB file): a long file is shown in part."""
    win = window()
    (docs / "big.md").write_text("".join(f"## Section {i}\n\nText of section {i}.\n\n" for i in range(40_000)))
    assert win.viewer.open_file(docs, "big.md", lines=(120_001, 120_003))
    title = win.viewer.title.text()
    assert "too long to show whole" in title and "of 160,000" in title
    html = win.viewer.view.toHtml()
    assert "Section 30000" in html and "Section 100" not in html and "#fff1a8" in html
    assert win.viewer.open_file(docs, "guide/redirects.md") and "too long" not in win.viewer.title.text()


def test_a_data_folder_that_cannot_be_written_is_said_at_start_and_the_saved_index_still_answers(
        window, qtbot, monkeypatch, tmp_path):
    """Read-only, with an index saved before (tests run as root, so the refusal is raised where it would be)."""
    import errno

    from repobot.engine.errors import unwritable_data_folder

    def refuse():
        raise unwritable_data_folder(tmp_path, PermissionError(errno.EACCES, "Permission denied"))

    monkeypatch.setattr("repobot.desktop.library.writable_data_dir", refuse)
    win = window()
    assert "cannot write its data folder" in win.chat.banner.text()
    assert "answers are shown but not saved" in win.chat.banner.text()
    assert win.ask("Does HTTPX follow redirects by default?")
    qtbot.waitUntil(lambda: len(win.controller.turns) == 1 and idle(win.controller), timeout=20000)


def test_the_find_box_counts_and_marks_every_match_goes_both_ways_and_keeps_its_query_for_the_next_file(qtbot, tmp_path):
    from repobot.desktop.panels.viewer import CURRENT, ViewerPanel
    from repobot.desktop.qt import QEvent, Qt
    from PySide6.QtGui import QKeyEvent

    (tmp_path / "a.md").write_text("# Proxy\n\nA proxy here.\n\nAnother PROXY there.\n\nThe last proxy.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Timeouts\n\nNo such word.\n", encoding="utf-8")
    viewer = ViewerPanel()
    qtbot.addWidget(viewer)
    viewer.show()
    assert viewer.open_file(tmp_path, "a.md")

    def at() -> int:
        return viewer.view.textCursor().selectionStart()

    def press(key, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
        viewer.eventFilter(viewer.find_box, QKeyEvent(QEvent.Type.KeyPress, key, modifiers))

    qtbot.keyClicks(viewer.find_box, "prox")  # searched as it is typed, in any case
    assert len(viewer.found) == 4 and viewer.find_count.text() == "1 of 4"
    first = at()
    qtbot.keyClicks(viewer.find_box, "y")  # the match it is at still matches: it stays there
    assert at() == first and viewer.find_count.text() == "1 of 4"
    marks = viewer.view.extraSelections()
    assert len(marks) == 4 and [m.format.background().color() == CURRENT for m in marks] == [True, False, False, False]
    press(Qt.Key.Key_Return)
    assert viewer.find_count.text() == "2 of 4" and at() > first
    press(Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    press(Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # before the first: round to the last
    assert viewer.find_count.text() == "4 of 4"
    press(Qt.Key.Key_Return)
    assert viewer.find_count.text() == "1 of 4" and at() == first  # after the last: round to the first

    assert viewer.open_file(tmp_path, "b.md")  # the query is kept, and counted in the new file
    assert viewer.find_box.text() == "proxy" and viewer.find_count.text() == "No matches"
    assert viewer.view.extraSelections() == []
    assert viewer.open_file(tmp_path, "a.md")
    assert viewer.find_count.text() == "4 matches" and len(viewer.view.extraSelections()) == 4
    viewer.focus_find()  # Ctrl+F: the query selected, so that typing replaces it
    assert viewer.find_box.selectedText() == "proxy"
    press(Qt.Key.Key_Escape)  # clears the box and the marks
    assert viewer.find_box.text() == "" and viewer.find_count.text() == "" and viewer.view.extraSelections() == []


def test_the_draft_is_shown_rendered_while_it_streams_not_as_raw_markdown(window, qtbot):
    win = window()
    chat = win.chat
    chat.begin("How do I follow redirects?")
    for piece in ("Pass `follow_", "redirects=True` [1]:\n", "```python\n", "client.get(url, follow_redirects=True)"):
        chat.conversation.add_token(piece)

    def shown() -> str:
        return chat.conversation.toPlainText()

    qtbot.waitUntil(lambda: "client.get(url, follow_redirects=True)" in shown(), timeout=3000)
    assert "`" not in shown() and "Pass follow_redirects=True [1]:" in shown()  # code spans and the open fence rendered
    markup = chat.conversation.toHtml()
    assert "<pre" in markup and 'href="cite:-1:1"' in markup  # the block as code; the citation opens its passage
    chat.conversation.add_token("\n```\nDone [1].")
    qtbot.waitUntil(lambda: "Done [1]." in shown(), timeout=3000)
    assert shown().rstrip().endswith("Done [1].▍")
    chat.conversation.show_drafting("Its first draft was not backed by the passages; it writes again.")  # a second draft
    chat.conversation.add_token("Again [2].")
    qtbot.waitUntil(lambda: "Again [2]." in shown(), timeout=3000)
    assert "Done [1]." not in shown() and "client.get" not in shown()  # the first draft's text is gone, as before


def test_tab_passes_over_the_answers_links_in_one_stop_and_enter_in_the_passage_list_opens_a_passage(window, qtbot):
    from repobot.desktop.qt import Qt

    win = window()
    ask_and_wait(qtbot, win)
    conversation = win.chat.conversation
    assert "cite:0:1" in conversation.toHtml()  # the answer has links Tab used to stop on, one by one
    conversation.setFocus()
    qtbot.waitUntil(conversation.hasFocus, timeout=2000)
    qtbot.keyClick(conversation, Qt.Key.Key_Tab)
    assert not conversation.hasFocus() and not conversation.textCursor().hasSelection()
    passages = win.chat.retrieved_list
    passages.setFocus()
    passages.setCurrentRow(0)
    opened = []
    win.chat.passage_clicked.connect(lambda root, hit: opened.append(hit.rank))
    qtbot.keyClick(passages, Qt.Key.Key_Return)
    assert win.viewer.title.text().startswith("<b>guide/redirects.md</b>") and opened == [1]
    place = passages.visualItemRect(passages.item(0)).center()
    qtbot.mouseClick(passages.viewport(), Qt.MouseButton.LeftButton, pos=place)
    qtbot.mouseDClick(passages.viewport(), Qt.MouseButton.LeftButton, pos=place)  # a double click's second press
    assert opened == [1, 1]  # opened by the click, once (itemActivated opened it again on the double click)


def test_stop_says_what_it_stops(window):
    chat = window().chat
    chat.set_busy(Busy.INDEXING, models_ok=True)
    assert chat.stop_button.isEnabled() and chat.stop_button.text() == "Stop indexing"
    assert "Re-index" in chat.stop_button.toolTip()
    chat.set_busy(Busy.ANSWERING, models_ok=True)
    assert chat.stop_button.text() == "Stop" and "answer" in chat.stop_button.toolTip()
    chat.set_busy(Busy.IDLE, models_ok=True)
    assert not chat.stop_button.isEnabled() and chat.stop_button.text() == "Stop"


def test_esc_in_the_find_box_clears_it_and_only_a_second_esc_reaches_the_windows_stop(window, qtbot, docs):
    from repobot.desktop.qt import QKeySequence, QShortcut, Qt

    win = window()
    stops = []
    escape = next(s for s in win.findChildren(QShortcut) if s.key() == QKeySequence("Escape"))
    escape.activated.connect(lambda: stops.append("stop"))
    assert win.viewer.open_file(docs, "timeouts.md")
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)
    win.viewer.focus_find()
    qtbot.keyClicks(win.viewer.find_box, "timeout")
    assert win.viewer.find_count.text() == "1 of 4"
    qtbot.keyClick(win.viewer.find_box, Qt.Key.Key_Escape)
    assert win.viewer.find_box.text() == "" and stops == []  # it stopped the answer (or the indexing) and kept the query
    qtbot.keyClick(win.viewer.find_box, Qt.Key.Key_Escape)
    assert stops == ["stop"]


def test_find_starts_where_the_reader_is_looking_not_at_the_files_start(qtbot, tmp_path):
    filler = "\n\n".join(f"Paragraph {i} about proxy settings." for i in range(200))
    viewer = viewer_at_cited_line(qtbot, tmp_path, "Proxy", filler, "The cited proxy line.", (500, 400))
    scrolled = viewer.view.verticalScrollBar().value()
    assert scrolled > 0
    qtbot.keyClicks(viewer.find_box, "proxy")
    assert viewer.view.verticalScrollBar().value() >= scrolled * 0.9  # it jumped back to the top of the file
    assert int(viewer.find_count.text().split(" of ")[0]) > 150


def test_text_selected_in_an_earlier_answer_stays_selected_while_the_next_one_streams(window, qtbot):
    win = window()
    chat = win.chat
    ask_and_wait(qtbot, win)
    select(chat.conversation, "follow redirects")
    chat.begin("And how do I enable it?")
    for piece in ("Pass `follow_redirects=True` ", "to enable it [1]."):
        chat.conversation.add_token(piece)
    qtbot.waitUntil(lambda: "to enable it [1]." in chat.conversation.toPlainText(), timeout=3000)
    assert chat.conversation.textCursor().selectedText() == "follow redirects"  # a redraw dropped it
    bar = chat.conversation.verticalScrollBar()
    assert bar.value() >= bar.maximum() - 20  # and the view still follows the text being written


def test_the_streamed_text_is_not_redrawn_under_a_selection_being_dragged(window, qtbot, monkeypatch):
    from repobot.desktop.panels import answers as panel
    from repobot.desktop.qt import Qt

    chat = window().chat
    chat.begin("How do I follow redirects?")
    held = {"button": Qt.MouseButton.LeftButton}
    monkeypatch.setattr(panel.QGuiApplication, "mouseButtons", lambda: held["button"])
    monkeypatch.setattr(chat.conversation.viewport(), "underMouse", lambda: True)
    chat.conversation.add_token("Pass it [1].")
    qtbot.wait(400)  # three redraw periods
    assert "Pass it [1]." not in chat.conversation.toPlainText() and chat.conversation.redraw.isActive()  # put off, not dropped
    held["button"] = Qt.MouseButton.NoButton  # the button is let go
    qtbot.waitUntil(lambda: "Pass it [1]." in chat.conversation.toPlainText(), timeout=2000)


def test_the_streamed_text_is_redrawn_alone_not_the_answers_above_it(window, qtbot, monkeypatch):
    chat = window().chat
    chat.begin("How do I follow redirects?")
    whole = []
    real = chat.conversation.setHtml
    monkeypatch.setattr(chat.conversation, "setHtml", lambda markup: whole.append(markup) or real(markup))
    for piece in ("Pass `follow_redirects=True` [1].", "\n```python\nclient.get(url)\n```\n", "Done [1]."):
        chat.conversation.add_token(piece)
        qtbot.wait(150)  # a redraw each
    assert chat.conversation.toPlainText().rstrip().endswith("client.get(url)\nDone [1].▍")
    assert whole == []  # every answer on screen laid out again, 8 times a second: decoding fell from 39 to 31 tokens/s


def test_a_selection_in_the_streamed_text_survives_its_redraws_and_a_draft_opening_with_code_shows_it_as_code(window, qtbot):
    chat = window().chat
    chat.begin("How do I follow redirects?")
    chat.conversation.add_token("```python\nclient.get(url, follow_redirects=True)\n")
    qtbot.waitUntil(lambda: "client.get(url" in chat.conversation.toPlainText(), timeout=2000)
    block = chat.conversation.document().findBlock(chat.conversation.draft_at)
    assert block.text().startswith("client.get(url") and block.blockFormat().nonBreakableLines()  # it wrapped, bare
    select(chat.conversation, "follow_redirects")
    for piece in ("```\n", "It is off by default [1]."):
        chat.conversation.add_token(piece)
        qtbot.wait(150)
    assert "It is off by default [1]." in chat.conversation.toPlainText()
    assert chat.conversation.textCursor().selectedText() == "follow_redirects"  # it was lost at the next redraw


def test_moving_into_an_earlier_answer_lists_the_passages_it_was_given(window, qtbot):
    from repobot.desktop.qt import Qt

    win = window()
    ask_and_wait(qtbot, win, "Does HTTPX follow redirects by default?")
    ask_and_wait(qtbot, win, "What is the default timeout?")
    first, last = ([row.hit for row in passage_rows(t.answer.retrieved)] for t in win.controller.turns)
    assert first != last
    chat = win.chat

    def listed():
        return [chat.retrieved_list.item(n).data(Qt.ItemDataRole.UserRole)[1] for n in range(chat.retrieved_list.count())]

    assert listed() == last and chat.retrieved_label.text() == "Retrieved passages"
    chat.conversation.setFocus()
    qtbot.waitUntil(chat.conversation.hasFocus, timeout=2000)
    qtbot.keyClick(chat.conversation, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)  # to the first answer
    assert listed() == first and "Does HTTPX follow redirects by default?" in chat.retrieved_label.text()
    chat.conversation.setFocus()
    qtbot.keyClick(chat.conversation, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)  # back to the last
    assert listed() == last and chat.retrieved_label.text() == "Retrieved passages"


def test_a_citation_clicked_while_the_answer_streams_leaves_no_stray_selection_in_the_checked_answer(window, qtbot):
    win = window(llm=SlowLLM(ANSWER))
    chat = win.chat
    assert win.ask("Does HTTPX follow redirects by default?")
    qtbot.waitUntil(lambda: "[1]" in chat.conversation.toPlainText().split("not checked yet")[-1], timeout=10000)
    select(chat.conversation, "[1]", last=True)  # what a click on the streamed [1] leaves: the link selected
    qtbot.waitUntil(lambda: idle(win.controller) and bool(win.controller.turns), timeout=30000)
    assert chat.conversation.textCursor().selectedText() in ("", "[1]")  # it held two letters of another word


def test_find_marks_the_current_match_in_orange_without_a_selection_over_it_and_never_leaves_the_view_sideways(
        qtbot, tmp_path):
    from repobot.desktop.panels.viewer import CURRENT, ViewerPanel

    long_line = "x = call(" + ", ".join(f"argument_{i}" for i in range(60)) + ", target)"
    (tmp_path / "code.md").write_text(f"# Code\n\ntarget first.\n\n```python\n{long_line}\n```\n\nThe target again.\n",
                                      encoding="utf-8")
    viewer = ViewerPanel()
    qtbot.addWidget(viewer)
    viewer.resize(400, 400)
    viewer.show()
    qtbot.keyClicks(viewer.find_box, "target")
    assert viewer.find_count.text() == "" and viewer.found == []  # no file open: "No matches" said nothing true
    assert viewer.open_file(tmp_path, "code.md")
    assert viewer.find_count.text() == "3 matches"
    viewer.find_next()
    viewer.find_next()  # the one at the end of the long code line: the view scrolls sideways to it
    assert viewer.find_count.text() == "2 of 3" and not viewer.view.textCursor().hasSelection()
    assert [m.format.background().color() == CURRENT for m in viewer.view.extraSelections()] == [False, True, False]
    viewer.find_next()
    assert viewer.find_count.text() == "3 of 3" and viewer.view.horizontalScrollBar().value() == 0  # back to the left
