"""The token just made for an agent, shown this once (Hearth keeps only its hash), with Copy
buttons for the token and for the client configuration that uses it."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from core.operations.agents import NewToken


class TokenDialog(QDialog):
    """Read-only token and configuration; closing it is the last time the token is seen."""

    def __init__(self, made: NewToken, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"New token for {made.info.agent}")
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.token = QLineEdit(made.token)
        self.token.setReadOnly(True)
        self.token.setFont(fixed)
        self.configuration = QPlainTextEdit(made.configuration)
        self.configuration.setReadOnly(True)
        self.configuration.setFont(fixed)
        self.configuration.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        lines = made.configuration.count("\n") + 2  # all of it, without scrolling
        self.configuration.setMinimumSize(
            self.configuration.fontMetrics().horizontalAdvance(
                max(made.configuration.splitlines(), key=len)) + 40,
            self.configuration.fontMetrics().lineSpacing() * lines + 12)
        self.copy_token = QPushButton("&Copy")
        self.copy_token.setToolTip("Put the token on the clipboard")
        self.copy_configuration = QPushButton("Copy &configuration")
        self.copy_configuration.setToolTip("Put the client configuration on the clipboard")
        self.copy_token.clicked.connect(lambda _c=False: self._copy(made.token, self.copy_token))
        self.copy_configuration.clicked.connect(
            lambda _c=False: self._copy(made.configuration, self.copy_configuration))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        explain = QLabel(
            f"Whoever presents this token to <code>hearth mcp --http</code> is "
            f"<b>{made.info.agent}</b>, whatever its client calls itself. Copy it now: Hearth "
            "keeps only a hash of it and cannot show it again.")
        explain.setWordWrap(True)
        layout = QGridLayout(self)
        layout.addWidget(explain, 0, 0, 1, 2)
        layout.addWidget(self.token, 1, 0)
        layout.addWidget(self.copy_token, 1, 1)
        layout.addWidget(QLabel("In the client's configuration (the server on its default "
                                "port, 8765):"), 2, 0, 1, 2)
        layout.addWidget(self.configuration, 3, 0, 1, 2)
        layout.addWidget(self.copy_configuration, 4, 0, 1, 2)
        layout.addWidget(buttons, 5, 0, 1, 2)

    @staticmethod
    def _copy(text: str, button: QPushButton) -> None:
        QGuiApplication.clipboard().setText(text)
        button.setText("Copied")
