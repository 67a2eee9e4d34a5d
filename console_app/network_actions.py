"""The network tabs' actions of the main window (Edit > Add/Rename/Duplicate/Delete Network and
the tabs' context menu), a mixin of :class:`console_app.main_window.MainWindow`: it uses the
window's document, edit tab, ``_guard`` and ``ask_*`` helpers. Its texts keep the MainWindow
translation context."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QMenu

from console_app.editor import networks
from console_app.language import translate

NETWORK_ACTIONS = ("add", "rename", "duplicate", "delete")


class NetworkActions:
    def network_menu(self, name: str) -> QMenu:
        """The network tabs' context menu for ``name`` ("": off the tabs, only Add)."""
        menu = QMenu(self)
        menu.addAction(translate("MainWindow", "Add Network"), self.add_network)
        for key in NETWORK_ACTIONS[1:]:
            text = self.actions_by_name[f"{key}_network"].text().replace("&", "")
            action = menu.addAction(text, lambda k=key: getattr(self, f"{k}_network")(name))
            action.setEnabled(bool(name))
        return menu

    def _show_network_menu(self, name: str, pos: QPoint) -> None:
        self.network_menu_shown = self.network_menu(name)
        self.network_menu_shown.popup(pos)

    def _target(self, name: str | None) -> str | None:
        return name or self.edit_tab.current_network()

    def add_network(self) -> str | None:
        command = networks.add_network(self.document.project)
        if self._guard(self.document.push, command) is None:
            return None
        self.edit_tab.show_network(command.network.name)  # type: ignore[attr-defined]
        return command.network.name  # type: ignore[attr-defined]

    def rename_network(self, name: str | None = None) -> bool:
        old = self._target(name)
        if old is None:
            return False
        new = self.ask_text(
            translate("MainWindow", "Rename network"),
            translate("MainWindow", 'New name of network "{old}":').format(old=old),
            old,
        )
        if new is None or new.strip() == old:
            return False
        command = self._guard(networks.rename_network, self.document.project, old, new)
        return command is not None and bool(self._guard(self.document.push, command))

    def duplicate_network(self, name: str | None = None) -> str | None:
        original = self._target(name)
        if original is None:
            return None
        command = networks.duplicate_network(self.document.project, original)
        if self._guard(self.document.push, command) is None:
            return None
        self.edit_tab.show_network(command.network.name)  # type: ignore[attr-defined]
        return command.network.name  # type: ignore[attr-defined]

    def delete_network(self, name: str | None = None) -> bool:
        target = self._target(name)
        if target is None:
            return False
        project = self.document.project
        command = self._guard(networks.delete_network, project, target)
        if command is None:
            return False
        used = networks.references_to(project, target)
        if used and not self.ask_confirm(
            translate(
                "MainWindow", 'Network "{target}" is used by {join}. Delete it anyway?'
            ).format(target=target, join="; ".join(used))
        ):
            return False
        return bool(self._guard(self.document.push, command))
