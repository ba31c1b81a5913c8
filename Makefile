# ahpls — make targets. `make demo` and `make test` are the two commands the
# README promises work on a fresh machine.
GO       ?= go
BIN      ?= bin/ahpls
FUZZTIME ?= 10s
PKGS     := ./...

.PHONY: all build cross test test-short bench fuzz lint demo editors-test editors-e2e release-test release-dry-run vsix ci clean

# The release targets. Every one must build and vet: OS-specific code lives
# behind build tags (tools/proc_*.go).
CROSS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

all: build

# Built without cgo, as the release archives are (cross): a cgo build is
# dynamically linked, and the dynamic loader alone costs every `ahpls check`
# and `ahpls version` process about 15% of its start-up CPU (issue #42).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/ahpls
	CGO_ENABLED=0 $(GO) build -o $(dir $(BIN))ahpls-mcp ./cmd/ahpls-mcp

# bin/ahpls-<os>-<arch>[.exe] for each CROSS target, and go vet per OS
# (vet compiles the tests too, so a test that only builds on Linux shows up).
cross:
	@set -e; for t in $(CROSS); do \
	  os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "build $$os/$$arch"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -o bin/ahpls-$$os-$$arch$$ext ./cmd/ahpls; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -o bin/ahpls-mcp-$$os-$$arch$$ext ./cmd/ahpls-mcp; \
	done; \
	for os in $$(echo $(CROSS) | tr ' ' '\n' | cut -d/ -f1 | sort -u); do \
	  echo "vet $$os"; GOOS=$$os $(GO) vet $(PKGS); \
	done

# The README's test command: vet, cross builds, then every Go test with the
# race detector (several minutes on 2 cores, most of it compiling). Each step
# says when it starts, every 30 s that it still runs, and how long it took.
test:
	@scripts/progress.sh "make test 1/3: gofmt, go vet, staticcheck" $(MAKE) --no-print-directory lint
	@scripts/progress.sh "make test 2/3: cross builds and go vet per OS" $(MAKE) --no-print-directory cross
	@scripts/progress.sh "make test 3/3: go test -race (compiles every package first)" $(GO) test -race -count=1 $(PKGS)

test-short:
	$(GO) test -count=1 $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# A short run of every fuzz target (FUZZTIME each), as CI does. A run that
# the deadline interrupts in the middle of a slow input ("context deadline
# exceeded" with no failing input written) is not a finding; anything else
# that fails is.
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f ($(FUZZTIME))"; \
	    if out=$$($(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg 2>&1); then \
	      echo "$$out" | tail -n 1; \
	    else \
	      echo "$$out"; \
	      if echo "$$out" | grep -q 'Failing input written to' || ! echo "$$out" | grep -q 'context deadline exceeded'; then exit 1; fi; \
	      echo "note: $$f was stopped by the deadline in the middle of an input; no failing input was found"; \
	    fi; \
	  done; \
	done

# staticcheck at a version that knows go1.26, built once into bin/tools
# (`make lint` installs it on a clean machine; STATICCHECK=/path/to/it uses
# another build). Every finding fails the lint; a deliberate exception
# carries a //lint:ignore comment that says why.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK         ?= bin/tools/staticcheck-$(STATICCHECK_VERSION)

bin/tools/staticcheck-$(STATICCHECK_VERSION):
	@echo "installing staticcheck $(STATICCHECK_VERSION) into bin/tools"
	@mkdir -p bin/tools
	GOBIN=$(CURDIR)/bin/tools $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv bin/tools/staticcheck $@

lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(STATICCHECK) $(PKGS)

demo: build
	./$(BIN) demo

editors-test: build
	bash editors/test.sh

# The real VS Code test: the vsix in code-server, driven by headless Chromium
# (installs chromium, ripgrep, libkrb5-dev and code-server itself; see the script).
# The first run needs root (apt-get) and the npm registry and takes ~20-30
# minutes (code-server builds native modules); later runs reuse
# ~/.cache/ahpls-e2e and take 3-5 minutes.
editors-e2e:
	bash editors/e2e.sh

# The release configuration (goreleaser check, mason package, actionlint of
# the workflows) and the npm route (pack every package, install the tarballs,
# npx ahpls check). The first run builds goreleaser (~7 minutes, cached in
# ~/.cache/ahpls-ci).
release-test:
	scripts/test-release.sh
	scripts/test-npm.sh

# The release workflow with publishing stubbed, for a pre-release and a
# release tag (goreleaser's build, the npm tarballs, the vsix files, the
# checks, the publish order; and `go install` at the tag from a scratch
# repository). Needs the goreleaser scripts/test-release.sh builds.
release-dry-run:
	scripts/release-dry-run.sh

# The vsix for this machine (bundled extension + its ahpls and ahpls-mcp) in
# editors/vscode/dist-vsix/; PLATFORMS=all builds all six, PLATFORMS="linux-x64
# darwin-arm64" those (each is a Go cross build of both binaries).
PLATFORMS ?=
vsix:
	bash editors/vsix.sh $(if $(filter all,$(PLATFORMS)),--all,$(PLATFORMS))

ci: test fuzz demo editors-test release-test editors-e2e

clean:
	rm -rf bin
