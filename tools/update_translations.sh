#!/usr/bin/env bash
# Refresh the catalogues from the code: new strings appear as unfinished entries, strings no longer
# in the code become obsolete ones (-no-obsolete drops them). Translate the new entries with Qt
# Linguist (pyside6-linguist resources/i18n/neurocanvas_ja.ts) or in a text editor, and commit
# the .ts; the app builds the .qm from it (console_app/language.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# The app, the report, and the engine's modules whose texts the app or the report shows (they
# mark them with engine.core.messages.QT_TRANSLATE_NOOP or engine.report.i18n.translate).
files=$(git ls-files 'console_app/*.py' 'engine/report/*.py';
        git grep -l -e 'from engine.core.messages import' -e 'from engine.report.i18n import' \
          -- 'engine/*.py' | grep -v '^engine/report/')
for ts in resources/i18n/neurocanvas_*.ts; do
  pyside6-lupdate -no-obsolete -locations relative $files -ts "$ts"
done
