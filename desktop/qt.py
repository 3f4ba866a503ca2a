"""Every Qt name the desktop uses comes through this one module."""

from PySide6.QtCore import (  # noqa: F401
    QEvent,
    QFileSystemWatcher,
    QObject,
    QTimer,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import (  # noqa: F401
    QDesktopServices,
    QFont,
    QGuiApplication,
    QKeySequence,
    QShortcut,
    QTextCursor,
)
from PySide6.QtWidgets import (  # noqa: F401
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTextBrowser,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
