# Shared by scripts/test and scripts/try. Source it; it defines functions only.

# Makes sure tmux 3.2 or newer is there: installs it with apt-get when run as
# root on a Debian-like system, else says how to.
# Installs Debian package $1 with apt-get when we are root; fails otherwise.
apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
	echo "$1 is missing; installing it with apt-get" >&2
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null ||
		{ echo "could not install $1 with apt-get" >&2; return 1; }
}

# jq, which the herdr script in tests/fixtures uses, as herdr's own
# examples do. Its test needs it only where the agents lab runs.
ensure_jq() {
	command -v jq >/dev/null 2>&1 || apt_install jq ||
		echo "jq is not installed: the herdr script test will be skipped" >&2
}

ensure_tmux() {
	if ! command -v tmux >/dev/null 2>&1; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
			apt_install tmux || return 1
		else
			echo "tmux is not installed: install tmux 3.2 or newer (apt install tmux, brew install tmux...) and run this again" >&2
			return 1
		fi
	fi
	local version
	version="$(tmux -V | sed -E 's/^tmux (next-)?([0-9]+)\.([0-9]+).*/\2 \3/')"
	set -- $version
	if [ "${1:-0}" -lt 3 ] || { [ "${1:-0}" -eq 3 ] && [ "${2:-0}" -lt 2 ]; }; then
		echo "$(tmux -V) is too old: tmux-agent-wizard needs tmux 3.2 or newer" >&2
		return 1
	fi
}

# Makes sure cargo is there (rustup's usual place counts).
ensure_cargo() {
	if ! command -v cargo >/dev/null 2>&1; then
		if [ -x "$HOME/.cargo/bin/cargo" ]; then
			PATH="$HOME/.cargo/bin:$PATH"
		else
			echo "cargo is not installed: install Rust from https://rustup.rs and run this again" >&2
			return 1
		fi
	fi
}
