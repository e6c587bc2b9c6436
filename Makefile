# pkogen: the two commands a new machine needs are `make package` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := package

NODE        ?= node
PKOGEN      := $(NODE) bin/pkogen.js
BUNDLE      := dist/resources/resources.js
PACKAGE_DIR := package
OUTPUT_DIR  := _output

SOURCES := $(shell find src resources test/bench -name '*.ts' 2>/dev/null) tsconfig.json tsconfig.build.json

.PHONY: package verify test unit typecheck build deps bench clean build-package-image push-package-image

# Install dependencies when the lock file is newer than what is installed.
node_modules/.install-stamp: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: node_modules/.install-stamp

dist/.build-stamp: node_modules/.install-stamp $(SOURCES)
	npx tsc -p tsconfig.build.json
	@touch $@

build: dist/.build-stamp

## package: regenerate package/ and every other generated file, then run the generation checks
package: build
	$(PKOGEN) generate $(BUNDLE)

## verify: fail, naming the files, when committed generated output differs from a fresh generation
verify: build
	$(PKOGEN) verify $(BUNDLE)

typecheck: deps
	npx tsc -p tsconfig.json --noEmit

unit: build
	npm test --silent

## test: type-check, drift-check and run every test suite
test: typecheck verify unit

bench: build
	npm run --silent bench

clean:
	rm -rf dist $(OUTPUT_DIR)
