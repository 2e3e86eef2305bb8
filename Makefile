# bfaudit: `make run` audits the bundled quickstart estate; `make test` runs
# vet, staticcheck, the race-enabled tests, actionlint on the GitHub Actions
# examples, `goreleaser check` and `kustomize build` of deploy/kubernetes;
# `make image` builds the container image.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
ACTIONLINT_VERSION ?= v1.7.12
# goreleaser and kustomize pinned to releases that build with this project's Go
# (goreleaser > v2.15.1 and kustomize v5.8.3 need a newer one).
GORELEASER_VERSION ?= v2.15.1
KUSTOMIZE_VERSION ?= v5.7.1
# The quickstart is audited as of a fixed day so its report reads the same
# on any day; drop --now to audit as of today.
QUICKSTART_NOW ?= 2026-11-30

# Each fuzz target runs this long under `make fuzz`; their seed corpora
# (f.Add and testdata/fuzz) already run as ordinary tests in `make test`.
FUZZTIME ?= 10s
FUZZPKGS ?= ./...

# make image: the OCI image of cmd/bfaudit, with no Docker daemon, in
# dist/image/ (oci/ layout, bfaudit.tar for docker/podman load). IMAGE_ARCH
# picks the platform (amd64, arm64), IMAGE_REPO the name it is tagged under.
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
IMAGE_REPO ?= bfaudit

.PHONY: screenshots allocs run test vet staticcheck unit build bench docs fuzz image actionlint goreleaser-check kustomize

run: build
	@./bin/bfaudit audit --config examples/quickstart/bfaudit.yaml --now $(QUICKSTART_NOW); \
	code=$$?; \
	if [ $$code -eq 1 ]; then echo "(exit 1: findings at or above report.fail_on, as expected for the quickstart)"; exit 0; fi; \
	exit $$code

# The first build downloads and compiles about 500 modules (a few minutes
# on two cores); later ones take seconds. Stripped, like the release.
build:
	@echo "building bin/bfaudit (the first build downloads and compiles about 500 modules: several minutes; later builds take seconds)..."
	@$(GO) build -trimpath -ldflags "-s -w" -o bin/bfaudit ./cmd/bfaudit
	@echo "built bin/bfaudit: $$(wc -c < bin/bfaudit | awk '{printf "%.1f MB", $$1 / 1048576}'), stripped (-trimpath -ldflags \"-s -w\")"

test: vet staticcheck unit allocs actionlint goreleaser-check kustomize

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# The image and version tests build the whole static binary: on a cold cache
# that can take longer than go test's default 10 minutes per package.
unit:
	$(GO) test -race -timeout 30m ./...

# Allocation bounds are measured without -race, which moves values to the
# heap (the tests skip themselves under it).
allocs:
	$(GO) test -count=1 -run 'Alloc|Stream' ./reports/ ./rules/ ./rules/builtin/ ./audit/

image:
	$(GO) run ./tools/image -arch $(IMAGE_ARCH) -repo $(IMAGE_REPO) -out dist/image

# The example workflows, linted with the root action.yml standing in for
# bfaudit/bfaudit@v1, so actionlint also checks the inputs they pass to it
# (errors name the copies under .github/workflows/, same file names and lines).
actionlint:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	mkdir -p "$$tmp/.github/workflows" && cp action.yml "$$tmp/" && \
	for f in examples/github-actions/*.yml; do \
	  sed 's#uses: bfaudit/bfaudit@.*#uses: ./#' "$$f" > "$$tmp/.github/workflows/$${f##*/}"; \
	done && \
	cd "$$tmp" && git init -q && $(GO) run github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

goreleaser-check:
	$(GO) run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION) check

# The Kubernetes base builds with kustomize itself (go test ./deploy/kubernetes
# checks each manifest against client-go's types).
kustomize:
	$(GO) run sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION) build deploy/kubernetes >/dev/null

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

# make screenshots: the README's pictures of the HTML report (the quickstart
# and a 12-week history), taken by the browser tests in Debian's chromium.
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser)
screenshots:
	BFAUDIT_TEST_CHROMIUM=$(CHROMIUM) BFAUDIT_BROWSER_DOCS=$(CURDIR)/docs/screenshots \
		$(GO) test -count=1 -run TestHTMLReportInABrowser ./cmd/bfaudit
