"""Layout and small interactions shared by the panels."""

from __future__ import annotations

from typing import Callable

from ..qt import (
    QFontMetrics, QGridLayout, QKeySequence, QListWidget, QMessageBox, QPushButton, QShortcut, QStyle,
    QStyledItemDelegate, Qt, QWidget,
)

PATH_ROLE = Qt.ItemDataRole.UserRole + 1  # set on an item whose text is a file's path: shortened by PathDelegate


def button_grid(*buttons: QPushButton, columns: int = 2) -> QGridLayout:
    """Buttons in rows of two: four in one row made the left column 390 px at least, and the window then did not fit
    a 1366-px screen."""
    grid = QGridLayout()
    for n, button in enumerate(buttons):
        grid.addWidget(button, n // columns, n % columns)
    return grid


def on_enter(items: QListWidget, chosen: Callable) -> None:
    """Enter (or Return) on a list opens its current item, as a click does. Not ``itemActivated``: that also fires
    on a double click, and on a single one in some desktops' settings, beside the click, which opened it twice."""
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
        shortcut = QShortcut(QKeySequence(key), items, context=Qt.ShortcutContext.WidgetShortcut)
        shortcut.activated.connect(lambda: items.currentItem() is not None and chosen(items.currentItem()))


def ask_yes_no(parent, title: str, text: str) -> bool:
    """Ask before something is removed, No by default; ``text`` shown as it is written (a title with ``<pre>`` in it
    was read as HTML by QMessageBox's static helpers)."""
    buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    box = QMessageBox(QMessageBox.Icon.Question, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes


def tab_order(*widgets: QWidget) -> None:
    """Tab goes through ``widgets`` in this order (Qt's own order follows when each was made, not where it is)."""
    for before, after in zip(widgets, widgets[1:]):
        QWidget.setTabOrder(before, after)


def elide_path(path: str, metrics: QFontMetrics, width: int) -> str:
    """``path`` as it fits in ``width``: whole, else its folders cut in the middle and its file name whole
    ("en/docs/tu…/security/oauth2-jwt.md"), else cut in the middle as a whole."""
    if metrics.horizontalAdvance(path) <= width:
        return path
    folder, _, name = path.rpartition("/")
    room = width - metrics.horizontalAdvance("/" + name)
    if folder and room >= metrics.horizontalAdvance("…"):
        return metrics.elidedText(folder, Qt.TextElideMode.ElideMiddle, room) + "/" + name
    return metrics.elidedText(path, Qt.TextElideMode.ElideMiddle, width)


class PathDelegate(QStyledItemDelegate):
    """Draws an item marked with ``PATH_ROLE`` as a path that keeps its file name in view (Qt cut it at the right,
    and the file name was what went)."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 (Qt name)
        super().initStyleOption(option, index)
        view = option.widget or self.parent()  # the view it draws for
        if index.data(PATH_ROLE) and view is not None:
            style = view.style()
            text = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, view)
            margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
            option.text = elide_path(option.text, option.fontMetrics, text.width() - 2 * margin)
