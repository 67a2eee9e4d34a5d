"""``neurocanvas report JOB --lang ja``: the deck read back with python-pptx has Japanese slide
titles, table headings and chart axis titles, names a font with Japanese glyphs on its texts, and
keeps layer, statistic and metric names as NNC shows them."""

from __future__ import annotations

import json

import pytest
from pptx import Presentation
from pptx.oxml.ns import qn
from pptx_kit import cli, slide, texts, titles

from engine.layers.spec import STATISTICS

JA_TITLES = [
    "lenet_digits",
    "データセット : Training",
    'データセット : "Training" の変数 x の例',
    "データセット : Validation",
    'データセット : "Validation" の変数 x の例',
    "ネットワーク構造 : Main",
    "学習手順 : Optimizer",
    "実験結果 : 学習曲線",
    "実験結果 : 評価",
    "実験結果 : y の混同行列",
    "実験結果 : y のクラス別評価指標",
    "実験結果 : y の誤分類の例",
    "参考文献",
]
FONT = "Noto Sans CJK JP"


@pytest.fixture(scope="module")
def ja_deck(lenet_job, tmp_path_factory):
    out = tmp_path_factory.mktemp("deck_ja") / "report.pptx"
    result = cli("report", str(lenet_job), "-o", str(out), "--lang", "ja")
    assert result.returncode == 0, result.stderr
    return Presentation(str(out))


def test_slide_titles_are_japanese(ja_deck):
    assert titles(ja_deck) == JA_TITLES


def test_table_headings_and_statistic_names(ja_deck, lenet_job):
    table = next(s for s in slide(ja_deck, "ネットワーク構造 : Main").shapes if s.has_table).table
    assert [c.text for c in table.rows[0].cells] == ["タイプ", "値"]
    assert [r.cells[0].text for r in list(table.rows)[1:]] == list(STATISTICS)  # kept as NNC's
    per_class = next(s for s in slide(ja_deck, "実験結果 : y のクラス別評価指標").shapes
                     if s.has_table).table  # fmt: skip
    assert [c.text for c in per_class.rows[0].cells] == ["クラス", "適合率", "再現率", "F 値",
                                                         "データ数"]  # fmt: skip
    summary = json.loads((lenet_job / "evaluation.json").read_text())
    body = texts(slide(ja_deck, "実験結果 : 評価"))
    m = summary["classification"]["y'"]
    assert body[0] == 'ネットワーク "MainRuntime" を "Validation" データセットで評価しました。'
    assert body[2:] == [
        "変数 : y", f"    Accuracy : {m['accuracy']:.4f}",
        f"    Avg.Precision : {m['avg_precision']:.4f}", f"    Avg.Recall : {m['avg_recall']:.4f}",
        f"    Avg.F-Measures : {m['avg_f_measure']:.4f}",
    ]  # metric names as NNC shows them  # fmt: skip


def test_chart_axis_titles_and_series_are_japanese(ja_deck):
    chart = next(s for s in slide(ja_deck, "実験結果 : 学習曲線").shapes if s.has_chart).chart
    assert chart.category_axis.axis_title.text_frame.text == "エポック"
    assert chart.value_axis.axis_title.text_frame.text == "コスト / エラー"
    assert [s.name for s in chart.plots[0].series] == ["コスト", "学習ロス", "検証ロス"]


def test_every_text_names_a_font_with_japanese_glyphs(ja_deck):
    runs = [r for sl in ja_deck.slides for sh in sl.shapes if sh.has_text_frame
            for p in sh.text_frame.paragraphs for r in p.runs]  # fmt: skip
    assert runs and all(r.font.name == FONT for r in runs)
    assert all(r.font._rPr.find(qn("a:ea")).get("typeface") == FONT for r in runs)


def test_english_stays_the_default(lenet_job, tmp_path):
    out = tmp_path / "en.pptx"
    assert cli("report", str(lenet_job), "-o", str(out)).returncode == 0
    deck = Presentation(str(out))
    assert titles(deck)[-1] == "References" and "実験結果 : 評価" not in titles(deck)
    runs = [r for sl in deck.slides for sh in sl.shapes if sh.has_text_frame
            for p in sh.text_frame.paragraphs for r in p.runs]  # fmt: skip
    assert all(r.font.name is None for r in runs)  # the template's theme font


def test_an_unknown_language_is_one_clear_line(lenet_job, tmp_path):
    result = cli("report", str(lenet_job), "-o", str(tmp_path / "x.pptx"), "--lang", "fr")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "--lang" in result.stderr and "'fr'" in result.stderr
    assert not (tmp_path / "x.pptx").exists()
