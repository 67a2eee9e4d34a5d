"""View > Language: the interface switches to Japanese and back by the menu, keeping the open
project (its unsaved edit and undo history), and the choice is remembered."""

from __future__ import annotations

import pytest
from gui_driver import click_menu, type_property
from gui_driver import replaced_window as _replaced
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu, QTableWidget

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    from console_app import language

    language.install(QApplication.instance(), "en")  # the next tests read English


def test_view_language_switches_to_japanese_and_back(qtbot, lenet_window, settings):
    window = lenet_window
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # shortcuts reach the active window only
    document = window.document
    view = window.edit_tab.current_view()
    layers = len(document.project.networks[0].layers)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert len(document.project.networks[0].layers) == 0 < layers and document.modified

    click_menu(qtbot, window, "&View", "&Language", "Japanese (日本語)")
    ja = _replaced(qtbot, window)
    assert not window.isVisible() and ja.isVisible()
    assert [a.text() for a in ja.menuBar().actions()] == [
        "ファイル(&F)", "編集(&E)", "表示(&V)", "ヘルプ(&H)",
    ]  # fmt: skip
    tabs = [ja.tabs.tabText(i) for i in range(ja.tabs.count())]
    assert tabs == ["編集", "データセット", "コンフィグ", "学習", "評価"]
    assert ja.project_tabs.training.run_button.text() == "実行"
    # the open project is the same, with its unsaved edit and its undo history
    assert ja.document is document and document.modified and document.stack.can_undo()
    assert ja.actions_by_name["undo"].text().startswith("元に戻す(&U)")
    assert settings.language() == "ja"

    # a dialog: Help > Keyboard Shortcuts, its title and headings in Japanese
    click_menu(qtbot, ja, "ヘルプ(&H)", "キーボードショートカット(&K)")
    page = next(w for w in QApplication.topLevelWidgets()
                if w.isVisible() and w.windowTitle() == "キーボードショートカット")  # fmt: skip
    table = page.findChild(QTableWidget)
    headings = [table.horizontalHeaderItem(i).text() for i in range(table.columnCount())]
    assert headings == ["コマンド", "ショートカット"]
    commands = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert "コピー" in commands and "貼り付け" in commands  # without the mnemonic's (&C)
    page.close()

    click_menu(qtbot, ja, "表示(&V)", "言語(&L)", "English")
    en = _replaced(qtbot, ja)
    assert [a.text() for a in en.menuBar().actions()] == ["&File", "&Edit", "&View", "&Help"]
    assert [en.tabs.tabText(i) for i in range(en.tabs.count())][0] == "EDIT"
    assert en.document is document and document.modified
    assert settings.language() == "en"
    en.activateWindow()
    qtbot.waitUntil(en.isActiveWindow)
    view = en.edit_tab.current_view()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(document.project.networks[0].layers) == layers  # the undo history came along


def test_the_language_setting_is_remembered(make_window, settings):
    from console_app import language

    assert settings.language() == "system"  # a new user follows the system
    settings.set_language("ja")
    assert language.install(QApplication.instance(), language.resolve(settings.language())) == "ja"
    window = make_window()
    assert window.tabs.tabText(3) == "学習"
    checked = [a.objectName() for a in window.findChild(QMenu, "language_menu").actions()
               if a.isChecked()]  # fmt: skip
    assert checked == ["language_ja"]


