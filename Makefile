# ahpls — make targets. `make demo` and `make test` are the two commands the
# README promises work on a fresh machine.
GO       ?= go
BIN      ?= bin/ahpls
FUZZTIME ?= 10s
PKGS     := ./...

.PHONY: all build test test-short bench fuzz lint demo editors-test ci clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/ahpls

# The README's test command: vet, then every Go test with the race detector.
test: lint
	$(GO) test -race -count=1 $(PKGS)

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

ci: test fuzz demo editors-test

clean:
	rm -rf bin
