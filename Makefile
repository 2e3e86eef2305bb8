# bfaudit: `make run` audits the bundled quickstart estate; `make test` runs
# vet, staticcheck and the race-enabled tests.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
# The quickstart is audited as of a fixed day so its report reads the same
# on any day; drop --now to audit as of today.
QUICKSTART_NOW ?= 2026-11-30

.PHONY: run test vet staticcheck unit build bench docs

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

# Regenerate docs/rules.md from the rules' metadata (make test fails when stale).
docs:
	$(GO) test ./rules/builtin -run TestDocsUpToDate -update
