#!/usr/bin/env bash
# CI/CD entry point (app-interface / app-sre ci-int): build and push, with one tag per commit,
#  1. the on-cluster-build image (controller, webhook server, token minter) from
#     builder/Containerfile with a container engine (buildah, podman or docker), and
#  2. the package images with pkogen (no container engine), as :<7-char commit> and :latest:
#     package/ (the per-HCP package) and package-fleet/ (the fleet component's ClusterPackage),
#     each named after its manifest's metadata.name; PACKAGE_DIR ships that one package only.
# If :<commit> already exists, it is not built again: deployments reference digests, and a
# rebuild must never move a deployed tag. The on-cluster-build image's digest is printed for the
# rollout parameter ON_CLUSTER_BUILD_IMAGE.
#
# Environment (see README):
#   IMAGE_REGISTRY    registry host                          (default quay.io)
#   IMAGE_REPOSITORY  organisation / namespace               (default app-sre)
#   IMAGE_NAME        image name of package/ (or of PACKAGE_DIR)   (default: its metadata.name)
#   FLEET_IMAGE_NAME  image name of package-fleet/           (default: its metadata.name)
#   IMAGE_TAG         tag                                    (default: git rev-parse --short=7 HEAD)
#   PACKAGE_DIR       ship only this package folder          (default: package and package-fleet)
#   REGISTRY_USER / REGISTRY_TOKEN  push credentials (QUAY_USER / QUAY_TOKEN accepted too);
#                     otherwise REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json or
#                     ~/.docker/config.json are used
#   INSECURE          true: allow plain HTTP / unverified TLS (test registries only)
#   BUILDER_IMAGE_NAME  name of the on-cluster-build image    (default on-cluster-build)
#   CONTAINER_ENGINE  buildah, podman or docker for it       (default: the first one found)
#   NODE_IMAGE        Node.js 24 base image for it, ideally by digest (default: see builder/Containerfile)
#   SKIP_BUILDER_IMAGE  true: ship only the package image
#   NODE              node binary                            (default node)
# Runs `make build` (npm ci + compile when needed) and `pkogen verify` first: a package/ or
# package-fleet/ that differs from the generator's output is never shipped.
# Prints on stdout the pushed (or existing) digest with PACKAGE_DIR, else one line per package,
# `<registry>/<repository>/<name>@sha256:…` (package/ first). Never prints credentials.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE=${NODE:-node}
IMAGE_REGISTRY=${IMAGE_REGISTRY:-quay.io}
IMAGE_REPOSITORY=${IMAGE_REPOSITORY:-app-sre}
# What ships: "<dir> <generator module> <IMAGE_NAME override>" per package.
if [ -n "${PACKAGE_DIR:-}" ]; then
  single=1
  case "$PACKAGE_DIR" in
    package) module=dist/resources/resources.js ;;
    package-fleet) module=dist/resources/fleet/fleet.js ;;
    *) module=- ;;
  esac
  packages=("$PACKAGE_DIR|$module|${IMAGE_NAME:-}")
else
  single=
  packages=("package|dist/resources/resources.js|${IMAGE_NAME:-}" "package-fleet|dist/resources/fleet/fleet.js|${FLEET_IMAGE_NAME:-}")
fi

# On a fresh checkout: install dependencies and compile (make does both, quietly when up to date),
# then refuse to ship a package that differs from what the generator makes.
if [ -f Makefile ]; then make -s build >&2; fi
if [ ! -f pkogen/dist/src/cli/main.js ]; then
  echo "build_deploy.sh: pkogen is not built; run 'make package' first" >&2
  exit 1
fi
names=()
for p in "${packages[@]}"; do
  IFS='|' read -r dir module name <<<"$p"
  if [ "$module" != - ] && [ -f "$module" ]; then
    "$NODE" pkogen/bin/pkogen.js verify "$module" >&2
  fi
  if [ ! -f "$dir/manifest.yaml" ] && [ ! -f "$dir/manifest.yml" ]; then
    echo "build_deploy.sh: no package manifest in $dir; run 'make package' first" >&2
    exit 1
  fi
  if [ -z "$name" ]; then
    name=$(awk '/^metadata:/{m=1;next} m&&/^  name:/{print $2;exit} /^[^ ]/{m=0}' "$dir"/manifest.y*ml | head -n1)
  fi
  if [ -z "$name" ]; then
    echo "build_deploy.sh: set IMAGE_NAME (the package manifest in $dir has no metadata.name)" >&2
    exit 1
  fi
  names+=("$name")