def test_the_qm_is_built_from_the_ts_and_rebuilt_when_it_changes(tmp_path, monkeypatch, qapp):
    """The .qm Qt loads is built by lrelease into the cache, named by the .ts's content: an
    edited .ts gets a new .qm, never the stale one."""
    from PySide6.QtCore import QTranslator

    from console_app import language

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    source = language._catalogue_folder() / "neurocanvas_ja.ts"
    folder = tmp_path / "i18n"
    folder.mkdir()
    (folder / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(language, "_catalogue_folder", lambda: folder)
    first = language.compiled_catalogue("ja")
    assert first.parent == tmp_path / "cache" / "i18n" and first.stat().st_size > 0
    assert language.compiled_catalogue("ja") == first  # built once
    translator = QTranslator()
    assert translator.load(str(first))
    assert translator.translate("MainWindow", "TRAINING") == "学習"
    edited = source.read_text(encoding="utf-8").replace(">学習<", ">トレーニング<")
    (folder / source.name).write_text(edited, encoding="utf-8")
    second = language.compiled_catalogue("ja")
    assert second != first
    translator = QTranslator()
    assert translator.load(str(second))
    assert translator.translate("MainWindow", "TRAINING") == "トレーニング"


def test_the_engines_problems_read_in_japanese(qtbot, lenet_window, settings):
    """A refused value in the property pane, a layer's problem in the problems list and the
    undo step's text, all written by the engine, read in the interface's language; the
    engine's own text (the CLI's, the files') stays English."""
    window = lenet_window
    window.show()
    qtbot.waitExposed(window)
    click_menu(qtbot, window, "&View", "&Language", "Japanese (日本語)")
    ja = _replaced(qtbot, window)
    scene = ja.edit_tab.current_scene()
    pane = ja.edit_tab.property_pane

    scene.select_layers(["Input"])
    field = type_property(qtbot, pane, "Size", "1,28,x")
    assert pane.error.text().startswith("プロパティ Size: ")
    assert pane.error.text().endswith("入力値: Size=1,28,x")
    qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field, "28")

    scene.select_layers(["Convolution"])
    type_property(qtbot, pane, "KernelShape", "50,50", enter=True)
    problems = ja.edit_tab.problems
    qtbot.waitUntil(lambda: problems.count() > 0)
    texts = [problems.item(i).text() for i in range(problems.count())]
    kernel = next(t for t in texts if 'レイヤー "Convolution"' in t)
    assert kernel.startswith('ネットワーク "Main", ') and "出力が空になります" in kernel, texts
    # the undo step the edit made reads in Japanese too (the engine's command text)
    assert ja.actions_by_name["undo"].text() == "元に戻す(&U) Convolution.KernelShape の設定"
    assert str(ja.document.stack.undo_text()) == "Set Convolution.KernelShape"
    english = [str(p) for p in problems.problems if p.layer == "Convolution"]
    assert english and english[0].startswith('network "Main", layer "Convolution", ')
    assert "the output would be empty" in english[0]


def test_help_tour_is_the_japanese_tour_in_japanese(qtbot, make_window, settings):
    """Help > Tour shows the tour written in the interface's language (resources/help), and
    the README's English tour again after switching back."""
    import re
    from pathlib import Path

    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    click_menu(qtbot, window, "&View", "&Language", "Japanese (日本語)")
    ja = _replaced(qtbot, window)
    click_menu(qtbot, ja, "ヘルプ(&H)", "ツアー(&T)")
    qtbot.waitUntil(lambda: getattr(ja, "help_page", None) is not None and ja.help_page.isVisible())
    assert ja.help_page.windowTitle() == "NeuroCanvas ツアー"
    shown = ja.help_page.body.toPlainText()
    tour = (Path(__file__).resolve().parents[2] / "resources" / "help" / "tour.ja.md").read_text(
        encoding="utf-8"
    )
    headings = re.findall(r"^## (.+)$", tour, re.MULTILINE)
    assert len(headings) >= 8 and all(h in shown for h in headings)
    assert "The Python API" not in shown  # not the README's English tour
    ja.help_page.close()
    click_menu(qtbot, ja, "表示(&V)", "言語(&L)", "English")
    en = _replaced(qtbot, ja)
    click_menu(qtbot, en, "&Help", "&Tour")
    qtbot.waitUntil(lambda: getattr(en, "help_page", None) is not None and en.help_page.isVisible())
    assert "The Python API" in en.help_page.body.toPlainText()


def test_an_engine_error_reads_in_japanese_and_stays_english_on_its_own(qapp, tmp_path):
    """A dataset error raised by the engine: ``str()`` is the English line the CLI prints, the
    app's error text (dialogs, the DATASET tab) is the Japanese template with the same values."""
    from console_app import language
    from engine.data import DatasetError, open_dataset

    missing = tmp_path / "missing.csv"
    with pytest.raises(DatasetError) as caught:
        open_dataset(missing)
    assert str(caught.value) == f'dataset CSV not found: "{missing}"'
    language.install(QApplication.instance(), "ja")
    assert language.error_text(caught.value) == f'データセットの CSV が見つかりません: "{missing}"'
    language.install(QApplication.instance(), "en")
    assert language.error_text(caught.value) == str(caught.value)
