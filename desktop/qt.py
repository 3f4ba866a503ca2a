"""Every Qt name the desktop uses comes through this one module."""

from PySide6.QtCore import (  # noqa: F401
    QEvent,
    QFileSystemWatcher,
    QObject,
    QSize,
    QTimer,
    Qt,
    QUrl,
    Signal,
    qInstallMessageHandler,
)
from PySide6.QtGui import (  # noqa: F401
    QColor,
    QDesktopServices,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QKeySequence,
    QShortcut,
    QTextCursor,
)
from PySide6.QtWidgets import (  # noqa: F401
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
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
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTextBrowser,
    QTextEdit,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)


def offscreen() -> bool:
    """Qt's headless platform (tests, scripted screenshots): its one screen is 800 x 800 and no one sees it."""
    return QGuiApplication.platformName() == "offscreen"
