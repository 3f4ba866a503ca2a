"""The window's leftovers a new user found (docs/known-problems.md, "A new user's drive of these"), each mended."""

from pathlib import Path

from repobot.engine.chunk import Chunk
from repobot.engine.retrieve import Hit
from tests.gui.test_window import settings_path, window  # noqa: F401 (fixtures)


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
