"""Draw RepoBot's icon (a document with a citation mark) into a PNG, so no binary is committed."""

import sys

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter, QPen


def draw(path: str, size: int = 256) -> None:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(QColor("#f6f8fa"))
    p.setPen(QPen(QColor("#0969da"), size / 32))
    p.drawRoundedRect(QRectF(size * 0.18, size * 0.08, size * 0.64, size * 0.84), size / 16, size / 16)
    p.setPen(QPen(QColor("#57606a"), size / 40))
    for i in range(4):
        y = size * (0.28 + 0.12 * i)
        p.drawLine(int(size * 0.28), int(y), int(size * (0.72 if i % 2 else 0.6)), int(y))
    font = QFont("DejaVu Sans", int(size / 7))
    font.setBold(True)
    p.setFont(font)
    p.setPen(QColor("#1a7f37"))
    p.drawText(QRectF(size * 0.4, size * 0.66, size * 0.5, size * 0.26), Qt.AlignmentFlag.AlignCenter, "[1]")
    p.end()
    image.save(path)


if __name__ == "__main__":
    app = QGuiApplication(sys.argv[:1])
    draw(sys.argv[1])
