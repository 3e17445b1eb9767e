#!/usr/bin/env bash
# run-qwen.sh <tmux-socket-name> <target-pane> [workdir] [extra qwen args...]
#
# Qwen Code (npm @qwen-code/qwen-code, a Gemini CLI fork) against the agents
# lab's mock model. Writes a scratch HOME whose ~/.qwen/settings.json selects
# the OpenAI-compatible auth ("openai": Chat Completions at
# http://127.0.0.1:$MOCK_PORT/v1, key sk-test, model mock-model) and turns off
# the update check, usage statistics, telemetry, the IDE nudge, the folder
# trust dialog, the feedback and welcome-back dialogs, the follow-up
# suggestion (a side request whose echo would show as ghost text in the
# input), the background memory agent and ripgrep (the npm package ships its
# rg without the executable bit: a warning box at start). Then types the qwen
# launch command into the pane. The same endpoint is also given as
# OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL.
#
# herdr has no id for Qwen Code; "qwen" is the name of its binary.
#
# Env: MOCK_PORT (default 8765), AGENTS_LAB_HOME (default ~/.cache/agents-lab),
#      QWEN_BIN (default $AGENTS_LAB_HOME/extra/qwen/node_modules/.bin/qwen),
#      QWEN_LAB_HOME (scratch HOME, default $AGENTS_LAB_HOME/qwen-home),
#      QWEN_LAB_APPROVAL (approval mode, default "default": every shell
#      command and edit asks; also plan, auto-edit, auto = Qwen's own default).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
lab_start qwen "$@"
QWEN_BIN=$BIN
QHOME=${QWEN_LAB_HOME:-$LAB_HOME/qwen-home}
mkdir -p "$QHOME/.qwen"

python3 - "$QHOME/.qwen" "$PORT" "${QWEN_LAB_APPROVAL:-default}" <<'EOF'
import json, sys
conf, port, approval = sys.argv[1:]
base = f"http://127.0.0.1:{port}/v1"
json.dump({
    "security": {"auth": {"selectedType": "openai", "apiKey": "sk-test", "baseUrl": base},
                 "folderTrust": {"enabled": False}},
    "model": {"name": "mock-model"},
    "modelProviders": {"openai": [{"id": "mock-model", "name": "agents-lab mock",
                                   "baseUrl": base, "envKey": "OPENAI_API_KEY"}]},
    "general": {"enableAutoUpdate": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "ide": {"enabled": False, "hasSeenNudge": True},
    "ui": {"enableFollowupSuggestions": False, "enableUserFeedback": False,
           "enableWelcomeBack": False},
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    "tools": {"approvalMode": approval, "useRipgrep": False},
}, open(f"{conf}/settings.json", "w"), indent=2)
EOF

# Anything else it tries over HTTP(S) goes to the mock as a proxy, which
# refuses it and logs the host.
PROXY=http://127.0.0.1:$PORT
CMD=$(printf 'cd %q && env HOME=%q OPENAI_API_KEY=sk-test OPENAI_BASE_URL=%s OPENAI_MODEL=mock-model HTTPS_PROXY=%s HTTP_PROXY=%s NO_PROXY=127.0.0.1,localhost %q' \
    "$WORKDIR" "$QHOME" "$PROXY/v1" "$PROXY" "$PROXY" "$QWEN_BIN")
lab_type "$CMD"
echo "run-qwen.sh: started Qwen Code ($QWEN_BIN) in $SOCK:$PANE (workdir $WORKDIR, mock port $PORT)" >&2
