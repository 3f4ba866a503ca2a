"""Layout and small interactions shared by the panels."""

from __future__ import annotations

from typing import Callable

from ..qt import QGridLayout, QKeySequence, QListWidget, QMessageBox, QPushButton, QShortcut, Qt, QWidget


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
