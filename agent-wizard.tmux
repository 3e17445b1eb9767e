#!/usr/bin/env bash
# tmux-agent-wizard's TPM entry point. tmux runs it (TPM's run-shell, or a
# `run-shell` line of your own). It finds the taw binary, building it with
# cargo when there is none, then hands over to `taw tmux load`, which puts
# the hooks, keys, option defaults and PATH entry into tmux.
#
# The binary, in order: the @agent-wizard-bin option; this plugin's own
# release build; `taw` on PATH. With none, cargo builds it in the
# background and the load finishes when the build does.

set -u

PLUGIN_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OWN_BUILD="$PLUGIN_DIR/target/release/taw"
STATE_DIR="${TAW_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/tmux-agent-wizard}"
LOG_DIR="$STATE_DIR/logs"

# A message on the status line. tmux reads it as a format: `#` is doubled,
# so text in it (a path, what a command printed) shows as itself.
message() {
	local text="agent-wizard: $*"
	tmux display-message "${text//#/##}"
}

# The binary to run, or nothing. Prints the path.
find_bin() {
	local bin
	bin="$(tmux show-option -gqv @agent-wizard-bin)"
	if [ -n "$bin" ]; then
		bin="${bin/#\~/$HOME}"
		if [ -f "$bin" ] && [ -x "$bin" ]; then
			printf '%s\n' "$bin"
			return 0
		fi
		message "@agent-wizard-bin is '$bin', which is not an executable file"
		return 2
	fi
	if [ -x "$OWN_BUILD" ]; then
		printf '%s\n' "$OWN_BUILD"
		return 0
	fi
	bin="$(command -v taw 2>/dev/null)" || return 1
	[ -n "$bin" ] && printf '%s\n' "$bin"
}

# cargo, from PATH or rustup's usual place (tmux's PATH may not have it).
find_cargo() {
	command -v cargo 2>/dev/null && return 0
	[ -x "$HOME/.cargo/bin/cargo" ] && printf '%s\n' "$HOME/.cargo/bin/cargo"
}

# Runs `taw tmux load`. A load that fails with its error (status 1) has
# said why on the status line itself, in words; anything else (taw did not
# run, or stopped on a signal) is said here.
load() {
	local bin="$1" errors status
	errors="$("$bin" tmux load --bin "$bin" 2>&1 >/dev/null)"
	status=$?
	if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
		message "loading failed (status $status): ${errors:0:300}"
	fi
	[ "$status" -eq 0 ]
}

# Whether the plugin's sources are newer than its own build (a TPM update).
sources_newer_than_build() {
	[ -n "$(find "$PLUGIN_DIR/src" "$PLUGIN_DIR/Cargo.toml" "$PLUGIN_DIR/Cargo.lock" \
		-newer "$OWN_BUILD" -print -quit 2>/dev/null)" ]
}

# Builds the release binary, then loads it. Runs in the background.
build_then_load() {
	local log="$LOG_DIR/build.log"
	mkdir -p "$LOG_DIR"
	message "building taw with cargo (the first time takes a minute or two)..."
	if (cd "$PLUGIN_DIR" && "$CARGO" build --release --locked) >"$log" 2>&1; then
		load "$OWN_BUILD" && message "taw is built and loaded"
	else
		message "building taw failed; the log is $log"
	fi
}

main() {
	local bin status
	CARGO="$(find_cargo)"
	bin="$(find_bin)"
	status=$?
	[ "$status" -eq 2 ] && return 1
	if [ -n "$bin" ]; then
		load "$bin" || return 1
		# A TPM update brings new sources: build them, then load again.
		if [ "$bin" = "$OWN_BUILD" ] && [ -n "$CARGO" ] &&
			sources_newer_than_build; then
			build_then_load </dev/null >/dev/null 2>&1 &
		fi
		return 0
	fi
	if [ -z "$CARGO" ]; then
		message "no taw binary and no cargo: install Rust (https://rustup.rs) and reload, or set @agent-wizard-bin"
		return 1
	fi
	# In the background, so tmux is not held while cargo works.
	build_then_load </dev/null >/dev/null 2>&1 &
}

# What went wrong is on the status line already; a non-zero status would
# only add tmux's own "returned 1" to it.
main || true
