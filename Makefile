# castchunk — see README.md. cgo is required: tree-sitter is C.
export CGO_ENABLED := 1

GO       ?= go
BIN      := bin/castchunk
SAMPLE   ?= testdata/corpus
FUZZTIME ?= 30s

.PHONY: all build run test vet fuzz bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/castchunk

## run: build, then chunk the sample corpus (records on stdout, summary on stderr)
run: build
	./$(BIN) chunk --stats $(SAMPLE)

## test: vet and every test (unit, golden, property, fuzz seeds, end-to-end)
test: vet
	$(GO) test -count=1 ./...

vet:
	@unformatted=$$(gofmt -l cmd internal); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

## fuzz: run every fuzz target for FUZZTIME each (not part of make test)
fuzz:
	@set -e; for pkg in $$($(GO) list ./internal/...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf bin
