#!/usr/bin/env bash
# Builds the on-cluster-build image (controller, webhook server, token minter) from
# builder/Containerfile: `scripts/build-image.sh IMAGE_REF`. One home for the engine command:
# `make build-image` and scripts/build_deploy.sh both call it. `--print-engine` only says which
# engine it would use (or fails, saying why).
#   CONTAINER_ENGINE  buildah, podman or docker (default: the first one found)
#   NODE_IMAGE        Node.js 24 base image, ideally by digest (default: see builder/Containerfile)
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:?usage: scripts/build-image.sh IMAGE_REF | --print-engine}
engine=${CONTAINER_ENGINE:-}
if [ -z "$engine" ]; then
  for e in buildah podman docker; do if command -v "$e" >/dev/null 2>&1; then engine=$e; break; fi; done
fi
if [ -z "$engine" ]; then
  echo "build-image.sh: no container engine found (buildah, podman or docker); set CONTAINER_ENGINE" >&2
  exit 1
fi
if [ "$ref" = --print-engine ]; then echo "$engine"; exit 0; fi
args=(build --platform=linux/amd64 -f builder/Containerfile -t "$ref")
# docker (BuildKit) finds builder/Containerfile.dockerignore by itself; buildah and podman are told.
[ "$(basename "$engine")" = docker ] || args+=(--ignorefile builder/Containerfile.dockerignore)
[ -z "${NODE_IMAGE:-}" ] || args+=(--build-arg "NODE_IMAGE=$NODE_IMAGE")
exec "$engine" "${args[@]}" .
