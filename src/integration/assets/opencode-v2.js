// taw (tmux-agent-wizard) plugin for OpenCode 2's terminal: tells taw
// which session this tmux pane shows and what it is doing. cli.json names
// this folder ("./taw-opencode"); `taw integration install opencode` wrote
// it, `taw integration uninstall opencode` takes it out.
// TAW_INTEGRATION_ID=@TARGET@
// TAW_INTEGRATION_VERSION=@VERSION@
//
// It reports under the same source as the server plugin, numbering its
// reports from the microsecond it loaded: of the two, the later loaded
// wins. Outside a tmux pane, or with no taw to be found, it does nothing.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

const SOURCE = "@SOURCE@";
const AGENT = "@AGENT@";
const INSTALLED_BY = @FALLBACK_JSON@;

@FIND_TAW@

const STATES = {
  "session.execution.started": "working",
  "session.execution.succeeded": "idle",
  "session.execution.interrupted": "idle",
  "session.execution.failed": "idle",
  "permission.asked": "blocked",
  "permission.replied": "working",
  "form.created": "blocked",
  "form.replied": "working",
  "form.cancelled": "working",
};

function setup(api) {
  const env = process.env;
  const pane = env.TMUX_PANE;
  const taw = pane && env.TMUX ? findTaw(env) : null;
  if (!taw || !api) return;
  let seq = Date.now() * 1000;
  let said = "";
  const run = (args) => {
    try {
      const child = spawn(taw, args, { stdio: "ignore", detached: true });
      child.on("error", () => {});
      child.unref();
    } catch {}
  };
  const shown = () => {
    try {
      const route = api.ui && api.ui.router && api.ui.router.current && api.ui.router.current();
      return route && route.type === "session" ? route.sessionID : null;
    } catch {
      return null;
    }
  };
  const report = (state) => {
    const session = shown();
    const now = `${state} ${session || ""}`;
    if (now === said) return;
    said = now;
    seq += 1;
    const args = ["pane", "report-agent", pane, "--source", SOURCE, "--agent", AGENT, "--state", state, "--seq", String(seq)];
    if (session) args.push("--agent-session-id", session);
    run(args);
  };
  try {
    api.data.listen((message) => {
      try {
        const type = message && (message.type || (message.details && message.details.type));
        const state = STATES[type];
        if (state) report(state);
      } catch {}
    });
  } catch {}
}

export default { id: "taw.opencode", setup, tui: () => {} };
