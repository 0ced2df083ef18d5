# castchunk — see README.md. cgo is required: tree-sitter is C.
export CGO_ENABLED := 1
# The grammars' C code is most of a cold build; without debug information
# (Go's default is -O2 -g) gcc spends about an eighth less time on it. -w:
# the grammars' generated C has known, harmless warnings (a scanner's
# `"TOKEN_COUNT" redefined`) that read like failures to a user.
export CGO_CFLAGS ?= -O2 -w
# make run > chunks.jsonl must give records only: no "Entering directory".
MAKEFLAGS += --no-print-directory

GO       ?= go
BIN      := bin/castchunk
# The version stamped into the binary (castchunk version): the tag at HEAD,
# else the commit and its date (scripts/version.sh).
VERSION  ?= $(shell scripts/version.sh)
LDFLAGS  := -X github.com/castchunk/castchunk/internal/cli.stamped=$(VERSION)
# make install: where, and into what staging root (packagers).
PREFIX   ?= /usr/local
DESTDIR  ?=
SAMPLE   ?= testdata/corpus
FUZZTIME ?= 30s
FUZZGRAMMARS_TIME ?= 30m
FUZZTOKENIZERS_TIME ?= 30m

.PHONY: all build run test test-note tidy race vet docs fuzz fuzz-grammars fuzz-tokenizers bench corpus languages eval eval-study install dist image slurm-check compile clean

all: build

## build: bin/castchunk, its version stamped; the build's messages go to stderr: on a cold
## build cache, each package is named as it is compiled (the grammars' C code takes minutes)
build:
	@echo "building $(BIN) $(VERSION): a cold build compiles the grammars' C code (2-6 minutes on 2 cores), naming each package as it goes; seconds once cached" >&2
	@$(GO) build -v -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/castchunk >&2

## install: build, then install the binary, the man pages and the shell completions under
## $(DESTDIR)$(PREFIX) (bin/, share/man/man1/, share/bash-completion, share/zsh, share/fish)
install: build
	bash scripts/install.sh "$(BIN)" "$(DESTDIR)$(PREFIX)"

## dist: static Linux binaries for amd64 (musl) and arm64 (Debian's cross toolchain), reproducible,
## in dist/: a tarball per platform (binary, README, LICENSE, man pages, completions) and checksums;
## then the amd64 binary chunks testdata/ in an empty root (chroot) as the dynamic build does
dist: build
	VERSION=$(VERSION) GO=$(GO) bash scripts/dist.sh

## image: the container image castchunk:$(VERSION) (Containerfile) from dist/'s amd64 binary, built
## with podman, then run on a mounted tree and compared with the binary's output
image: dist
	VERSION=$(VERSION) bash scripts/image.sh

## slurm-check: build, then a Slurm job array on a one-node cluster on the loopback (scripts/slurm/cluster.sh;
## installs munge and Slurm with apt-get when missing): docs/ci.md's job scripts chunk the shards of generated
## repositories (--repos-from) and of this repository's tree, a dependent job merges and diffs; the merged
## outputs must equal one local run byte for byte, and an update's diff exactly its files' chunks
slurm-check: build
	bash scripts/slurm-check.sh $(BIN)

## run: build, then chunk the sample corpus: records on stdout and nothing
## else (the commands are not echoed; the build's messages and the summary
## go to stderr), so `make run > chunks.jsonl` is valid JSON Lines
run: build
	@$(BIN) chunk --stats $(SAMPLE)

## test: vet, go.mod tidiness and every test (unit, golden, property, fuzz seeds, end-to-end)
test: test-note compile vet tidy
	$(GO) test -count=1 ./...

# compile: the packages, each named as it is compiled (on a cold cache the
# grammars' C code takes minutes; a warm one names none)
compile:
	@$(GO) build -v ./... >&2

# vet is the first step of make test to compile the grammars' C code: say
# first that it stays silent for minutes on a cold cache.
test-note:
	@echo "make test: on a cold build cache, compiling the grammars' C code takes 2-6 minutes (each package is named as it is compiled); then the tests" >&2

## tidy: fail when go.mod or go.sum is not what `go mod tidy` would write
tidy:
	@$(GO) mod tidy -diff || { echo "go.mod is not tidy: run go mod tidy" >&2; exit 1; }

