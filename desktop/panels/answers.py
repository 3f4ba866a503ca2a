"""The conversation's view: the finished answers, and the one being written as it streams in.

Redrawn with care for a reader: a finished answer is laid out once; while the model writes, only the streamed
text's own block is replaced, a few times a second; the reader's scroll place and selection survive both. Moving
into an answer (click, keys) says which one, so that the panel can list the passages it was given.
"""

from __future__ import annotations

from typing import NamedTuple

from repobot.engine.languages import language
from repobot.engine.quote import Choice

from ..qt import QColor, QGuiApplication, QTextBrowser, QTextCursor, QTimer, QToolTip, QUrl, Qt, Signal
from ..render import CODE_BACKGROUND, TURN, WRITING, answer_html, opens_with_code, pending_html, streamed_html

REDRAW_MS = 120  # the streamed text is redrawn at most this often (40 tokens/s: about 5 tokens a time)


class Pending(NamedTuple):
    """The answer being written: its question, the quotes shown meanwhile, the line above the streamed text, and
    that text so far."""

    question: str
    preview: Choice | None
    writing: str
    draft: str = ""


class AnswerView(QTextBrowser):
    link_clicked = Signal(str)  # cite:… and sent:… links of the conversation
    turn_read = Signal(int)  # the answer the reader moved into (-1: the one being written), whose passages to list

    def __init__(self):
        super().__init__()
        self.setOpenLinks(False)
        self.anchorClicked.connect(lambda url: self.link_clicked.emit(url.toString()))
        self.highlighted.connect(self._hovered)
        self.cursorPositionChanged.connect(self._cursor_moved)
        # one stop for Tab (it stopped on every link of every answer before reaching the question); the passages
        # are reached by keyboard in the list below it
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.setPlaceholderText("Ask a question about the documents. Citations and sources open beside the answer.")
        self.document().setUndoRedoEnabled(False)  # the redraws are edits: no undo history piling up
        self.hover_text = lambda link: ""  # set by the window: the reason shown for a hovered sentence
        self.history_html = ""  # the finished turns, rendered once each
        self.pending: Pending | None = None  # the answer being written
        self.redraw = QTimer(self, singleShot=True, interval=REDRAW_MS)  # the streamed text, drawn in batches
        self.redraw.timeout.connect(self._redraw_draft)
        self.draft_at = 0  # where the streamed text's block begins in the document
        self.reading: int | None = None  # the turn whose passages the list shows, once the reader moved into one

    def show_turns(self, turns, keep_place: bool = False) -> None:
        """Render the finished turns (answer, ids of sources changed since), and nothing pending: at their end, unless
        ``keep_place`` (an answer came in) and the reader had scrolled up."""
        self.history_html = "".join(answer_html(i, a, language(a.language).missing_label, changed)
                                    for i, (a, changed) in enumerate(turns))
        self.pending = None
        self.reading = None
        self.redraw.stop()
        self._set_html(self.history_html, keep_place)

    def begin(self, question: str) -> None:
        """A question asked: shown at once, with room under it for what comes."""
        self.pending = Pending(question, None, WRITING)
        self._render_pending()
        self._to_end()  # a new question is always shown

    def show_preview(self, choice: Choice) -> None:
        """The quotes, on screen at once, in the place the answer will take."""
        if self.pending is not None:
            self.pending = self.pending._replace(preview=choice)
            self._render_pending()

    def show_drafting(self, label: str) -> None:
        """Say, above the text about to stream in, which language the model writes in when it is not the answer's."""
        if self.pending is not None and label != self.pending.writing:  # a second draft replaces the first one's text
            self.pending = self.pending._replace(writing=label, draft="")
            self._render_pending()

    def add_token(self, text: str) -> None:
        """A piece of the model's text: shown rendered (code as code) at the next redraw, a few times a second."""
        if self.pending is not None:
            self.pending = self.pending._replace(draft=self.pending.draft + text)
            if not self.redraw.isActive():
                self.redraw.start()

    def _redraw_draft(self) -> None:
        """The timer's redraw of the streamed text; put off while a mouse button is down in the conversation (a
        selection being dragged there was dropped by the redraw)."""
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton and self.viewport().underMouse():
            self.redraw.start()
            return
        self._draw_draft()

    def _render_pending(self) -> None:
        """The whole conversation with the answer being written at its end: the answers above, the quotes, the line
        over the streamed text, and that text."""
        if self.pending is None:
            return
        question, preview, writing, _ = self.pending
        # a reader scrolled up stays; the streamed text goes into the last block, alone
        self._set_html(self.history_html + pending_html(question, preview, writing), keep_place=True)
        self.draft_at = self.document().lastBlock().position()
        self._draw_draft()

    def _draw_draft(self) -> None:
        """Replace the streamed text's block, and nothing above it: redrawing every answer on screen each time
        (setHtml) slowed the model's decoding from 39 to 31 tokens/s under 30 answers here."""
        if self.pending is None:
            return
        following = self._at_end()
        selection = self._selection()
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.draft_at)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        markup = streamed_html(self.pending.draft)
        cursor.insertHtml(markup)
        if opens_with_code(markup):
            # insertHtml merged the code's first line into the block it replaced, which is not a code block (the
            # line wrapped, without its background): make that block one
            cursor.setPosition(self.draft_at)
            code = cursor.blockFormat()
            code.setNonBreakableLines(True)
            code.setBackground(QColor(CODE_BACKGROUND))
            cursor.setBlockFormat(code)
        if selection and max(selection[:2]) >= self.draft_at:  # in the text just replaced: put back by its numbers
            self._select(selection)
        if following:
            self._to_end()

    def _set_html(self, markup: str, keep_place: bool) -> None:
        """Show ``markup``; at its end, unless ``keep_place`` and the reader had scrolled up, who then stays put. Text
        the reader selected stays selected (the answers above are drawn again the same, so it is where it was)."""
        bar = self.verticalScrollBar()
        reading, kept = keep_place and not self._at_end(), bar.value()
        selection = self._selection()
        self.setHtml(markup)
        if selection:
            self._select(selection)
        if reading:
            bar.setValue(kept)
        else:
            self._to_end()

    def _selection(self) -> tuple[int, int, str] | None:
        """The reader's selection as numbers (anchor, position) and its text: the cursor itself follows the text it
        was in, which a redraw replaces."""
        selected = self.textCursor()
        return (selected.anchor(), selected.position(), selected.selectedText()) if selected.hasSelection() else None

    def _select(self, selection: tuple[int, int, str]) -> None:
        """Select the same place again, if it still holds the same text (a citation clicked in the streamed text
        was selected, and the checked answer then put its place round other words)."""
        last = self.document().characterCount() - 1
        cursor = QTextCursor(self.document())
        cursor.setPosition(min(selection[0], last))
        cursor.setPosition(min(selection[1], last), QTextCursor.MoveMode.KeepAnchor)
        if cursor.selectedText() != selection[2]:  # gone: no selection, and the cursor stays where the redraw left it
            cursor = self.textCursor()
            cursor.clearSelection()
        self.setTextCursor(cursor)

    def _at_end(self) -> bool:
        """Whether the conversation is scrolled to its end (within a line), so new text should stay in view."""
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 20

    def _to_end(self) -> None:
        if self.textCursor().hasSelection():  # scrolled there without moving it, which would drop it
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum())
            return
        self.moveCursor(QTextCursor.MoveOperation.End)
        self.ensureCursorVisible()

    def _cursor_moved(self) -> None:
        """The reader moved (click, keys) into another answer: list the passages that one was given, so that an
        earlier answer's sources are at hand by keyboard too. Moves the panel makes itself (redraws, following the
        text) happen while the focus is elsewhere, or land in the answer already listed."""
        if not self.hasFocus():
            return
        turn = turn_at(self.document(), self.textCursor().position())
        if turn is not None and turn != self.reading:
            self.reading = turn
            self.turn_read.emit(turn)

    def _hovered(self, url: QUrl) -> None:
        text = self.hover_text(url.toString())
        if text:
            QToolTip.showText(self.cursor().pos(), text, self)


def turn_at(document, position: int) -> int | None:
    """The turn of the answer at ``position``: the last "Q:" anchor (``render.TURN``) at or before it."""
    block = document.findBlock(position)
    while block.isValid():
        turn, piece = None, block.begin()
        while not piece.atEnd():
            for name in piece.fragment().charFormat().anchorNames():
                if name.startswith(TURN):
                    turn = int(name[len(TURN):])
            piece += 1
        if turn is not None:
            return turn
        block = block.previous()
    return None
