#!/usr/bin/env bash
# Formats the whole tree once and applies ESLint's automatic fixes: run by hand on a clean
# checkout after the branches that were open at the time have merged (it touches most files),
# then review and commit the result as one "format" commit. Afterwards `npm run lint`
# (part of `npm test`) keeps the tree that way.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain)" ]; then
  echo "format-all: the working tree has changes; commit them first so the format commit holds nothing else" >&2
  exit 1
fi

# 1. ESLint's fixes first (they change code: `import type`, dropped needless assertions), so
#    Prettier lays out the result. A finding --fix cannot fix does not stop the script; the
#    check at the end lists it.
npx eslint --fix . || true
# 2. One layout for every file Prettier covers (.prettierignore says what it leaves alone).
npx prettier --write . >/dev/null
git diff --shortstat

# 3. The tree must still build and pass the whole lint.
npm run build
npm run lint
echo "format-all: done; review \`git diff\`, run the tests, and commit"
