#!/usr/bin/env bash
# run-kilo.sh <tmux-socket-name> <target-pane> [workdir] [extra kilo args...]
#
# Kilo Code CLI (npm @kilocode/cli, an OpenCode fork) against the agents lab's
# mock model. Writes a scratch HOME (XDG config/data/cache/state inside it)
# whose ~/.config/kilo/kilo.json adds a "mock" provider
# (@ai-sdk/openai-compatible, bundled in the binary) with baseURL
# http://127.0.0.1:$MOCK_PORT/v1, makes it the only enabled provider and the
# default model, and sets bash and edit to "ask" (like OpenCode, Kilo would
# otherwise run them without asking). Then types the kilo launch command into
# the pane.
#
# Env: MOCK_PORT (default 8765), AGENTS_LAB_HOME (default ~/.cache/agents-lab),
#      KILO_BIN (default $AGENTS_LAB_HOME/extra/kilo/node_modules/.bin/kilo),
#      KILO_LAB_HOME (scratch HOME, default $AGENTS_LAB_HOME/kilo-home).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
lab_start kilo "$@"
KILO_BIN=$BIN
KHOME=${KILO_LAB_HOME:-$LAB_HOME/kilo-home}
CONF=$KHOME/.config/kilo
mkdir -p "$CONF"

python3 - "$CONF" "$PORT" <<'EOF'
import json, sys
conf, port = sys.argv[1:]
json.dump({
    "$schema": "https://app.kilo.ai/config.json",
    "autoupdate": False, "share": "disabled",
    "model": "mock/mock-model", "small_model": "mock/mock-model",
    "enabled_providers": ["mock"],
    "provider": {"mock": {
        "npm": "@ai-sdk/openai-compatible", "name": "agents-lab mock",
        "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "sk-test"},
        "models": {"mock-model": {"name": "Mock model", "tool_call": True}}}},
    "permission": {"bash": "ask", "edit": "ask"},
}, open(f"{conf}/kilo.json", "w"), indent=2)
EOF
# (Unlike OpenCode 1.18, Kilo 7.7.7 runs no "npm install" of its plugin
# package in the config folder at start: nothing to pre-seed there.)

# No update check, models fetch, share, session ingest, LSP downloads, default
# plugins, Claude Code files or telemetry; other HTTP(S) goes to the mock as a
# proxy, which refuses it (and logs the host).
PROXY=http://127.0.0.1:$PORT
CMD=$(printf 'cd %q && env HOME=%q XDG_CONFIG_HOME=%q XDG_DATA_HOME=%q XDG_CACHE_HOME=%q XDG_STATE_HOME=%q KILO_DISABLE_AUTOUPDATE=1 KILO_DISABLE_MODELS_FETCH=1 KILO_DISABLE_SHARE=1 KILO_DISABLE_SESSION_INGEST=1 KILO_DISABLE_LSP_DOWNLOAD=1 KILO_DISABLE_DEFAULT_PLUGINS=1 KILO_DISABLE_CLAUDE_CODE=1 KILO_TELEMETRY_LEVEL=off HTTPS_PROXY=%s HTTP_PROXY=%s NO_PROXY=127.0.0.1,localhost %q' \
    "$WORKDIR" "$KHOME" "$KHOME/.config" "$KHOME/.local/share" "$KHOME/.cache" "$KHOME/.local/state" \
    "$PROXY" "$PROXY" "$KILO_BIN")
lab_type "$CMD"
echo "run-kilo.sh: started Kilo Code CLI ($KILO_BIN) in $SOCK:$PANE (workdir $WORKDIR, mock port $PORT)" >&2
