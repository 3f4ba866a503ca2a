"""Layout shared by the panels."""

from __future__ import annotations

from ..qt import QGridLayout, QPushButton


def button_grid(*buttons: QPushButton, columns: int = 2) -> QGridLayout:
    """Buttons in rows of two: four in one row made the left column 390 px at least, and the window then did not fit
    a 1366-px screen."""
    grid = QGridLayout()
    for n, button in enumerate(buttons):
        grid.addWidget(button, n // columns, n % columns)
    return grid
