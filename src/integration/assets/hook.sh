#!/bin/sh
# taw (tmux-agent-wizard) hook for @NAME@: tells taw what the agent in
# this tmux pane is doing. `taw integration install @TARGET@` wrote it and
# writes it again on every install; `taw integration uninstall @TARGET@`
# takes it out. Put hooks of your own in files of their own.
# TAW_INTEGRATION_ID=@TARGET@
# TAW_INTEGRATION_VERSION=@VERSION@
#
# Outside a tmux pane, or with no taw to be found, it does nothing. It
# never fails the agent's hook and never prints: taw reads the agent's
# payload on standard input and reports it with `taw pane report-agent`.
[ -n "$TMUX_PANE" ] && [ -n "$TMUX" ] || exit 0
if [ -n "$TAW_BIN_PATH" ] && [ -x "$TAW_BIN_PATH" ]; then
	taw=$TAW_BIN_PATH
elif taw=$(command -v taw 2>/dev/null) && [ -n "$taw" ]; then
	:
elif [ "$HERDR_ENV" = 1 ] && [ -n "$HERDR_BIN_PATH" ] && [ -x "$HERDR_BIN_PATH" ]; then
	taw=$HERDR_BIN_PATH
elif [ -x @FALLBACK@ ]; then
	taw=@FALLBACK@
else
	exit 0
fi
"$taw" integration hook @TARGET@ "${1:-session}" >/dev/null 2>&1
exit 0