## race: the tests of the concurrent packages under the race detector (about 2 minutes)
race:
	$(GO) test -race -count=1 ./internal/pipeline/ ./internal/cli/ ./internal/parse/ ./internal/cache/ ./internal/stream/

## docs: regenerate the command reference from the commands themselves: Markdown
## in docs/reference/ and man pages in docs/man/ (TestReferenceIsCurrent fails
## when they drift); read the diff before committing it
docs:
	$(GO) test -count=1 ./internal/cli -run '^TestReferenceIsCurrent$$' -update

vet:
	@unformatted=$$(gofmt -l cmd internal); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

## fuzz: run every fuzz target for FUZZTIME each (not part of make test)
fuzz:
	@set -e; for pkg in $$($(GO) list ./internal/...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg; \
	  done; \
	done

## fuzz-grammars: build, then fuzz every grammar through the real binary for FUZZGRAMMARS_TIME
## (cmd/castfuzz: generated and mutated inputs, batch by batch; stops, fallbacks to the sliding
## method and slow inputs are kept in fuzz-findings/, with report.txt)
fuzz-grammars: build
	$(GO) build -o bin/castfuzz ./cmd/castfuzz
	./bin/castfuzz -bin $(BIN) -time $(FUZZGRAMMARS_TIME) -out fuzz-findings

## fuzz-tokenizers: build, then fuzz --tokenizer through the real binary for FUZZTOKENIZERS_TIME
## (cmd/castfuzz -tokenizers: a hostile tokenizer.json a batch, with source files made to hurt it
## and ordinary files checked against a run without them; runs that stop, hang 10 minutes, go over
## 1 GiB summed over the process tree or lose a file are kept in fuzz-findings/tokenizers/, with
## report.txt; the real tokenizer.json files of scripts/hfref are mutated too when npm ci put them there)
fuzz-tokenizers: build
	$(GO) build -o bin/castfuzz ./cmd/castfuzz
	./bin/castfuzz -tokenizers -bin $(BIN) -time $(FUZZTOKENIZERS_TIME) -batch-timeout 10m -out fuzz-findings/tokenizers

## corpus: assemble bench/corpus-small (~25 MB) and bench/corpus (~100 MB) of sources from this
## machine and its package registries (npm, Debian), and bench/cpython (CPython's Lib/, ~30 MB) and
## bench/java-base (the JDK's java.base, ~50 MB); downloads are cached in bench/cache
corpus:
	GO=$(GO) bash scripts/corpus.sh bench

## bench: build, then measure parse-only vs castchunk chunk -j 1 and -j 2 (and -j 1 with each --method), peak memory,
## start-up, and worker processes vs --in-process on the four corpora (cmd/castbench);
## BENCHFLAGS adds castbench flags, e.g. -reps 5 or -workers-only
BENCHFLAGS ?=
bench: build corpus
	$(GO) build -o bin/castbench ./cmd/castbench
	./bin/castbench -bin $(BIN) -corpus bench/corpus-small -corpus bench/corpus -corpus bench/cpython -corpus bench/java-base $(BENCHFLAGS)

## languages: chunk public trees of the seventeen newer languages (Debian, npm, Go modules; cached in
## /tmp/castchunk-langs) at budgets 2000 and 300 with both methods; verify and check every output
languages: build
	GO=$(GO) bash scripts/languages.sh $(BIN)

## eval: build, then measure retrieval (castchunk eval: cast and sliding at 1000 and 2000, with and
## without --context) on castchunk's own history, release histories of zap and echo (Go proxy) and qs (npm),
## and completion queries on rxjs, Python and Java trees; downloads cached in /tmp/castchunk-eval
eval: build
	GO=$(GO) bash scripts/eval.sh $(BIN)

## eval-study: build, then the chunking study's comparison on the trees make eval measures: castchunk
## eval --method $(METHODS) at --max-size 1000,2000,3000, --context off, --budget 2000, 4000 and 8000;
## tables of each method's means over the trees, their ranking and whether function ranks last, per
## tree, the verdicts and the time each run took
METHODS ?= cast,sliding,function,declaration
eval-study: build
	GO=$(GO) METHODS=$(METHODS) bash scripts/eval-study.sh $(BIN)

clean:
	rm -rf bin dist
