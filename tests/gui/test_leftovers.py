"""The window's leftovers a new user found (docs/known-problems.md, "A new user's drive of these"), each mended."""

import threading
from pathlib import Path

from repobot.desktop.tasks import Busy
from repobot.engine.chunk import Chunk
from repobot.engine.retrieve import Hit
from tests.gui.test_window import SlowEmbedder, settings_path, slow_window, window  # noqa: F401 (fixtures)


def listed(chat) -> list[str]:
    return [chat.retrieved_list.item(n).text() for n in range(chat.retrieved_list.count())]


def test_the_passage_list_names_each_section_once_in_plain_words_without_scores(window):  # noqa: F811
    """A section came twice (two of its passages, or one passage twice), its name with backticks, and a score
    (0.03, 16.8) a user could not read."""
    chat = window().chat
    clients = Chunk("advanced/clients.md", "Clients > `Client` instances", 10, 20, "…")
    hits = [Hit(1, 4, clients, 0.0328), Hit(2, 9, Chunk("quickstart.md", "**Streaming** [responses](x.md)", 3, 8, "…"), 16.8),
            Hit(3, 5, clients._replace(start=21, end=30), 0.0315), Hit(4, 4, clients, 0.0301)]
    chat.show_retrieved(Path("/docs"), hits)
    assert listed(chat) == ["[1] [3] advanced/clients.md — Clients > Client instances",
                            "[2] quickstart.md — Streaming responses"]
    assert chat.retrieved_list.item(0).toolTip() == "advanced/clients.md, lines 10–20 and 21–30"
    opened = []
    chat.passage_clicked.connect(lambda root, hit: opened.append(hit.rank))
    chat.retrieved_list.itemClicked.emit(chat.retrieved_list.item(0))
    assert opened == [1]  # the section's first passage


def test_the_window_says_passages_and_what_indexing_did_in_words_and_never_exempt(window, monkeypatch):  # noqa: F811
    """"12 files, 56 chunks (+23 ~0 −0)" and "[exempt]" were the engine's words, not a user's."""
    from repobot.desktop.render import sentence_html
    from repobot.engine.support import LEAD, Support

    win = window()
    said = win.collections.label.text()
    assert said.startswith("2 files, ") and " passages; 2 files added, in " in said, said
    assert "chunk" not in said and "+2" not in said
    lead = sentence_html(0, "final", 0, Support("Pass it like this:", [], "exempt", {}, None, LEAD))
    assert "exempt" not in lead.lower() and "[not a claim]" in lead and "so not checked: introduces the code" in lead
    monkeypatch.setattr(win.controller.conversation, "reason", lambda link: f"exempt: {LEAD}")
    assert win.chat.conversation.hover_text("sent:0:final:0") == "not a claim, so not checked: introduces the code that follows."


def test_stop_pauses_the_background_embedding_as_cancel_does_and_says_so(qtbot, docs, settings_path):  # noqa: F811
    """"Stop indexing" showed only while files were read; the minutes of embedding after had the left pane's Cancel
    alone. Esc still leaves the embedding be (test_window: test_esc_while_a_folder_embeds…)."""
    win = slow_window(qtbot, docs, settings_path, 40)
    win.show()
    c, stop = win.controller, win.chat.stop_button
    qtbot.waitUntil(lambda: c.models_ok and c.busy is Busy.EMBEDDING, timeout=20000)
    qtbot.waitUntil(stop.isEnabled, timeout=5000)
    assert stop.text() == "Pause embedding" and "as Cancel in the left pane does" in stop.toolTip()
    stop.click()
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING), timeout=20000)
    assert win.collections.label.text().startswith("Embedding paused")  # as after Cancel
    assert not win.collections.cancel_button.isEnabled() and not stop.isEnabled() and stop.text() == "Stop"
    assert c.indexed_reports[c.active].pending > 0  # paused, not finished: what is embedded is kept
    win.close()


def test_embedding_is_what_the_window_is_busy_with_while_the_model_reads_ahead_beside_it(qapp):
    from repobot.desktop.tasks import TaskRunner

    runner, hold = TaskRunner(), threading.Event()
    runner.submit(Busy.PREPARING, lambda context: hold.wait(5))
    runner.submit(Busy.EMBEDDING, lambda context: hold.wait(5))
    assert runner.busy is Busy.EMBEDDING  # it said PREPARING, and Stop could not pause the embedding until then
    hold.set()
    runner.shutdown()


def test_tab_goes_from_the_question_through_the_answer_the_viewer_the_left_pane_then_the_settings(window, qtbot):  # noqa: F811
    """Tab went through the viewer and the left pane before the settings row, then the conversation, in the order
    the widgets were made."""
    from repobot.desktop.qt import QApplication, Qt

    win = window()
    chat, viewer, left, history = win.chat, win.viewer, win.collections, win.history
    names = {chat.question: "question", chat.ask_button: "ask", chat.conversation: "conversation",
             chat.retrieved_list: "passages", viewer.find_box: "find", viewer.view: "viewer", left.filter_box: "filter",
             left.tree: "tree", history.search_box: "search", history.list: "conversations",
             chat.model_combo: "model", chat.k_spin: "k", chat.mode_combo: "mode", chat.lang_combo: "language"}
    chat.question.setFocus()
    qtbot.waitUntil(chat.question.hasFocus, timeout=2000)
    visited = []
    for _ in range(40):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        now = names.get(now) or names.get(now.parentWidget())  # a spin box's line edit is the spin box
        if now:
            visited.append(now)
        if now == "question":
            break
    assert visited == ["ask", "conversation", "passages", "find", "viewer", "filter", "tree", "search",
                       "conversations", "model", "k", "mode", "language", "question"]


def test_a_long_file_path_in_the_left_tree_shows_its_file_name_and_the_whole_path_on_hover(window, docs):  # noqa: F811
    """FastAPI's en/docs/tutorial/security/… paths were cut off at the right: the file name was what went."""
    from repobot.desktop.qt import QFontMetrics, QStyleOptionViewItem

    long = "en/docs/tutorial/security/simple-oauth2-with-password-and-bearer/oauth2-jwt-password-hashing.md"
    (docs / long).parent.mkdir(parents=True)
    (docs / long).write_text("# Password hashing\n\nHash the passwords with `pwdlib`.\n", encoding="utf-8")
    win = window(corpus=docs)
    tree = win.collections.tree
    top = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).childCount() > 1)
    item = next(top.child(n) for n in range(top.childCount()) if top.child(n).text(0) == long)
    assert item.toolTip(0) == str(docs / long)
    option = QStyleOptionViewItem()
    option.initFrom(tree)
    option.rect = tree.visualItemRect(item)
    assert 0 < option.rect.width() < QFontMetrics(tree.font()).horizontalAdvance(long)  # it does not fit
    tree.itemDelegate().initStyleOption(option, tree.indexFromItem(item))  # what the tree draws
    assert option.text.endswith("/oauth2-jwt-password-hashing.md") and option.text.startswith("e"), option.text
    assert "…" in option.text and QFontMetrics(tree.font()).horizontalAdvance(option.text) <= option.rect.width()
    hint = top.child(0) if top.child(0) is not item else top.child(1)
    tree.itemDelegate().initStyleOption(option, tree.indexFromItem(hint))
    assert option.text == hint.text(0)  # another row (a heading with "HTTP/2" in it) is drawn as Qt draws it
