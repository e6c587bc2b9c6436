# on-cluster-build, with pkogen (pkogen/, a workspace package) beside it: the two commands a new
# machine needs are `make package` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := package

# Node.js: the project (tool, tests, controller image) runs on Node 24, an LTS. On a machine whose
# own node is older, make installs the pinned Node from the npm registry's per-platform binary
# package (hack/node/: exact version, integrity in its lock file, no install scripts) and puts it
# first on PATH, so npm, the tests and the code-cache generation all run with it.
NODE_MAJOR      := 24
HOST_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
ifneq ($(shell [ "$(HOST_NODE_MAJOR)" -ge $(NODE_MAJOR) ] 2>/dev/null && echo yes),yes)
NODE_ARCH       := $(patsubst x86_64,x64,$(patsubst aarch64,arm64,$(shell uname -m)))
PINNED_NODE_DIR := $(CURDIR)/hack/node/node_modules/node-linux-$(NODE_ARCH)/bin
PINNED_NODE     := $(PINNED_NODE_DIR)/node
export PATH     := $(PINNED_NODE_DIR):$(PATH)
endif
NODE        ?= node
PKOGEN      := $(NODE) pkogen/bin/pkogen.js
BUNDLE      := dist/resources/resources.js
PACKAGE_DIR := package
# The fleet component's ClusterPackage, generated beside the per-HCP package by its own bundle module.
FLEET_BUNDLE      := dist/resources/fleet/fleet.js
FLEET_PACKAGE_DIR := package-fleet
OUTPUT_DIR  := _output

PKOGEN_SOURCES := $(shell find pkogen/src pkogen/test -name '*.ts' ! -name '*.test.ts' 2>/dev/null) pkogen/tsconfig.json pkogen/tsconfig.build.json
SOURCES := $(shell find resources builder test/bench -name '*.ts' 2>/dev/null) $(shell find test/builder -name '*.ts' ! -name '*.test.ts' 2>/dev/null) tsconfig.json tsconfig.build.json

.PHONY: package verify test unit typecheck build deps tools bench fuzz clean build-package-image push-package-image build-image push-image

# The pinned Node (only where the machine's is older; see NODE_MAJOR above).
$(PINNED_NODE): hack/node/package.json hack/node/package-lock.json
	@[ "$$(uname -s)" = Linux ] || { echo "make: this machine's node is older than $(NODE_MAJOR); install Node.js $(NODE_MAJOR)" >&2; exit 1; }
	cd hack/node && npm ci --ignore-scripts --no-audit --no-fund
	@test -x $@ || { echo "make: no pinned Node.js for $(NODE_ARCH) in hack/node; install Node.js $(NODE_MAJOR)" >&2; exit 1; }
	@touch $@

# Install dependencies when the lock file is newer than what is installed (with the Node that runs them).
node_modules/.install-stamp: package.json pkogen/package.json package-lock.json $(PINNED_NODE)
	npm ci --no-audit --no-fund
	@touch $@

deps: node_modules/.install-stamp

# pkogen (in pkogen/): tsc; in pkogen/dist/src the bundled CRDs' validators precompiled
# (hack/precompile-crds.mjs) and the table of built-in kinds as one file (hack/flatten-kinds.mjs:
# faster library import); then the bundled CLI that pkogen/bin/pkogen.js prefers (hack/bundle.mjs:
# faster start-up) and the V8 code caches of its CommonJS validate/build/push bundles
# (hack/code-cache.mjs, made with $(NODE)).
PKOGEN_HACK := $(addprefix pkogen/hack/,precompile-crds.mjs flatten-kinds.mjs bundle.mjs cjs-crds.mjs cjs-kinds.mjs esbuild-options.mjs code-cache.mjs)
pkogen/dist/.build-stamp: node_modules/.install-stamp $(PKOGEN_SOURCES) $(PKOGEN_HACK) pkogen/bin/pkogen.js pkogen/bin/package.json
	cd pkogen && npx tsc -b tsconfig.build.json
	cd pkogen && $(NODE) hack/precompile-crds.mjs
	cd pkogen && $(NODE) hack/flatten-kinds.mjs
	cd pkogen && $(NODE) hack/bundle.mjs
	cd pkogen && $(NODE) hack/code-cache.mjs bin/pkogen.js ../$(PACKAGE_DIR)
	@touch $@

