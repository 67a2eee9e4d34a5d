"""Drive the app as a user does: clicks, keys, context menus and answers to modal dialogs.

Modal dialogs (message boxes, file dialogs, input dialogs) run their own event loop, so the
answer is scheduled before the click that opens one: :func:`answer_next_dialog` waits for the
dialog, types into its text field and clicks the named button, as a user would.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFileDialog,
    QLineEdit,
    QMenu,
    QMenuBar,
    QWidget,
)

POLL_MS = 20
# A generous bound on waiting for a dialog to appear and take the focus (a loaded machine
# can take seconds); then the helper gives up, says why in ``problem``, and ends the dialog.
GIVE_UP_S = 120.0
_test = [0]  # which test the pending answers belong to (see :func:`forget_pending_answers`)


def forget_pending_answers() -> None:
    """At the end of a test: answers still waiting for a dialog stop polling (they must not
    answer a dialog of the next test)."""
    _test[0] += 1


@dataclass
class DialogAnswer:
    button: str
    text: str | None
    title: str = ""
    message: str = ""
    buttons: list[str] = field(default_factory=list)
    done: bool = False
    problem: str = ""  # why the helper did not answer (for the test's failure message)
    typed: str = ""  # the text field's content when the button was clicked


def _label(button: QAbstractButton) -> str:
    return button.text().replace("&", "")


def _ready(dialog: QWidget) -> bool:
    """The dialog is the active window and its focus is inside it, as a user sees it before
    typing: a file dialog whose window is not active yet selects every folder of a typed path
    in its list (its name completion clears the old selection only while its field has the
    focus), and Open then enters the first folder instead of opening the file."""
    focus = QApplication.focusWidget()
    return dialog.isActiveWindow() and focus is not None and dialog.isAncestorOf(focus)


def answer_next_dialog(qtbot, button: str, text: str | None = None, before=None):
    """Answer the next modal dialog: type ``text`` (when given) into its line edit, run
    ``before(dialog)`` (more gestures, checks), then click ``button`` (its label, e.g. "Yes",
    "Delete Permanently", "Save"). Returns a record the test checks (``done``, ``message``).

    Nothing here waits a fixed time: it polls until the dialog is shown, active and holds the
    focus (however long a loaded machine takes, up to :data:`GIVE_UP_S`), then acts."""
    answer = DialogAnswer(button, text)
    started, test = time.monotonic(), _test[0]

    def give_up(problem: str, dialog: QWidget | None) -> None:
        answer.problem = problem
        if dialog is not None:
            dialog.close()  # end it: the test sees done is False and the problem

    def act() -> None:
        if test != _test[0]:
            return  # that test has ended
        dialog = QApplication.activeModalWidget()
        if dialog is None or not _ready(dialog):
            if time.monotonic() - started < GIVE_UP_S:
                QTimer.singleShot(POLL_MS, act)
            elif dialog is None:
                give_up("no modal dialog appeared", None)
            else:
                give_up(f"{dialog.windowTitle()!r} never became the active window", dialog)
            return
        answer.title = dialog.windowTitle()
        answer.message = getattr(dialog, "text", lambda: "")()
        if text is not None:
            edit = _text_field(dialog)
            # A file dialog's name completion pops up a list that would take the keys and the
            # click (offscreen, nothing closes it): type without it.
            edit.setCompleter(None)
            qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)  # into the field, as a user does
            edit.selectAll()
            qtbot.keyClicks(edit, text)
            answer.typed = edit.text()
        if before is not None:
            before(dialog)
        buttons = [b for b in dialog.findChildren(QAbstractButton) if b.isVisible()]
        answer.buttons = [_label(b) for b in buttons]
        chosen = next((b for b in buttons if _label(b) == button), None)
        if chosen is None:
            give_up(f"no button {button!r} in {answer.title!r}: {answer.buttons}", dialog)
            return
        answer.done = True
        qtbot.mouseClick(chosen, Qt.MouseButton.LeftButton)
        if isinstance(dialog, QFileDialog) and dialog.isVisible():  # refused what was typed
            answer.done = False  # (the test would wait on the open dialog for ever)
            where = dialog.directory().absolutePath()
            give_up(f"{answer.title!r} still open after {button!r}, showing {where}", dialog)

    QTimer.singleShot(0, act)
    return answer


def _text_field(dialog: QWidget) -> QLineEdit:
    if isinstance(dialog, QFileDialog):
        return dialog.findChild(QLineEdit, "fileNameEdit")
    return dialog.findChild(QLineEdit)


def click(qtbot, widget: QWidget) -> None:
    """A left click on an enabled, visible widget (a disabled one fails the test)."""
    assert widget.isVisible(), f"{widget.objectName() or widget} is not visible"
    assert widget.isEnabled(), f"{getattr(widget, 'text', lambda: widget)()} is disabled"
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def right_click(qtbot, widget: QWidget, pos: QPoint) -> None:
    """Press the right button at ``pos`` (selects under the pointer), then the context menu
    event the window system sends with it."""
    qtbot.mouseClick(widget, Qt.MouseButton.RightButton, pos=pos)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, widget.mapToGlobal(pos))
    QApplication.sendEvent(widget, event)


def drop(widget: QWidget, pos: QPoint, data: QMimeData) -> None:
    """A drag carrying ``data`` arrives over ``widget`` at ``pos`` and is dropped there, as the
    window system delivers it: enter, move, drop."""
    copy, left = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
    none = Qt.KeyboardModifier.NoModifier
    for event in (QDragEnterEvent(pos, copy, data, left, none),
                  QDragMoveEvent(pos, copy, data, left, none),
                  QDropEvent(QPointF(pos), copy, data, left, none)):  # fmt: skip
        QApplication.sendEvent(widget, event)


def menu_action(menu: QMenu, text: str):
    """The action labelled ``text`` in a shown menu, asserted enabled."""
    actions = {a.text().replace("&", ""): a for a in menu.actions()}
    assert text in actions, f"{text!r} not in {list(actions)}"
    assert actions[text].isEnabled(), f"{text!r} is disabled"
    return actions[text]


def choose(menu: QMenu, text: str) -> None:
    """Pick an entry of a shown menu as a user does: the action is triggered, the menu closes."""
    action = menu_action(menu, text)
    menu.setActiveAction(action)
    action.trigger()
    menu.close()


def _action(widget: QMenuBar | QMenu, text: str):
    actions = {a.text(): a for a in widget.actions()}
    assert text in actions, f"{text!r} not in {list(actions)}"
    return actions[text]


def click_menu(qtbot, window, *path: str) -> None:
    """Click the menu bar's ``path[0]``, then each entry of ``path[1:]`` in the menus shown."""
    bar = window.menuBar()
    action = _action(bar, path[0])
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(action).center())
    menu = action.menu()
    qtbot.waitUntil(menu.isVisible)
    for text in path[1:]:
        action = _action(menu, text)
        pos = menu.actionGeometry(action).center()
        qtbot.mouseMove(menu, pos)
        qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=pos)
        if action.menu() is not None:
            menu = action.menu()
            qtbot.waitUntil(menu.isVisible)


