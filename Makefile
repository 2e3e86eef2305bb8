# bfaudit: `make run` audits the bundled quickstart estate; `make test` runs
# vet, staticcheck and the race-enabled tests.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
# The quickstart is audited as of a fixed day so its report reads the same
# on any day; drop --now to audit as of today.
QUICKSTART_NOW ?= 2026-11-30

# Each fuzz target runs this long under `make fuzz`; their seed corpora
# (f.Add and testdata/fuzz) already run as ordinary tests in `make test`.
FUZZTIME ?= 10s
FUZZPKGS ?= ./...

.PHONY: run test vet staticcheck unit build bench docs fuzz

run: build
	@./bin/bfaudit audit --config examples/quickstart/bfaudit.yaml --now $(QUICKSTART_NOW); \
	code=$$?; \
	if [ $$code -eq 1 ]; then echo "(exit 1: findings at or above report.fail_on, as expected for the quickstart)"; exit 0; fi; \
	exit $$code

build:
	@$(GO) build -o bin/bfaudit ./cmd/bfaudit

test: vet staticcheck unit

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

unit:
	$(GO) test -race ./...

bench:
	./bench/run.sh

# Run every fuzz target in the repository for FUZZTIME each (make fuzz
# FUZZTIME=1m). Targets are discovered with `go test -list`, so new ones
# join without editing this file; a failing target does not stop the
# others, and the failures are listed at the end.
fuzz:
	@list=$$($(GO) test -list '^Fuzz' $(FUZZPKGS)) || { echo "$$list"; exit 1; }; \
	echo "$$list" | awk '/^Fuzz/ { names = names " " $$1; next } /^ok / { if (names != "") print $$2 names; names = "" }' | \
	{ failed=; \
	  while read -r pkg targets; do \
	    for t in $$targets; do \
	      echo "== $$pkg $$t ($(FUZZTIME))"; \
	      $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg || failed="$$failed $$pkg.$$t"; \
	    done; \
	  done; \
	  if [ -n "$$failed" ]; then echo "fuzz failures:$$failed"; exit 1; fi; }

# Regenerate docs/rules.md from the rules' metadata (make test fails when stale).
docs:
	$(GO) test ./rules/builtin -run TestDocsUpToDate -update
