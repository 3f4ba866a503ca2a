"""The window's leftovers, round two (docs/known-problems.md, 2026-12-07 from 10:00), each mended."""

from repobot.desktop.tasks import Busy
from tests.gui.test_window import SlowEmbedder, settings_path, slow_window, waiting_window, window  # noqa: F401 (fixtures)


def named(folder) -> str:
    """A folder as the tree names it, and so the status bar (it said "docs" where the tree said "…/docs")."""
    return f"{folder.parent.name}/{folder.name}"


def test_the_status_bar_says_the_folder_is_searchable_while_it_is_embedded_then_that_it_is_done(qtbot, docs, settings_path):  # noqa: F811
    """It said "Indexing docs…" through the minutes of embedding, when the folder was already searchable by words
    (and for good when nothing was left to embed)."""
    win = slow_window(qtbot, docs, settings_path, 40)
    win.show()
    c = win.controller
    qtbot.waitUntil(lambda: c.models_ok and c.active in c.indexed_reports and c.busy is Busy.EMBEDDING, timeout=20000)
    pending = c.indexed_reports[c.active].pending
    said = win.status.text()
    assert not said.startswith("Indexing"), said
    assert said == f"{named(docs)}: searchable by words; embedding {pending:,} passages in the background…"
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING), timeout=20000)
    assert win.status.text() == f"{named(docs)}: every passage is embedded; hybrid search covers the whole folder."
    c.index(c.active)  # nothing left to embed: the news of the index itself, not "Indexing …" for good
    qtbot.waitUntil(lambda: idle_and_indexed(c), timeout=20000)
    assert win.status.text() == f"{named(docs)}: searchable; every passage is embedded."
    win.close()


def idle_and_indexed(c) -> bool:
    return c.busy is Busy.IDLE and not c.tasks.waiting(Busy.PREPARING) and c.active in c.indexed_reports


def test_the_status_bar_says_when_the_embedding_is_paused_and_not_when_a_reindex_replaces_it(qtbot, docs, settings_path):  # noqa: F811
    """Pausing says so; a re-index (a file changed) stops the old embedding and starts a new one, and the old one's
    end said "Embedding paused" over the new one's news."""
    win = slow_window(qtbot, docs, settings_path, 40)
    win.show()
    c = win.controller
    qtbot.waitUntil(lambda: c.models_ok and c.active in c.indexed_reports and c.busy is Busy.EMBEDDING, timeout=20000)
    statuses = []
    c.status.connect(statuses.append)
    c.index(c.active)
    qtbot.waitUntil(lambda: any("searchable by words; embedding" in s for s in statuses), timeout=20000)
    qtbot.wait(1500)  # the old job meets its cancel at its next group (0.3 s)
    assert not any(s.startswith("Embedding paused") for s in statuses), statuses
    assert "searchable by words; embedding" in win.status.text()
    win.chat.stop_button.click()  # "Pause embedding"
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING), timeout=20000)
    assert win.status.text().startswith("Embedding paused")
    win.close()



def test_the_status_bar_says_when_another_repobot_is_embedding_the_folder(qtbot, docs, settings_path):  # noqa: F811
    """The left pane said the folder waited for another RepoBot's embedding; the status bar, that it was embedding."""
    win, theirs = waiting_window(qtbot, docs, settings_path)
    c = win.controller
    qtbot.waitUntil(lambda: "another RepoBot" in win.status.text(), timeout=5000)
    assert win.status.text() == f"{named(docs)}: searchable by words; another RepoBot is embedding it: waiting to use its work…"
    theirs.close()  # it stopped before saving: the window embeds the folder itself, and says when it is done
    qtbot.waitUntil(lambda: c.indexed_reports[c.active].pending == 0, timeout=20000)
    assert win.status.text() == f"{named(docs)}: every passage is embedded; hybrid search covers the whole folder."
    win.close()

