#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# docs_results.sh SOURCE_DIR — every path the docs cite under bench/results
# is in the tree, or is given as `git show REV:PATH` (a raw log that left the
# tree; bench/results/README.md): then, in a git checkout, REV:PATH must exist.
set -u
src=$1
cd "$src" || exit 1
have_git=0
git rev-parse --git-dir >/dev/null 2>&1 && have_git=1
bad=0 n=0
for doc in docs/*.md README.md bench/README.md; do
  [ -f "$doc" ] || continue
  # "git show REV:bench/results/..." citations first, then the plain ones
  for cite in $(grep -oE 'git show [0-9a-f]{7,40}:bench/results/[A-Za-z0-9._/-]*[A-Za-z0-9_/-]' "$doc" | sed 's/^git show //'); do
    n=$((n + 1))
    # a shallow clone may lack the revision: then nothing to check it against
    if [ "$have_git" = 1 ] && git cat-file -e "${cite%%:*}^{commit}" 2>/dev/null &&
       ! git cat-file -e "$cite" 2>/dev/null; then
      echo "FAIL $doc: git show $cite: not in history"; bad=$((bad + 1))
    fi
  done
  for path in $(sed -E 's/git show [0-9a-f]{7,40}:bench\/results\/[A-Za-z0-9._/-]*//g' "$doc" |
                grep -oE 'bench/results/[A-Za-z0-9._/-]*[A-Za-z0-9_/-]' | sort -u); do
    n=$((n + 1))
    [ -e "$path" ] || { echo "FAIL $doc: $path is not in the tree"; bad=$((bad + 1)); }
  done
done
echo "$n citations of bench/results checked, $bad broken"
[ "$bad" -eq 0 ]