# on-cluster-build (resources/, builder/) against pkogen's built declarations; then the webhook's
# schema validators precompiled and its entry bundled (hack/precompile-webhook.mjs).
dist/.build-stamp: pkogen/dist/.build-stamp $(SOURCES) hack/precompile-webhook.mjs
	npx tsc -b tsconfig.build.json
	$(NODE) hack/precompile-webhook.mjs
	@touch $@

build: dist/.build-stamp

## package: regenerate package/, package-fleet/ and every other generated file, then run the generation checks
package: build
	$(PKOGEN) generate $(BUNDLE)
	$(PKOGEN) generate $(FLEET_BUNDLE)
	$(PKOGEN) validate $(FLEET_PACKAGE_DIR) --strict

## verify: fail, naming the files, when committed generated output differs from a fresh generation
verify: build
	$(PKOGEN) verify $(BUNDLE)
	$(PKOGEN) verify $(FLEET_BUNDLE)
	$(PKOGEN) validate $(PACKAGE_DIR) --strict
	$(PKOGEN) validate $(FLEET_PACKAGE_DIR) --strict

# Debian tools the integration suites drive (binary:package). `make test` installs the missing
# ones itself, as `make package` installs npm dependencies; silent when all are present.
TOOLS := docker-registry:docker-registry skopeo:skopeo umoci:umoci buildah:buildah diff:diffutils openssl:openssl newuidmap:uidmap setcap:libcap2-bin busybox:busybox-static promtool:prometheus