done
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

insecure=()
case "${INSECURE:-}" in true|1|yes) insecure=(--insecure) ;; esac

if [ "${SKIP_BUILDER_IMAGE:-}" != true ]; then
  if ! engine=$(scripts/build-image.sh --print-engine); then
    echo "build_deploy.sh: SKIP_BUILDER_IMAGE=true ships only the package" >&2
    exit 1
  fi
  export CONTAINER_ENGINE=$engine
  bimg="$IMAGE_REGISTRY/$IMAGE_REPOSITORY/${BUILDER_IMAGE_NAME:-on-cluster-build}"
  # Plain HTTP / unverified TLS: with INSECURE, or for a registry on loopback (pkogen's rule too).
  tlsoff=${insecure[0]:-}
  case "$IMAGE_REGISTRY" in 127.*|localhost|localhost:*|'[::1]'*) tlsoff=1 ;; esac
  bdigest=""
  if command -v skopeo >/dev/null 2>&1; then
    bdigest=$(skopeo inspect ${REGISTRY_AUTH_FILE:+--authfile "$REGISTRY_AUTH_FILE"} ${tlsoff:+--tls-verify=false} --format '{{.Digest}}' "docker://$bimg:$IMAGE_TAG" 2>/dev/null || true)
  fi
  if [ -n "$bdigest" ]; then
    echo "build_deploy.sh: $bimg:$IMAGE_TAG exists, not rebuilt" >&2
  else
    echo "build_deploy.sh: $bimg:$IMAGE_TAG from builder/Containerfile with $engine" >&2
    scripts/build-image.sh "$bimg:$IMAGE_TAG" >&2
    dtmp=$(mktemp -d)
    case "$(basename "$engine")" in
      docker)
        docker push "$bimg:$IMAGE_TAG" >&2
        bdigest=$(docker inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$bimg:$IMAGE_TAG" | awk -F@ -v r="$bimg" '$1 == r {print $2; exit}')
        ;;
      *)
        "$engine" push ${REGISTRY_AUTH_FILE:+--authfile "$REGISTRY_AUTH_FILE"} ${tlsoff:+--tls-verify=false} --digestfile "$dtmp/digest" "$bimg:$IMAGE_TAG" >&2
        bdigest=$(cat "$dtmp/digest")
        ;;
    esac
    rm -rf "$dtmp"
  fi
  case "$bdigest" in
    sha256:*) echo "build_deploy.sh: ON_CLUSTER_BUILD_IMAGE=$bimg@$bdigest" >&2 ;;
    *) echo "build_deploy.sh: could not learn the digest of $bimg:$IMAGE_TAG" >&2; exit 1 ;;
  esac
fi

# Each package image: built and pushed as :<commit> and :latest, or left as it is when :<commit> exists.
for i in "${!packages[@]}"; do
  IFS='|' read -r dir _ _ <<<"${packages[$i]}"
  ref="$IMAGE_REGISTRY/$IMAGE_REPOSITORY/${names[$i]}"
  echo "build_deploy.sh: $ref:$IMAGE_TAG (and :latest) from $dir" >&2
  digest=$("$NODE" pkogen/bin/pkogen.js build "$dir" -t "$ref:$IMAGE_TAG" -t "$ref:latest" \
    --push --skip-if-exists -o digest "${insecure[@]}")
  case "$digest" in
    sha256:*) ;;
    *) echo "build_deploy.sh: pkogen build printed no digest for $ref:$IMAGE_TAG" >&2; exit 1 ;;
  esac
  echo "build_deploy.sh: REGISTRY_IMG=$ref IMAGE_DIGEST=$digest ($dir)" >&2
  if [ -n "$single" ]; then echo "$digest"; else echo "$ref@$digest"; fi
done
