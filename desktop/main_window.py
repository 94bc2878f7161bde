"""The main window: a sidebar of views, the view in front, menus, and a status bar that says
which model answers, whether Ollama is up, and what learning and the schedule are doing."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QMoveEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.errors import HearthError
from core.operations.changes import Changes, Domain
from core.version import app_version
from desktop.agent_requests import AgentRequests
from desktop.context import AppContext
from desktop.icons import icon
from desktop.notices import Notices
from desktop.notification_area import NotificationArea
from desktop.page import Page
from desktop.placement import OPENING_SIZE, fitted, frame_margins
from desktop.registry import page_classes, view_shortcut
from desktop.runs import RunController
from desktop.search_index import SearchIndexStatus, SearchIndexUpkeep
from desktop.status import StatusBar

STATUS_MESSAGE_MS = 10_000


class Sidebar(QListWidget):
    """The list of views. Arrow keys and clicks move between views, but typed letters do
    not: a list jumps to the item starting with a typed letter, so "My sister…" typed
    while the list had the focus opened Memories, then Facts."""

    def keyboardSearch(self, search: str) -> None:  # noqa: N802 (Qt's name)
        """Typing is not a way to choose a view (Ctrl+1 … Ctrl+0, Alt+1 … are)."""


class MainWindow(QMainWindow):
    """Sidebar + stacked pages; owns the menus and the shortcuts that work everywhere."""

    quit_requested = Signal()
    tray_available = False
    """Set by the app when a system tray exists: closing the window then keeps Hearth running."""

    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setWindowTitle("Hearth")
        self.setWindowIcon(icon("hearth"))
        self.resize(OPENING_SIZE.boundedTo(self.available_area().size()))
        self._opening = True  # fitted to the screen when first shown...
        self._framing = False  # ...and again once the window manager has framed it
        self.runs = RunController(ctx, self)
        self.notification_area = NotificationArea()
        self.notices = Notices(ctx, self.notification_area, self)
        self.agent_requests = AgentRequests(ctx, self.notification_area, self)
        self.pages: dict[str, Page] = {}
        self._sidebar = Sidebar()
        self._sidebar.setObjectName("sidebar")
        self._sidebar.setIconSize(QSize(20, 20))
        self._sidebar.setFixedWidth(170)
        self._sidebar.setFrameShape(QListWidget.Shape.NoFrame)
        self._stack = QStackedWidget()
        for cls in page_classes():
            self._add_page(cls(ctx))
        right = QWidget()  # the view in front, and under it the notifications
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self._stack, 1)
        column.addWidget(self.notification_area)
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._sidebar)
        layout.addWidget(right, 1)
        self.setCentralWidget(central)
        self._sidebar.currentRowChanged.connect(self._show_row)
        self.status = StatusBar(ctx, self)
        self.setStatusBar(self.status)
        self.status.choose_model.connect(self.open_settings)
        index_view = SearchIndexStatus(self.status)
        self.status.insertPermanentWidget(0, index_view)
        self.search_index = SearchIndexUpkeep(ctx, index_view, self)
        ctx.hub.status_message.connect(
            lambda text: self.status.showMessage(text, STATUS_MESSAGE_MS))
        ctx.confirm.asked.connect(self._confirm)
        self._build_menus()
        if self.pages:
            self._sidebar.setCurrentRow(0)

    # --- on the screen -----------------------------------------------------------------------

    def available_area(self) -> QRect:
        """What the screen leaves free for windows (less the desktop's panels)."""
        return self.screen().availableGeometry()

    def fit_to_screen(self) -> None:
        """Open at ``OPENING_SIZE`` or smaller, the frame inside the free area, so the
        status bar and the message box are on screen (``desktop.placement``)."""
        frame = self.frameGeometry()
        margins = frame_margins(frame, self.geometry())
        placed = fitted(frame, margins, self.available_area(), self.minimumSizeHint())
        self.resize(placed.size().shrunkBy(margins))
        self.move(placed.topLeft())

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._opening:
            self._opening, self._framing = False, True
            self.fit_to_screen()

    def moveEvent(self, event: QMoveEvent) -> None:  # noqa: N802 (Qt's name)
        """The window manager moves the window into its new frame: the frame's size is
        known from then on, and the window is fitted with it."""
        super().moveEvent(event)
        if self._framing and self.frameGeometry() != self.geometry():
            self._framing = False
            self.fit_to_screen()

    # --- pages -------------------------------------------------------------------------------

    def _add_page(self, page: Page) -> None:
        key = view_shortcut(len(self.pages))
        self.pages[page.key] = page
        self._stack.addWidget(page)
        item = QListWidgetItem(icon(page.icon_name), page.title)
        item.setData(Qt.ItemDataRole.UserRole, page.key)
        item.setToolTip(page.about if key is None else f"{page.about} ({key})")
        self._sidebar.addItem(item)

    def _show_row(self, row: int) -> None:
        if row < 0:
            return
        self._stack.setCurrentIndex(row)
        page = self._stack.currentWidget()
        if isinstance(page, Page):
            page.activate()

    def show_page(self, key: str) -> Page:
        """Bring a view to the front (``show_page("facts")``) and return it."""
        page = self.pages[key]
        self._sidebar.setCurrentRow(self._stack.indexOf(page))
        return page

    def current_page(self) -> Page | None:
        page = self._stack.currentWidget()
        return page if isinstance(page, Page) else None

    # --- menus -------------------------------------------------------------------------------

    def _action(self, text: str, slot: Callable[..., object],
                shortcut: str | QKeySequence.StandardKey | None = None,
                icon_name: str | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if icon_name:
            action.setIcon(icon(icon_name))
        action.triggered.connect(slot)
        self.addAction(action)  # shortcuts work whichever view has focus
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        if "chat" in self.pages:
            file_menu.addAction(self._action("&New chat", self._new_chat, "Ctrl+N", "new-chat"))
            file_menu.addAction(self._action("New &incognito chat", self._new_incognito_chat,
                                             "Ctrl+Shift+N", "incognito"))
        file_menu.addAction(self._action("&Import…", self.open_import))
        file_menu.addAction(self._action("Import &history…", self.open_import_history))
        file_menu.addAction(self._action("Back up &now", self.runs.backup_now))
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Settings…", self.open_settings, "Ctrl+,",
                                         "settings"))
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.quit_requested.emit,
                                         QKeySequence.StandardKey.Quit))
        memory = bar.addMenu("&Memory")
        self.reflect_action = self._action("&Reflect now", self.runs.reflect_now,
                                           "Ctrl+Shift+R", "reflect")
        self.dream_action = self._action("Run &dream cycle now", self.runs.dream_now,
                                         "Ctrl+Shift+D", "dream")
        self.pause_action = self._action("&Pause learning", self._toggle_pause, "Ctrl+Shift+P")
        self.pause_action.setCheckable(True)
        self.pause_action.setChecked(self.ctx.settings.learning_paused)
        self.ctx.hub.changed.connect(self._changed)
        for action in (self.reflect_action, self.dream_action, self.pause_action):
            memory.addAction(action)
        view = bar.addMenu("&View")
        for position, key in enumerate(self.pages):
            page = self.pages[key]
            view.addAction(self._action(page.title, lambda _=False, k=key: self.show_page(k),
                                        view_shortcut(position), page.icon_name))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("&Keyboard shortcuts…", self.open_shortcuts, "F1"))
        help_menu.addAction(self._action("&Welcome…", self.open_welcome))
        help_menu.addAction(self._action("&About Hearth", self._about))

    def _new_chat(self) -> None:
        """Ctrl+N: a new item of the view in front (Today's quick add, a new note…), else a
        new chat."""
        current = self.current_page()
        if current is not None and current.new_item():
            return
        page = self.show_page("chat")
        page.new_conversation()  # type: ignore[attr-defined]  # the chat page's own

    def _new_incognito_chat(self) -> None:
        page = self.show_page("chat")
        page.new_incognito_chat()  # type: ignore[attr-defined]  # the chat page's own

    def _changed(self, changes: Changes) -> None:
        if changes.touches(Domain.SETTINGS):  # paused from the tray or Settings
            self.pause_action.setChecked(self.ctx.settings.learning_paused)

    def _toggle_pause(self, paused: bool) -> None:
        """Store the choice; when it cannot be stored (settings.json broken by hand, a
        read-only folder) the menu goes back to what is in effect and says why."""
        try:
            self.ctx.save_settings(learning_paused=paused)
        except (HearthError, OSError) as exc:
            self.pause_action.setChecked(self.ctx.settings.learning_paused)
            doing = "paused" if paused else "resumed"
            self.ctx.hub.status_message.emit(f"Learning was not {doing}: {exc}")
            return
        self.ctx.hub.status_message.emit("Learning paused: nothing new is stored."
                                         if paused else "Learning resumed.")

    def open_settings(self) -> None:
        from desktop.dialogs.settings import SettingsDialog

        SettingsDialog(self.ctx, self).exec()

    def open_shortcuts(self) -> None:
        from desktop.dialogs.shortcuts import ShortcutsDialog

        ShortcutsDialog(self.shortcuts(), self).exec()

    def shortcuts(self) -> list[tuple[str, str]]:
        """(what, key) of every menu command that has a key, views first, in menu order:
        read from the actions themselves, so the list cannot disagree with the keys."""
        listed = []
        for menu_action in self.menuBar().actions():
            menu = menu_action.menu()
            if not isinstance(menu, QMenu):
                continue
            prefix = "Show " if menu_action.text() == "&View" else ""
            for action in menu.actions():
                key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                if key:
                    listed.append((prefix + action.text().replace("&", ""), key))
        views = [row for row in listed if row[0].startswith("Show ")]
        return views + [row for row in listed if not row[0].startswith("Show ")]

    def open_import(self) -> None:
        """File → Import…: a ChatGPT or Claude export, or a notes folder (window-modal, and
        deleted once closed and its import has finished)."""
        from desktop.dialogs.import_dialog import ImportDialog

        ImportDialog(self.ctx, self).open()

    def open_import_history(self) -> None:
        """File → Import history…: the import runs, each removable as one."""
        from desktop.dialogs.import_history import ImportHistoryDialog

        ImportHistoryDialog(self.ctx, self).open()

    def open_welcome(self) -> None:
        from desktop.dialogs.welcome import WelcomeDialog

        WelcomeDialog(self.ctx, self).exec()

    def _about(self) -> None:
        QMessageBox.about(self, "About Hearth",
                          f"<b>Hearth {app_version()}</b><p>A private assistant that remembers "
                          "you. Everything "
                          f"it knows lives in <code>{self.ctx.hearth.paths.home}</code> on this "
                          "machine; no network call goes anywhere but your own Ollama.</p>")

    def _confirm(self, question_id: int, question: str) -> None:
        """A tool's question (``CrossThreadConfirm``); the dialog closes by itself when the
        question is withdrawn (unanswered too long: it was taken as no)."""
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        box = QMessageBox(QMessageBox.Icon.Question, "Hearth", question, buttons, self)

        def withdrawn(withdrawn_id: int, _why: str) -> None:
            if withdrawn_id == question_id:
                box.reject()

        self.ctx.confirm.withdrawn.connect(withdrawn)
        try:
            box.exec()
        finally:
            self.ctx.confirm.withdrawn.disconnect(withdrawn)
        yes = box.clickedButton() is box.button(QMessageBox.StandardButton.Yes)
        box.deleteLater()
        self.ctx.confirm.answer(question_id, yes)

    # --- closing -----------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        """Closing hides to the tray when there is one and the setting says so; otherwise
        it quits (learning finishes first)."""
        if self.ctx.settings.keep_running_in_tray and self.tray_available:
            event.ignore()
            self.hide()
            self.ctx.hub.notify.emit("Hearth is still running",
                                     "The schedule goes on in the tray. Quit from its menu.")
            return
        event.accept()
        QTimer.singleShot(0, self.quit_requested.emit)

