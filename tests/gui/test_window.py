"""The desktop window, headless (QT_QPA_PLATFORM=offscreen), with deterministic fakes for the models."""

import time

import pytest

from repobot.desktop.qt import QUrl
from repobot.desktop.window import MainWindow
from repobot.engine.settings import SettingsStore
from tests.conftest import FakeLLM

ANSWER = "HTTPX does not follow redirects by default [1]. Pass `follow_redirects=True` to enable it [1]."


class SlowLLM(FakeLLM):
    """Sleeps between tokens so that Stop can arrive mid-answer."""

    def stream_chat(self, messages, *, max_tokens):
        for piece in super().stream_chat(messages, max_tokens=max_tokens):
            time.sleep(0.02)
            yield piece


def ask_and_wait(qtbot, win, question="Does HTTPX follow redirects by default?"):
    """Ask through the window and wait until the window itself has shown the answer."""
    before = len(win.turns)
    assert win.ask(question)
    qtbot.waitUntil(lambda: len(win.turns) > before and not win.busy, timeout=30000)
    return win.turns[-1]


@pytest.fixture
def window(qtbot, docs, fake_embedder, tmp_path):
    def make(llm=None, corpus=docs):
        win = MainWindow(corpus=str(corpus), store=SettingsStore(tmp_path / "settings.json"),
                         embedder=fake_embedder, llm=llm or FakeLLM(ANSWER))
        qtbot.addWidget(win)
        win.show()
        qtbot.waitUntil(lambda: win.models_ok and not win.busy and win.active in win.indexed, timeout=20000)
        return win

    made = []
    yield lambda **kw: made.append(make(**kw)) or made[-1]
    for win in made:
        win.close()


def test_asking_streams_tokens_then_shows_the_checked_answer(window, qtbot):
    win = window()
    tokens = []
    win.worker.token.connect(tokens.append)
    ask_and_wait(qtbot, win)
    assert len(tokens) > 5 and "".join(tokens) == ANSWER
    text = win.chat.toPlainText()
    assert "Verified" in text and "follow redirects by default" in text
    assert "Sources:" in text and "guide/redirects.md" in text
    assert win.retrieved_list.count() >= 2


def test_clicking_a_citation_opens_the_file_scrolled_to_the_cited_lines(window, qtbot, docs):
    filler = "\n\n".join(f"Filler paragraph number {i} about nothing in particular." for i in range(80))
    (docs / "guide" / "redirects.md").write_text(
        f"# Redirects\n\n{filler}\n\n## Default\n\nHTTPX does not follow redirects by default.\n", encoding="utf-8"
    )
    win = window()
    turn = ask_and_wait(qtbot, win)
    first = turn["retrieved_hits"][0]
    assert first["source"] == "guide/redirects.md"
    win._chat_link(QUrl("cite:0:1"))
    assert win.viewer_title.text().startswith("<b>guide/redirects.md</b>")
    assert f"lines {first['lines'][0]}–{first['lines'][1]}" in win.viewer_title.text()
    assert "background-color" in win.viewer.toHtml()
    qtbot.waitUntil(lambda: win.viewer.verticalScrollBar().value() > 0, timeout=3000)
    assert win.open_source(1)


def test_stop_cancels_generation(window, qtbot):
    win = window(llm=SlowLLM("word " * 300, piece=5))
    tokens = []
    win.worker.token.connect(tokens.append)
    assert win.ask("Does HTTPX follow redirects by default?")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=10000)
    win.cancel()
    qtbot.waitUntil(lambda: bool(win.turns) and not win.busy, timeout=30000)
    assert win.turns[-1]["stop_reason"] == "cancelled"
    assert len(tokens) < 100
    assert win.ask_button.isEnabled() and not win.stop_button.isEnabled()


def test_adding_an_empty_folder_shows_the_error_and_keeps_working(window, qtbot, tmp_path):
    win = window()
    empty = tmp_path / "empty"
    empty.mkdir()
    win.add_collection(str(empty))
    qtbot.waitUntil(lambda: not win.busy and win.banner.isVisible(), timeout=20000)
    assert "No readable markdown" in win.banner.text()
    assert not win.busy


def test_remote_links_need_confirmation_and_paths_stay_inside_the_folder(window, docs):
    win = window()
    asked = []
    win.confirm_external = lambda url: asked.append(url.toString()) or False
    win.open_file(docs, "timeouts.md")
    win._viewer_link(QUrl("https://example.com/x"))
    assert asked == ["https://example.com/x"]
    assert not win.open_file(docs, "../../../etc/passwd")
    assert "outside the indexed folder" in win.banner.text()


def test_settings_persist_between_runs(window, tmp_path):
    win = window()
    win.k_spin.setValue(3)
    win.mode_combo.setCurrentText("bm25")
    saved = SettingsStore(tmp_path / "settings.json").load()
    assert (saved.k, saved.mode) == (3, "bm25")
    assert str(tmp_path) in saved.active or saved.collections


def test_watched_folder_picks_up_created_changed_and_deleted_files(window, qtbot, docs):
    win = window()
    root = win.active
    (docs / "new.md").write_text("# New page\n\nBrand new content about proxies.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: win.indexed[root]["added"] == 1 and not win.busy, timeout=15000)
    assert "new.md" in win.indexed[root]["sources"]
    (docs / "timeouts.md").write_text("# Timeouts\n\nChanged.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: win.indexed[root]["updated"] == 1 and not win.busy, timeout=15000)
    (docs / "new.md").unlink()
    qtbot.waitUntil(lambda: win.indexed[root]["removed"] == 1 and not win.busy, timeout=15000)
    assert "new.md" not in win.indexed[root]["sources"]
    assert "−1" in win.index_label.text()


def test_a_question_asked_while_indexing_waits_for_the_complete_index(window, qtbot, docs):
    win = window()
    win.index(win.active)
    assert win.busy == "index"
    assert win.ask("Does HTTPX follow redirects by default?")
    assert "asked on the updated index" in win.status.text()
    qtbot.waitUntil(lambda: bool(win.turns) and not win.busy, timeout=20000)
    assert win.turns[-1]["question"] == "Does HTTPX follow redirects by default?"
