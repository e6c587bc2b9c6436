#!/usr/bin/env bash
# Re-vendors Package Operator's own packages (test data of test/pko/upstream.test.ts) from a git
# clone of github.com/package-operator/package-operator, unchanged (symlinks kept as symlinks),
# and rewrites NOTICE with the commit, path and sha256 of every file.
#   test/pko/upstream/vendor.sh GIT_DIR [COMMIT]
set -euo pipefail
GIT_DIR=$1
COMMIT=${2:-e03279db54c3fb57b195f76b8d0bf79f2bc024c8}
HERE=$(cd "$(dirname "$0")" && pwd)
git=(git --git-dir="$GIT_DIR")
# Every directory holding a manifest.yaml (package roots; components come with their root), the
# two packages PKO's build generates from manifest.yaml.tpl, and what that build copies into them
# (config/static-deployment's CRDs and ClusterRoles, cmd/build/generate.go).
mapfile -t roots < <("${git[@]}" ls-tree -r --name-only "$COMMIT" | grep -E '(^|/)manifest\.ya?ml$' | xargs -n1 dirname | sort -u | grep -v '/components/')
paths=("${roots[@]}" config/packages/package-operator config/packages/test-stub-image-prefix-override)
mapfile -t static < <("${git[@]}" ls-tree --name-only "$COMMIT" config/static-deployment/ | grep -E '/(1-.*|20-rbac)\.yaml$')
paths+=("${static[@]}")
for p in config integration cmd internal; do rm -rf "${HERE:?}/$p"; done
"${git[@]}" archive --format=tar "$COMMIT" -- "${paths[@]}" | tar -x -C "$HERE"
{
  echo "Files under this directory (except vendor.sh, expected.json and this NOTICE) are copied unchanged from"
  echo "Package Operator, https://github.com/package-operator/package-operator, commit $COMMIT,"
  echo "Copyright The Package Operator Authors, licensed under the Apache License, Version 2.0"
  echo "(https://www.apache.org/licenses/LICENSE-2.0). Each file keeps its upstream path."
  echo "expected.json quotes expected outputs from that commit's Go tests (file and line given per entry)."
  echo
  echo "sha256  path  (symlinks: sha256 of the link text, marked ->)"
  cd "$HERE"
  find config integration cmd internal \( -type f -o -type l \) | LC_ALL=C sort | while read -r f; do
    if [ -L "$f" ]; then printf '%s  %s -> %s\n' "$(printf '%s' "$(readlink "$f")" | sha256sum | cut -d' ' -f1)" "$f" "$(readlink "$f")"
    else printf '%s  %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$f"; fi
  done
} > "$HERE/NOTICE"
