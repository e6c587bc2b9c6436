#!/usr/bin/env bash
# CI/CD entry point (app-interface / app-sre ci-int): build the package image with pkogen (no
# container engine) and push it as :<7-char commit> and :latest. If :<commit> already exists,
# do nothing: deployments reference the digest, and a rebuild must never move a deployed tag.
#
# Environment (see README):
#   IMAGE_REGISTRY    registry host                          (default quay.io)
#   IMAGE_REPOSITORY  organisation / namespace               (default app-sre)
#   IMAGE_NAME        image name                             (default: package metadata.name)
#   IMAGE_TAG         tag                                    (default: git rev-parse --short=7 HEAD)
#   PACKAGE_DIR       package folder                         (default package)
#   REGISTRY_USER / REGISTRY_TOKEN  push credentials (QUAY_USER / QUAY_TOKEN accepted too);
#                     otherwise REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json or
#                     ~/.docker/config.json are used
#   INSECURE          true: allow plain HTTP / unverified TLS (test registries only)
#   NODE              node binary                            (default node)
# Runs `make build` (npm ci + compile when needed) and `pkogen verify` first: a package/ that
# differs from the generator's output is never shipped.
# Prints the pushed (or existing) digest on stdout. Never prints credentials.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE=${NODE:-node}
PACKAGE_DIR=${PACKAGE_DIR:-package}
IMAGE_REGISTRY=${IMAGE_REGISTRY:-quay.io}
IMAGE_REPOSITORY=${IMAGE_REPOSITORY:-app-sre}

# On a fresh checkout: install dependencies and compile (make does both, quietly when up to date),
# then refuse to ship a package/ that differs from what the generator makes.
if [ -f Makefile ]; then make -s build >&2; fi
if [ ! -f dist/src/cli/main.js ]; then
  echo "build_deploy.sh: pkogen is not built; run 'make package' first" >&2
  exit 1
fi
if [ "$PACKAGE_DIR" = package ] && [ -f dist/resources/resources.js ]; then
  "$NODE" bin/pkogen.js verify dist/resources/resources.js >&2
fi
if [ ! -f "$PACKAGE_DIR/manifest.yaml" ] && [ ! -f "$PACKAGE_DIR/manifest.yml" ]; then
  echo "build_deploy.sh: no package manifest in $PACKAGE_DIR; run 'make package' first" >&2
  exit 1
fi
if [ -z "${IMAGE_NAME:-}" ]; then
  IMAGE_NAME=$(awk '/^metadata:/{m=1;next} m&&/^  name:/{print $2;exit} /^[^ ]/{m=0}' "$PACKAGE_DIR"/manifest.y*ml | head -n1)
fi
if [ -z "$IMAGE_NAME" ]; then
  echo "build_deploy.sh: set IMAGE_NAME (the package manifest has no metadata.name)" >&2
  exit 1
fi
IMAGE_TAG=${IMAGE_TAG:-$(git rev-parse --short=7 HEAD)}

user=${REGISTRY_USER:-${QUAY_USER:-}}
token=${REGISTRY_TOKEN:-${QUAY_TOKEN:-}}
if [ -n "$user" ] || [ -n "$token" ]; then
  if [ -z "$user" ] || [ -z "$token" ]; then
    echo "build_deploy.sh: set both REGISTRY_USER and REGISTRY_TOKEN (or QUAY_USER and QUAY_TOKEN)" >&2
    exit 1
  fi
  authdir=$(mktemp -d)
  trap 'rm -rf "$authdir"' EXIT
  # Written by node so the secret never appears in argv or the shell's trace.
  REGISTRY_USER="$user" REGISTRY_TOKEN="$token" IMAGE_REGISTRY="$IMAGE_REGISTRY" AUTH_FILE="$authdir/auth.json" "$NODE" -e '
    const fs = require("node:fs");
    const e = process.env;
    const auth = Buffer.from(`${e.REGISTRY_USER}:${e.REGISTRY_TOKEN}`).toString("base64");
    fs.writeFileSync(e.AUTH_FILE, JSON.stringify({ auths: { [e.IMAGE_REGISTRY]: { auth } } }), { mode: 0o600 });
  '
  export REGISTRY_AUTH_FILE="$authdir/auth.json"
fi
unset REGISTRY_TOKEN QUAY_TOKEN token

ref="$IMAGE_REGISTRY/$IMAGE_REPOSITORY/$IMAGE_NAME"
insecure=()
case "${INSECURE:-}" in true|1|yes) insecure=(--insecure) ;; esac

echo "build_deploy.sh: $ref:$IMAGE_TAG (and :latest) from $PACKAGE_DIR" >&2
"$NODE" bin/pkogen.js build "$PACKAGE_DIR" -t "$ref:$IMAGE_TAG" -t "$ref:latest" \
  --push --skip-if-exists --output-format digest "${insecure[@]}"
