#!/usr/bin/env bash
# run-reasonix.sh <tmux-socket-name> <target-pane> [workdir] [extra reasonix args...]
#
# Reasonix (npm reasonix, a Go program its platform package carries)
# against the agents lab's mock model. Writes a scratch HOME, turns its
# usage statistics off there (the question it asks at first start), and a
# reasonix.toml in the workdir naming one provider: the mock's OpenAI Chat
# Completions at http://127.0.0.1:$MOCK_PORT/v1, model lab-model, key from
# MOCK_API_KEY. Then types the launch command into the pane, in read-only
# mode: there every shell command asks (in its default workspace mode
# commands run in a bubblewrap sandbox without asking, and refuse to run
# where bwrap is missing).
#
# Env: MOCK_PORT (default 8765), AGENTS_LAB_HOME (default ~/.cache/agents-lab),
#      REASONIX_BIN (default $AGENTS_LAB_HOME/extra/reasonix/node_modules/.bin/reasonix),
#      REASONIX_LAB_HOME (scratch HOME, default $AGENTS_LAB_HOME/reasonix-home).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
lab_start reasonix "$@"
RHOME=${REASONIX_LAB_HOME:-$LAB_HOME/reasonix-home}
mkdir -p "$RHOME"
HOME=$RHOME "$BIN" config telemetry off >/dev/null 2>&1 || true

cat >"$WORKDIR/reasonix.toml" <<TOML
default_model = "lab-model"

[[providers]]
name = "mock"
kind = "openai"
base_url = "http://127.0.0.1:$PORT/v1"
api_key_env = "MOCK_API_KEY"
models = ["lab-model"]
default = "lab-model"
TOML

PROXY=http://127.0.0.1:$PORT
CMD=$(printf 'cd %q && env HOME=%q MOCK_API_KEY=sk-test HTTPS_PROXY=%s HTTP_PROXY=%s NO_PROXY=127.0.0.1,localhost %q --permission-mode read-only' \
    "$WORKDIR" "$RHOME" "$PROXY" "$PROXY" "$BIN")
lab_type "$CMD"
echo "run-reasonix.sh: started Reasonix ($BIN) in $SOCK:$PANE (workdir $WORKDIR, mock port $PORT)" >&2