def test_the_open_file_is_one_tab_stop_and_its_links_still_open_by_a_click(window, docs, qtbot):  # noqa: F811
    """Tab inside the viewer stopped on each link of the file before it reached the left pane."""
    from repobot.desktop.qt import QApplication, QTextCursor, Qt

    (docs / "links.md").write_text("# Links\n\nSee [redirects](guide/redirects.md), [timeouts](timeouts.md) and "
                                   "[the top](#links).\n", encoding="utf-8")
    win = window(corpus=docs)
    viewer = win.viewer.view
    assert win.viewer.open_file(docs, "links.md")
    viewer.setFocus()
    qtbot.waitUntil(viewer.hasFocus, timeout=2000)
    qtbot.keyClick(viewer, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is win.collections.filter_box  # the next stop after the file
    assert not viewer.textCursor().hasSelection()
    found = viewer.document().find("timeouts")
    cursor = QTextCursor(viewer.document())
    cursor.setPosition(found.selectionStart() + 2)
    qtbot.mouseClick(viewer.viewport(), Qt.MouseButton.LeftButton, pos=viewer.cursorRect(cursor).center())
    assert win.viewer.title.text().startswith("<b>timeouts.md</b>")  # a click on a link still follows it


def visible_span(view) -> tuple[int, int]:
    rect = view.viewport().rect()
    return view.cursorForPosition(rect.topLeft()).position(), view.cursorForPosition(rect.bottomRight()).position()


def test_find_in_a_long_page_marks_the_matches_in_view_wherever_it_is_and_counts_them_all(qtbot, tmp_path):
    """A one-letter find in a 150,000-character page took about 0.16 s a keystroke: every match was found with
    QTextDocument.find and the first 2,000 marked, none past them (scrolled to the end, nothing was marked)."""
    from repobot.desktop.panels.viewer import CURRENT, ViewerPanel

    (tmp_path / "long.md").write_text("# Long\n\n" + "".join(f"## Part {n}\n\nA proxy, a PROXY and a proxy.\n\n"
                                                             for n in range(2000)), encoding="utf-8")
    viewer = ViewerPanel()
    qtbot.addWidget(viewer)
    viewer.resize(500, 600)
    viewer.show()
    assert viewer.open_file(tmp_path, "long.md")
    qtbot.keyClicks(viewer.find_box, "prox")
    assert viewer.find_count.text() == "1 of 6000"
    view = viewer.view

    def marked() -> set[int]:
        return {m.cursor.selectionStart() for m in view.extraSelections()}

    def in_view() -> set[int]:
        top, bottom = visible_span(view)
        return {start for start, _ in viewer.found if top <= start <= bottom}

    assert in_view() and in_view() <= marked() and len(marked()) < 1000  # the matches about the view, not 2,000
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())  # the page's end: its matches marked too (Qt lays a long page out as it is shown:
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() and visible_span(view)[0] < visible_span(view)[1])  # its
    bar.setValue(bar.maximum())  # first maximum is a guess)
    assert in_view() and in_view() <= marked()
    viewer.find_next(backward=True)  # Shift+Enter from the first match, where it is: round to the last
    assert viewer.find_count.text() == "6000 of 6000"
    current = [m.cursor.selectionStart() for m in view.extraSelections() if m.format.background().color() == CURRENT]
    assert current == [viewer.found[-1][0]] and view.textCursor().position() == viewer.found[-1][0]


def test_find_counts_what_qt_finds_in_tables_lists_code_and_letters_outside_the_bmp(qtbot, tmp_path):
    """The matches are looked for in the page's text, not with QTextDocument.find: they must be the same ones, at
    the same places (Qt counts a letter such as 🚀 as two)."""
    from repobot.desktop.panels.viewer import ViewerPanel

    (tmp_path / "mixed.md").write_text(
        "# Émoji 🚀 Proxy\n\n| a | proxy |\n| --- | --- |\n| 🚀🚀 | PROXY 🚀 proxy |\n\n- one proxy\n- two\u00a0proxy\n\n"
        "```python\nproxy = Proxy('🚀')  # proxy\n```\n\n> quoted proxy [link](x.md) ProXy\n", encoding="utf-8")
    viewer = ViewerPanel()
    qtbot.addWidget(viewer)
    viewer.show()
    assert viewer.open_file(tmp_path, "mixed.md")
    for query in ("proxy", "y", "🚀", "🚀 p", "o pr", "x"):
        document, expected = viewer.view.document(), []
        cursor = document.find(query, 0)
        while not cursor.isNull():
            expected.append((cursor.selectionStart(), cursor.selectionEnd()))
            cursor = document.find(query, cursor)
        viewer.find_box.setText(query)
        viewer._mark_all()
        assert viewer.found == expected, query


def test_after_an_answer_the_status_bar_says_the_folder_is_still_embedded(qtbot, docs, settings_path):  # noqa: F811
    """The status bar went blank after an answer while the folder was still embedded (the left pane kept showing it)."""
    win = slow_window(qtbot, docs, settings_path, 40)
    win.show()
    c = win.controller
    qtbot.waitUntil(lambda: c.models_ok and c.active in c.indexed_reports and c.busy is Busy.EMBEDDING, timeout=20000)
    with qtbot.waitSignal(c.answered, timeout=20000):
        assert c.ask("How do I set a proxy?")
    assert c.tasks.waiting(Busy.EMBEDDING)
    assert win.status.text() == f"{named(docs)}: searchable by words; embedding in the background…"
    SlowEmbedder.release.set()
    qtbot.waitUntil(lambda: not c.tasks.waiting(Busy.EMBEDDING), timeout=20000)
    win.close()
