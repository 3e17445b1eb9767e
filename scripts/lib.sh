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

# Node.js and npm, which the agents lab installs its agents with.
ensure_node() {
	command -v npm >/dev/null 2>&1 && return 0
	apt_install nodejs || true
	command -v npm >/dev/null 2>&1 || apt_install npm || true
	command -v npm >/dev/null 2>&1 ||
		echo "npm is not installed: the agents lab will be skipped" >&2
}

# Debian's chromium, in which tests/suite/web_page.rs checks the web page
# (headless, driven through its DevTools protocol).
ensure_chromium() {
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
		apt_install chromium ||
		echo "chromium is not installed: the web page test will be skipped" >&2
}

# Debian's Podman, with runc (it runs where crun cannot: hybrid cgroups)
# and busybox-static, of which tests/suite/sandbox.rs builds its image.
ensure_podman() {
	command -v podman >/dev/null 2>&1 || apt_install podman || true
	command -v runc >/dev/null 2>&1 || apt_install runc || true
	[ -x /bin/busybox ] || apt_install busybox-static || true
	command -v podman >/dev/null 2>&1 ||
		echo "podman is not installed: the sandbox tests use their stand-in runtime alone" >&2
}

# Debian's openssh-server, whose sshd tests/suite/machines.rs runs as a second
# machine on 127.0.0.1 (never as a service of this machine's).
ensure_sshd() {
	[ -x /usr/sbin/sshd ] || apt_install openssh-server ||
		echo "sshd is not installed: the machine tests will be skipped" >&2
	command -v ssh-keygen >/dev/null 2>&1 || apt_install openssh-client || true
}

# What the tests' plugins and downloads run with: python3, curl, and wget
# (the plugin's download of a release, tried with each: tests/suite/install.rs).
ensure_plugin_tools() {
	command -v python3 >/dev/null 2>&1 || apt_install python3 || true
	command -v curl >/dev/null 2>&1 || apt_install curl || true
	command -v wget >/dev/null 2>&1 || apt_install wget || true
}

# Everything the test suite runs: tmux, cargo, git, jq, node, the real
# plugins' tools, chromium, podman, sshd.
ensure_test_tools() {
	ensure_tmux
	ensure_cargo
	command -v git >/dev/null 2>&1 || apt_install git || true
	ensure_jq
	ensure_node
	ensure_plugin_tools
	ensure_chromium
	ensure_podman
	ensure_sshd
}
