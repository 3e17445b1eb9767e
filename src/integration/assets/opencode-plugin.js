// taw (tmux-agent-wizard) plugin for @NAME@: tells taw what the agent in
// this tmux pane is doing (working, waiting on a question, idle) and which
// session it runs. `taw integration install @TARGET@` wrote it and writes
// it again on every install; `taw integration uninstall @TARGET@` takes it
// out. Put plugins of your own in files of their own.
// TAW_INTEGRATION_ID=@TARGET@
// TAW_INTEGRATION_VERSION=@VERSION@
//
// Outside a tmux pane, or with no taw to be found, it does nothing. Each
// report is a `taw pane report-agent` started in the background, so the
// agent never waits for taw; its numbers start at the microsecond the
// plugin loaded, so a later report always wins.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

const SOURCE = "@SOURCE@";
const AGENT = "@AGENT@";
const INSTALLED_BY = @FALLBACK_JSON@;

@FIND_TAW@

const WORKING = new Set(["active", "busy", "pending", "retry", "running", "streaming", "working"]);

export const TawAgentState = async () => {
  const env = process.env;
  const pane = env.TMUX_PANE;
  const taw = pane && env.TMUX ? findTaw(env) : null;
  if (!taw) return {};
  let seq = Date.now() * 1000;
  // The pane's session (the one its person talks to), the sessions it
  // started (a task tool's), and what was said last.
  let root = null;
  const parents = new Map();
  let said = "";

  const run = (args) => {
    try {
      const child = spawn(taw, args, { stdio: "ignore", detached: true });
      child.on("error", () => {});
      child.unref();
    } catch {
      // taw is gone: nothing to tell.
    }
  };
  const rootOf = (id) => {
    let at = id;
    for (let hops = 0; at && parents.has(at) && hops < 32; hops++) at = parents.get(at);
    return at;
  };
  const report = (state, sessionID) => {
    const session = rootOf(sessionID) || root;
    if (sessionID && !parents.has(sessionID)) root = sessionID;
    const now = `${state} ${session || ""}`;
    if (now === said) return;
    said = now;
    seq += 1;
    const args = ["pane", "report-agent", pane, "--source", SOURCE, "--agent", AGENT, "--state", state, "--seq", String(seq)];
    if (session) args.push("--agent-session-id", session);
    run(args);
  };
  const newSession = (info) => {
    if (!info || !info.id) return;
    if (info.parentID) {
      parents.set(info.id, info.parentID);
      return;
    }
    root = info.id;
    seq += 1;
    run(["pane", "report-agent-session", pane, "--source", SOURCE, "--agent", AGENT, "--seq", String(seq), "--agent-session-id", info.id, "--session-start-source", "new"]);
  };
  // A session it started (a subagent's) only says it works or waits; its
  // idle is not the pane's.
  const child = (id) => Boolean(id && parents.has(id));

  return {
    "chat.message": async (input) => {
      try {
        report("working", input && input.sessionID);
      } catch {}
    },
    "tool.execute.before": async (input) => {
      try {
        report("working", input && input.sessionID);
      } catch {}
    },
    event: async ({ event }) => {
      try {
        const props = (event && event.properties) || {};
        const id = props.sessionID || (props.info && props.info.id);
        switch (event && event.type) {
          case "session.created":
            newSession(props.info);
            break;
          case "session.status": {
            const status = typeof props.status === "string" ? props.status : props.status && props.status.type;
            if (status === "idle") {
              if (!child(id)) report("idle", id);
            } else if (WORKING.has(status)) {
              report("working", id);
            }
            break;
          }
          case "session.idle":
            if (!child(id)) report("idle", id);
            break;
          case "permission.asked":
          case "permission.updated":
          case "question.asked":
          case "session.error":
            report("blocked", id);
            break;
          case "permission.replied":
          case "question.replied":
          case "question.rejected":
          case "session.compacted":
            report("working", id);
            break;
        }
      } catch {
        // Never the agent's problem.
      }
    },
  };
};