def replaced_window(qtbot, window):
    """The main window View > Language rebuilt in place of ``window`` (shown, answering its
    questions as a discarded session would)."""
    new = getattr(window, "replaced_by", None)
    assert new is not None, "the window was not rebuilt in the new language"
    new.ask_save_changes = lambda: "discard"
    new.ask_stop_children = lambda text: True
    qtbot.addWidget(new)
    qtbot.waitExposed(new)
    return new


def type_property(qtbot, pane, key: str, text: str, enter: bool = False) -> QWidget:
    """Click the property pane's field ``key``, select its text and type ``text`` (then Return)."""
    widget = pane.rows[key].widget
    field = getattr(widget, "line", widget)
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    field.selectAll()
    qtbot.keyClicks(field, text)
    if enter:
        qtbot.keyClick(field, Qt.Key.Key_Return)
    return field


def finished_job(root: Path, name: str, valid: float, project: Path) -> Path:
    """A finished two-epoch job folder ``root/name`` of ``project`` whose last validation error
    is ``valid`` (what the TRAINING tab lists and plots), written without training."""
    job = root / name
    job.mkdir(parents=True)
    (job / "network.ncproj").write_text(project.read_text(encoding="utf-8"), encoding="utf-8")
    (job / "status.json").write_text(
        json.dumps({"status": "finished", "epoch": 2, "max_epoch": 2, "best_epoch": 2})
    )
    (job / "learning_curve.csv").write_text(
        f"epoch,cost,train_error,valid_error\n1,1.0,0.9,0.8\n2,0.5,0.4,{valid}\n"
    )
    return job
