#!/usr/bin/env bash
# tmux-agent-wizard's TPM entry point. tmux runs it (TPM's run-shell, or a
# `run-shell` line of your own). It finds a taw binary of this checkout's
# version, downloading the release's (or building it with cargo) when there
# is none, then hands over to `taw tmux load`, which puts the hooks, keys,
# option defaults and PATH entry into tmux.
#
# The binary, in order: the @agent-wizard-bin option (used as it is); this
# plugin's own build (target/release/taw) or download (bin/taw), or `taw`
# on PATH, whichever first says it is this checkout's version. With none,
# the release of exactly this version is downloaded and checked
# (scripts/install-binary), else cargo builds it, in the background, and
# the load follows; a binary of another version loads meanwhile.
#
# What it has to say goes on the status line of the attached clients, or,
# with none attached (tmux.conf runs before any client), to the first
# client that attaches; every word of it goes to <state>/logs/load.log too.

set -u

# The folder of this script, with no program started (a load on a busy
# server waits for each).
SOURCE_PATH="${BASH_SOURCE[0]}"
case "$SOURCE_PATH" in
*/*) ;;
*) SOURCE_PATH="./$SOURCE_PATH" ;;
esac
PLUGIN_DIR="$(cd "${SOURCE_PATH%/*}" && pwd)"
OWN_BUILD="$PLUGIN_DIR/target/release/taw"
OWN_DOWNLOAD="$PLUGIN_DIR/bin/taw"
STATE_DIR="${TAW_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/tmux-agent-wizard}"
LOG_DIR="$STATE_DIR/logs"
LOG="$LOG_DIR/load.log"
DEFAULT_DOWNLOAD_URL="https://github.com/tmux-agent-wizard/tmux-agent-wizard/releases/download"

# How long a message stays on the status line, and the option and hook
# index that keep one for the first client to attach (`taw tmux load`
# uses the same).
MESSAGE_MS=15000
TOLD_OPTION="@agent_wizard_told"
TOLD_HOOK_INDEX=9099

log() {
	mkdir -p "$LOG_DIR" 2>/dev/null &&
		printf '%s %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$*" >>"$LOG"
}

# tell SHORT [DETAIL]: SHORT (short enough for 80 columns) to the people
# looking, DETAIL to the log and tmux's message log (prefix ~). tmux reads
# a message as a format: `#` is doubled, so text in it shows as itself.
tell() {
	local text="agent-wizard: $1" detail="${2:-}" clients client
	log "$text"
	[ -z "$detail" ] || log "  $detail"
	# A server with no session yet (a load from tmux.conf) has no client,
	# and would log "no current target" for a bare list-clients.
	clients="$(tmux if-shell -F '#{S:1}' "list-clients -F '#{client_name}'" 2>/dev/null)"
	if [ -z "$clients" ]; then
		keep_for_attach "$text" "$detail"
		return 0
	fi
	while IFS= read -r client; do
		[ -z "$detail" ] ||
			tmux display-message -c "$client" -d 1 -- "agent-wizard: ${detail//#/##}"
		tmux display-message -c "$client" -d "$MESSAGE_MS" -- "${text//#/##}"
	done <<<"$clients"
}

# Keeps a message until a client attaches: a hook that shows it once and
# takes itself out. tmux's `new` attaches with client-session-changed,
# `attach` with client-attached. The message is an option's value, which
# a format shows as it is: nothing of it is read as a command.
keep_for_attach() {
	local text="$1" detail="$2" show
	# An entry of someone else's at that index is theirs: the message is
	# in the load's log only.
	local line
	while IFS= read -r line; do
		case "$line" in
		"client-attached[$TOLD_HOOK_INDEX] "* | "client-session-changed[$TOLD_HOOK_INDEX] "*)
			case "$line" in
			*"$TOLD_OPTION"*) ;;
			*)
				log "  (kept here only: a hook of someone else's is at ${line%% *})"
				return 0
				;;
			esac
			;;
		esac
	done <<<"$(tmux show-hooks -g 2>/dev/null)"
	show="display-message -d 1 \"#{${TOLD_OPTION}_detail}\" ; display-message -d $MESSAGE_MS \"#{$TOLD_OPTION}\""
	[ -n "$detail" ] || show="display-message -d $MESSAGE_MS \"#{$TOLD_OPTION}\""
	local once="$show ; set-option -gu $TOLD_OPTION ; set-option -gu ${TOLD_OPTION}_detail ; set-hook -gu \"client-attached[$TOLD_HOOK_INDEX]\" ; set-hook -gu \"client-session-changed[$TOLD_HOOK_INDEX]\""
	# Kept as tmux draws them (`#` doubled), as `taw tmux load` keeps them.
	tmux set-option -g "$TOLD_OPTION" "${text//#/##}" \; \
		set-option -g "${TOLD_OPTION}_detail" "agent-wizard: ${detail//#/##}" \; \
		set-hook -g "client-attached[$TOLD_HOOK_INDEX]" "$once" \; \
		set-hook -g "client-session-changed[$TOLD_HOOK_INDEX]" "$once"
}

option() {
	tmux show-option -gqv "$1"
}

# An on/off option's off, in tmux's spellings.
is_off() {
	case "$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')" in
	off | 0 | no | false) return 0 ;;
	*) return 1 ;;
	esac
}

# The version in this checkout's Cargo.toml.
checkout_version() {
	local line in_package=
	[ -r "$PLUGIN_DIR/Cargo.toml" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		"[package]"*) in_package=1 ;;
		"["*) [ -z "$in_package" ] || return 0 ;;
		*)
			if [ -n "$in_package" ] && [[ "$line" =~ ^version\ *=\ *\"([^\"]*)\" ]]; then
				printf '%s\n' "${BASH_REMATCH[1]}"
				return 0
			fi
			;;
		esac
	done <"$PLUGIN_DIR/Cargo.toml"
}

# What `BIN --version` says it is: `taw 0.1.0 (commit)` → 0.1.0; nothing
# for a program that does not call itself taw.
version_of() {
	"$1" --version 2>/dev/null | awk 'NR == 1 && $1 == "taw" { print $2 }'
}

# Whether BIN is of this checkout's version (any, for a checkout whose
# Cargo.toml names none).
is_wanted() {
	[ -z "$VERSION" ] || [ "$(version_of "$1")" = "$VERSION" ]
}

# cargo, from PATH or rustup's usual place (tmux's PATH may not have it).
find_cargo() {
	command -v cargo 2>/dev/null && return 0
	[ -x "$HOME/.cargo/bin/cargo" ] && printf '%s\n' "$HOME/.cargo/bin/cargo"
}

# Where a binary came from, for `taw tmux status`.
origin_of() {
	case "$1" in
	"$OWN_DOWNLOAD") echo download ;;
	"$OWN_BUILD") echo cargo ;;
	*) echo path ;;
	esac
}

# load BIN ORIGIN [NEWS]: runs `taw tmux load`. A load that fails with its
# error (status 1) has said why itself; anything else (taw did not run, or
# stopped on a signal) is said here. NEWS is said with the load's own
# words, in one message. Both go in the environment, which an older taw
# (one that runs while this version's comes) ignores.
load() {
	local bin="$1" origin="$2" news="${3:-}" errors status
	errors="$(TAW_LOAD_ORIGIN="$origin" TAW_LOAD_NEWS="$news" "$bin" tmux load --bin "$bin" 2>&1 >/dev/null)"
	status=$?
	if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
		tell "loading failed (status $status); see the log" "${errors:0:300}"
	fi
	[ "$status" -eq 0 ]
}

# Whether the plugin's sources are newer than its own build (a TPM update
# of a checkout that builds its own).
sources_newer_than_build() {
	[ -n "$(find "$PLUGIN_DIR/src" "$PLUGIN_DIR/Cargo.toml" "$PLUGIN_DIR/Cargo.lock" \
		-newer "$OWN_BUILD" -print -quit 2>/dev/null)" ]
}

# Builds the release binary with cargo, then loads it.
build_then_load() {
	local build_log="$LOG_DIR/build.log"
	mkdir -p "$LOG_DIR"
	if (cd "$PLUGIN_DIR" && "$CARGO" build --release --locked) >"$build_log" 2>&1; then
		load "$OWN_BUILD" cargo "taw $(version_of "$OWN_BUILD") is built and loaded"
	else
		tell "building taw failed; the log is $build_log"
		return 1
	fi
}

# Gets a binary of this checkout's version and loads it: the release's
# download, else a cargo build. Runs in the background. RUNNING is the
# binary of another version loaded meanwhile, if any.
obtain_then_load() {
	local running="$1" url why="" status
	if [ -z "$VERSION" ]; then
		why="this checkout's Cargo.toml names no version to download"
	elif ! is_off "$(option @agent-wizard-download)"; then
		url="$(option @agent-wizard-download-url)"
		[ -n "$url" ] || url="$DEFAULT_DOWNLOAD_URL"
		log "downloading taw $VERSION from $url"
		why="$("$PLUGIN_DIR/scripts/install-binary" "$url" "$VERSION" "$PLUGIN_DIR/bin" 2>&1 >/dev/null)"
		status=$?
		if [ "$status" -eq 0 ]; then
			load "$OWN_DOWNLOAD" download "taw $VERSION is downloaded and loaded"
			return
		fi
		why="$(printf '%s\n' "$why" | tail -n 1)"
		log "the download failed: $why"
	else
		why="downloads are off (@agent-wizard-download)"
	fi
	if [ -n "$CARGO" ]; then
		tell "building taw $VERSION with cargo (a minute or two)..." "$why"
		build_then_load
	elif [ -n "$running" ]; then
		tell "taw $VERSION not installed: still running $(version_of "$running")" "$why"
	else
		tell "no taw for this machine: no download, no cargo (prefix ~)" \
			"$why; install Rust (https://rustup.rs) and reload, or set @agent-wizard-bin"
	fi
}

main() {
	local bin candidate running=""
	VERSION="$(checkout_version)"
	CARGO="$(find_cargo)"
	bin="$(option @agent-wizard-bin)"
	if [ -n "$bin" ]; then
		# The user's own binary, whatever its version.
		bin="${bin/#\~/$HOME}"
		if [ -f "$bin" ] && [ -x "$bin" ]; then
			load "$bin" option
		else
			tell "@agent-wizard-bin is not an executable file" "@agent-wizard-bin is '$bin'"
		fi
		return
	fi
	for candidate in "$OWN_BUILD" "$OWN_DOWNLOAD" "$(command -v taw 2>/dev/null)"; do
		# Only a program that says it is taw: another `taw` on PATH is
		# someone else's.
		[ -n "$candidate" ] && [ -x "$candidate" ] && [ -n "$(version_of "$candidate")" ] || continue
		if is_wanted "$candidate"; then
			load "$candidate" "$(origin_of "$candidate")" || return
			# A checkout that builds its own, with newer sources: build them,
			# then load again.
			if [ "$candidate" = "$OWN_BUILD" ] && [ -n "$CARGO" ] && sources_newer_than_build; then
				build_then_load </dev/null >/dev/null 2>&1 &
			fi
			return
		fi
		[ -n "$running" ] || running="$candidate"
	done
	if [ -n "$running" ]; then
		# Another version (a `prefix + U` pulled a new tag): it runs while
		# this version's binary comes.
		load "$running" "$(origin_of "$running")"
		log "taw $(version_of "$running") is loaded while taw $VERSION is fetched"
	else
		tell "taw $VERSION is not here yet: fetching it (a minute at most)..."
	fi
	# In the background, so tmux is not held while it downloads or builds.
	obtain_then_load "$running" </dev/null >/dev/null 2>&1 &
}

# What went wrong is on the status line already; a non-zero status would
# only add tmux's own "returned 1" to it.
main || true
