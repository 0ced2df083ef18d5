#!/usr/bin/env bash
#
# backup.sh - rotate compressed, checksummed backups of a few folders to a
# local target, keeping daily, weekly and monthly generations.
#
# Usage: backup.sh [-n] [-k DAYS] [-t TARGET] DIR...
#   -n        dry run: say what would be done
#   -k DAYS   keep daily backups for DAYS days (default 7)
#   -t DIR    where backups go (default /var/backups/rotating)

set -euo pipefail
IFS=$'\n\t'

readonly PROG=${0##*/}
readonly LOCK_FILE=/run/lock/${PROG%.sh}.lock

DRY_RUN=0
KEEP_DAYS=7
TARGET=/var/backups/rotating
declare -a SOURCES=()

log() {
	printf '%s %s: %s\n' "$(date '+%Y-%m-%dT%H:%M:%S')" "$PROG" "$*" >&2
}

die() {
	log "error: $*"
	exit 1
}

usage() {
	sed -n '3,10s/^# \{0,1\}//p' "$0"
	exit "${1:-0}"
}

# Runs a command, or only prints it in a dry run.
run() {
	if ((DRY_RUN)); then
		printf 'would run:'
		printf ' %q' "$@"
		printf '\n'
	else
		"$@"
	fi
}

parse_args() {
	local opt
	while getopts ':nk:t:h' opt; do
		case $opt in
		n) DRY_RUN=1 ;;
		k)
			[[ $OPTARG =~ ^[0-9]+$ ]] || die "-k wants a number of days, got '$OPTARG'"
			KEEP_DAYS=$OPTARG
			;;
		t) TARGET=$OPTARG ;;
		h) usage 0 ;;
		:) die "-$OPTARG needs a value" ;;
		*) die "unknown option -$OPTARG (try -h)" ;;
		esac
	done
	shift $((OPTIND - 1))
	(($# > 0)) || usage 2
	SOURCES=("$@")
}

# Takes an exclusive lock so that two runs never rotate at the same time.
take_lock() {
	exec 9>"$LOCK_FILE" || die "cannot open $LOCK_FILE"
	flock -n 9 || die "another $PROG is running"
}

# Which generation a backup made today belongs to: monthly on the 1st,
# weekly on Sundays, daily otherwise.
generation() {
	local day_of_month day_of_week
	day_of_month=$(date +%d)
	day_of_week=$(date +%u)
	if [[ $day_of_month == 01 ]]; then
		echo monthly
	elif ((day_of_week == 7)); then
		echo weekly
	else
		echo daily
	fi
}

# Archives one folder into TARGET/GENERATION/NAME-DATE.tar.zst with a
# SHA-256 file beside it, then checks the archive can be listed.
backup_one() {
	local src=$1 gen=$2
	local name stamp dest archive
	[[ -d $src ]] || {
		log "skipping $src: not a folder"
		return 0
	}
	name=$(basename -- "$src")
	stamp=$(date +%Y%m%d-%H%M%S)
	dest=$TARGET/$gen
	archive=$dest/$name-$stamp.tar.zst

	run mkdir -p -- "$dest"
	log "archiving $src to $archive"
	if ((DRY_RUN)); then
		return 0
	fi
	tar --create --file=- --directory="$(dirname -- "$src")" \
		--exclude-caches --one-file-system -- "$name" |
		zstd --quiet -T0 -19 -o "$archive.partial"
	mv -- "$archive.partial" "$archive"
	(cd -- "$dest" && sha256sum -- "${archive##*/}" >"${archive##*/}.sha256")
	zstd --quiet --test -- "$archive" || die "archive $archive is corrupt"
}

# Deletes backups older than their generation keeps them: daily after
# KEEP_DAYS days, weekly after five weeks, monthly after a year.
prune() {
	local gen days
	for gen in daily weekly monthly; do
		case $gen in
		daily) days=$KEEP_DAYS ;;
		weekly) days=35 ;;
		monthly) days=366 ;;
		esac
		[[ -d $TARGET/$gen ]] || continue
		while IFS= read -r -d '' old; do
			log "pruning $old"
			run rm -f -- "$old" "$old.sha256"
		done < <(find "$TARGET/$gen" -maxdepth 1 -name '*.tar.zst' -mtime "+$days" -print0)
	done
}

main() {
	parse_args "$@"
	command -v zstd >/dev/null || die "zstd is not installed"
	((DRY_RUN)) || take_lock
	local gen src failed=0
	gen=$(generation)
	for src in "${SOURCES[@]}"; do
		backup_one "$src" "$gen" || failed=$((failed + 1))
	done
	prune
	if ((failed > 0)); then
		die "$failed of ${#SOURCES[@]} backups failed"
	fi
	log "done: ${#SOURCES[@]} folders, generation $gen"
}

main "$@"
