#!/bin/sh
# taw's own sandbox profile. `taw sandbox` runs it as
#   default <the agent's program> [its arguments]...
# with what it knows in TAW_* variables (docs/SANDBOX.md), and it becomes
# the agent's container in the pane. taw writes this file again when it
# differs from the one its build carries: `taw sandbox new <name>` copies
# it into a profile of your own, to change.
set -eu
set -f

dir=${TAW_SANDBOX_DIR:-$PWD}

refuse() {
	echo "taw sandbox: $*" >&2
	exit 1
}

# The folder is mounted whole: never the home or a folder above it, which
# would bring its keys and every other file (checked here too, so that a
# copy of this profile keeps the check).
home_real=$(cd "${HOME:-/nonexistent}" 2>/dev/null && pwd -P) || home_real=
dir_real=$(cd "$dir" 2>/dev/null && pwd -P) || dir_real=$dir
if [ -n "$home_real" ]; then
	case $dir_real in
	/) refuse "the sandbox mounts the folder it starts in, and / holds your home: start it in a project's folder" ;;
	esac
	case "$home_real/" in
	"$dir_real"/*) refuse "the sandbox mounts the folder it starts in, and $dir is your home or holds it: start it in a project's folder" ;;
	esac
fi
# A volume is `path:path`: a path with a `:` in it cannot be one.
case $dir in
*:*) refuse "$dir holds a ':', which a volume cannot mount: start it in a folder without one" ;;
esac

runtime=${TAW_RUNTIME:-}
if [ -z "$runtime" ]; then
	for candidate in docker podman; do
		if command -v "$candidate" >/dev/null 2>&1; then
			runtime=$candidate
			break
		fi
	done
fi
if [ -z "$runtime" ]; then
	echo "taw sandbox: no container runtime: install Docker or Podman, or set [sandbox] runtime" >&2
	exit 1
fi

agent=${TAW_SANDBOX_AGENT:?taw sandbox sets TAW_SANDBOX_AGENT}
image=${TAW_SANDBOX_IMAGE:-}

# No image named: one with the agent's npm package, built once.
if [ -z "$image" ]; then
	package=${TAW_SANDBOX_PACKAGE:-}
	if [ -z "$package" ]; then
		echo "taw sandbox: taw has no image recipe for $agent; name an image with [sandbox] image" >&2
		exit 1
	fi
	image="taw-sandbox-$agent"
	if ! "$runtime" image inspect "$image" >/dev/null 2>&1; then
		echo "taw sandbox: building the image $image, once" >&2
		recipe=$(mktemp -d)
		trap 'rm -rf "$recipe"' EXIT INT TERM
		printf 'FROM %s\nRUN npm install -g %s && npm cache clean --force\n' \
			"${TAW_SANDBOX_BASE_IMAGE:-docker.io/library/node:22-slim}" "$package" \
			>"$recipe/Containerfile"
		if ! "$runtime" build -t "$image" -f "$recipe/Containerfile" "$recipe" >&2; then
			rm -rf "$recipe"
			echo "taw sandbox: the image $image could not be built" >&2
			exit 1
		fi
		rm -rf "$recipe"
		trap - EXIT INT TERM
	fi
fi

# The agent's words are "$@"; the runtime's options go after them, and the
# agent's words are moved to the end at last.
words=$#
set -- "$@" run --rm -it "--workdir=$dir" "--volume=$dir:$dir" "--env=HOME=${HOME:-/root}" \
	"--label=org.tmux-agent-wizard.profile=${TAW_SANDBOX_PROFILE:-default}"

# Nothing else of the host is mounted than what is named here: the agent's
# config folders (made when missing) and files (when there), its login and
# sessions, each at its own path, so that the paths it records hold outside.
IFS='
'
for path in ${TAW_SANDBOX_MOUNTS:-}; do
	case $path in
	*:*)
		echo "taw sandbox: $path holds a ':', which a volume cannot mount: left out" >&2
		;;
	*/)
		path=${path%/}
		mkdir -p "$path"
		set -- "$@" "--volume=$path:$path"
		;;
	*)
		if [ -e "$path" ]; then
			set -- "$@" "--volume=$path:$path"
		fi
		;;
	esac
done
IFS=' '
# Variables go in by name: their values never show in the process list.
for name in ${TAW_SANDBOX_ENV:-}; do
	set -- "$@" "--env=$name"
done

if [ "${TAW_SANDBOX_NETWORK:-on}" = off ]; then
	set -- "$@" --network=none
fi
# Files the agent writes in its folder stay yours.
case $runtime in
podman)
	if [ "$(id -u)" != 0 ]; then
		set -- "$@" --userns=keep-id
	fi
	;;
*)
	set -- "$@" "--user=$(id -u):$(id -g)"
	;;
esac
set -- "$@" "$image"

while [ "$words" -gt 0 ]; do
	word=$1
	shift
	set -- "$@" "$word"
	words=$((words - 1))
done
exec "$runtime" "$@"