## tools: install the Debian tools the integration suites need (apt-get, as root) when missing
tools:
	@missing=(); \
	for pair in $(TOOLS); do \
	  bin=$${pair%%:*}; pkg=$${pair#*:}; \
	  command -v "$$bin" >/dev/null 2>&1 || [ -x "/usr/bin/$$bin" ] || missing+=("$$pkg"); \
	done; \
	if [ $${#missing[@]} -gt 0 ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "make tools: missing Debian packages: $${missing[*]}; run as root or: sudo apt-get install -y $${missing[*]}" >&2; exit 1; \
	  fi; \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "make tools: missing $${missing[*]} and no apt-get on this machine: install them with your package manager" >&2; exit 1; \
	  fi; \
	  echo "make tools: installing $${missing[*]}"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq; \
	  apt-get install -y -qq --no-install-recommends "$${missing[@]}"; \
	fi

typecheck: build
	cd pkogen && npx tsc -p tsconfig.json --noEmit
	npx tsc -p tsconfig.json --noEmit

unit: build tools
	@mkdir -p $(OUTPUT_DIR)
	cd pkogen && npm test --silent -- --json --outputFile=../$(OUTPUT_DIR)/jest-pkogen.json || true
	npm test --silent -- --json --outputFile=$(OUTPUT_DIR)/jest-on-cluster-build.json || true
	@$(NODE) -e 'let p = 0, f = 0, s = 0, bad = 0; for (const n of ["pkogen", "on-cluster-build"]) { let r; try { r = require("./$(OUTPUT_DIR)/jest-" + n + ".json"); } catch { console.log(`jest ($${n}): no results`); bad = 1; continue; } console.log(`jest ($${n}): $${r.numPassedTests} passed, $${r.numFailedTests} failed, $${r.numPendingTests} skipped`); p += r.numPassedTests; f += r.numFailedTests; s += r.numPendingTests; if (!r.success) bad = 1; } console.log(`jest: $${p} passed, $${f} failed, $${s} skipped`); process.exit(bad);'

## test: type-check, drift-check, install missing Debian tools, run every test suite (fuzz corpus replay included)
test: typecheck verify unit

## bench: pkogen's benchmarks (pkogen/docs/benchmarks.md), then ours: webhook, release resolution (docs/benchmarks.md)
bench: build
	cd pkogen && npm run --silent bench
	npm run --silent bench

## fuzz: every parser with 10,000 fixed-seed inputs (FUZZ_ARGS="--count N --target NAME"); findings go to test/fuzz/corpus/
fuzz: build
	cd pkogen && $(NODE) dist/test/fuzz/run.js $(FUZZ_ARGS)

clean:
	rm -rf dist pkogen/dist $(OUTPUT_DIR)

# ---- package image ---------------------------------------------------------------------------
# IMAGE_NAME defaults to the package's metadata.name; IMG is the repository, TAG the git commit.
IMAGE_NAME           ?= $(or $(shell awk '/^metadata:/{m=1;next} m&&/^  name:/{print $$2;exit} /^[^ ]/{m=0}' $(PACKAGE_DIR)/manifest.yaml 2>/dev/null),package)
IMG                  ?= localhost/$(IMAGE_NAME)
TAG                  ?= $(or $(shell git rev-parse --short=7 HEAD 2>/dev/null),dev)
CONTAINER_ENGINE     ?=
# archive (docker-archive tar, default) or oci (OCI layout directory)
PACKAGE_IMAGE_FORMAT ?= archive

## build-package-image: build the package image from package/ and print its digest
##   (built-in reproducible builder; CONTAINER_ENGINE=buildah|podman|docker builds the Containerfile)
build-package-image: build
	@mkdir -p $(OUTPUT_DIR)
ifeq ($(CONTAINER_ENGINE),)
	@$(PKOGEN) build $(PACKAGE_DIR) -t $(IMG):$(TAG) -o digest \
		$(if $(filter oci,$(PACKAGE_IMAGE_FORMAT)),--oci-layout $(OUTPUT_DIR)/$(IMAGE_NAME),--output-file $(OUTPUT_DIR)/$(IMAGE_NAME).tar)
else
	$(CONTAINER_ENGINE) build --platform=linux/amd64 -f Containerfile -t $(IMG):$(TAG) --iidfile $(OUTPUT_DIR)/$(IMAGE_NAME).iid .
	@echo "image id (config digest; the manifest digest is known once pushed): $$(cat $(OUTPUT_DIR)/$(IMAGE_NAME).iid)"
endif

## push-package-image: build and push IMG:TAG with the built-in builder, print the digest (IMG=registry/org/name TAG=...)
push-package-image: build
	@$(if $(filter localhost/%,$(IMG)),$(error push-package-image: set IMG=registry/org/name))true
	@$(PKOGEN) build $(PACKAGE_DIR) -t $(IMG):$(TAG) --push -o digest $(if $(filter true 1 yes,$(INSECURE)),--insecure)

# ---- on-cluster-build image (controller, webhook server, token minter) -------------------------
# Needs a container engine (CONTAINER_ENGINE, default: buildah, podman or docker, the first found):
# it starts FROM a Node.js runtime image (NODE_IMAGE).
BUILDER_IMG ?= localhost/on-cluster-build

## build-image: build $(BUILDER_IMG):$(TAG) from builder/Containerfile
build-image:
	scripts/build-image.sh $(BUILDER_IMG):$(TAG)

## push-image: push $(BUILDER_IMG):$(TAG) (BUILDER_IMG=registry/org/on-cluster-build)
push-image:
	@$(if $(filter localhost/%,$(BUILDER_IMG)),$(error push-image: set BUILDER_IMG=registry/org/name))true
	$(or $(CONTAINER_ENGINE),buildah) push $(BUILDER_IMG):$(TAG)
