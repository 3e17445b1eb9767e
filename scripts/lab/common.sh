# Sourced by the run scripts of this folder: what each starts with.
#
# lab_start AGENT "$@": reads SOCKET PANE [WORKDIR], and sets SOCK, PANE,
# WORKDIR, LAB_HOME, PORT, BIN (from <AGENT>_BIN, else the npm bin that
# `scripts/lab-versions install AGENT` puts under $LAB_HOME/extra/AGENT) and
# EXTRA_ARGS (the agent's own arguments, after the workdir).
lab_start() {
	local agent=$1 var
	shift
	if [ $# -lt 2 ]; then
		echo "usage: run-$agent.sh <tmux-socket-name> <target-pane> [workdir] [extra $agent args...]" >&2
		exit 2
	fi
	SOCK=$1 PANE=$2
	WORKDIR=$(cd "${3:-$PWD}" && pwd -P)
	shift $(($# < 3 ? $# : 3))
	EXTRA_ARGS=("$@")
	LAB_HOME=${AGENTS_LAB_HOME:-$HOME/.cache/agents-lab}
	PORT=${MOCK_PORT:-8765}
	var=${agent^^}_BIN
	BIN=${!var:-$LAB_HOME/extra/$agent/node_modules/.bin/$agent}
	if [ ! -x "$BIN" ]; then
		echo "run-$agent.sh: no $agent at $BIN; install it with scripts/lab-versions install $agent" >&2
		exit 1
	fi
}

# lab_type COMMAND: types the launch command into the pane, with the
# agent's own arguments, and Enter.
lab_type() {
	local command=$1 a
	for a in "${EXTRA_ARGS[@]}"; do command+=" $(printf %q "$a")"; done
	tmux -L "$SOCK" send-keys -t "$PANE" -l "$command"
	tmux -L "$SOCK" send-keys -t "$PANE" Enter
}
