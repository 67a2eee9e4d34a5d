#!/usr/bin/env bash
# Refresh the catalogues from the code: new strings appear as unfinished entries, strings no longer
# in the code become obsolete ones (-no-obsolete drops them). Translate the new entries with Qt
# Linguist (pyside6-linguist resources/i18n/neurocanvas_ja.ts) or in a text editor, and commit
# the .ts; the app builds the .qm from it (console_app/language.py).
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files 'console_app/*.py' 'engine/report/*.py')
for ts in resources/i18n/neurocanvas_*.ts; do
  pyside6-lupdate -no-obsolete -locations relative $files -ts "$ts"
done
