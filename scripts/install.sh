#!/usr/bin/env bash
# Installs castchunk where a Unix user looks for it: scripts/install.sh BIN ROOT
# puts BIN in ROOT/bin, the man pages (docs/man) in ROOT/share/man/man1 and
# the shell completions in ROOT/share/bash-completion/completions,
# ROOT/share/zsh/site-functions and ROOT/share/fish/vendor_completions.d.
# make install runs it with ROOT=$(DESTDIR)$(PREFIX).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 root=$2
install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
  "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
install -m 755 "$bin" "$root/bin/castchunk"
install -m 644 docs/man/*.1 "$root/share/man/man1/"
"$bin" completion bash > "$root/share/bash-completion/completions/castchunk"
"$bin" completion zsh > "$root/share/zsh/site-functions/_castchunk"
"$bin" completion fish > "$root/share/fish/vendor_completions.d/castchunk.fish"
echo "installed castchunk $("$root/bin/castchunk" version | head -1 | cut -d' ' -f2) in $root" >&2
