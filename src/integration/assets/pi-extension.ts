// taw (tmux-agent-wizard) extension for @NAME@: tells taw what the agent
// in this tmux pane is doing (working, waiting on a question or a
// confirmation, idle) and which session it runs. `taw integration install
// @TARGET@` wrote it and writes it again on every install; `taw integration
// uninstall @TARGET@` takes it out. Put extensions of your own in files of
// their own.
// TAW_INTEGRATION_ID=@TARGET@
// TAW_INTEGRATION_VERSION=@VERSION@
//
// Outside a tmux pane, or with no taw to be found, it does nothing. Each
// report is a `taw pane report-agent` started in the background, so the
// agent never waits for taw; its numbers start at the microsecond the
// extension loaded, so a later report always wins. Another extension can
// say the agent waits on its person with
// pi.events.emit("taw:blocked", { active: true }) and { active: false }
// (herdr's "herdr:blocked" is heard too).
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const SOURCE = "@SOURCE@";
const AGENT = "@AGENT@";
const INSTALLED_BY = @FALLBACK_JSON@;

@FIND_TAW@

const DIALOGS = ["select", "confirm", "input", "editor", "custom"];

export default function (pi: any) {
  const env = process.env;
  const pane = env.TMUX_PANE;
  const taw = pane && env.TMUX ? findTaw(env) : null;
  if (!taw) return;
  let seq = Date.now() * 1000;
  let running = false;
  let waits = 0;
  let said = "";
  let session: { id?: string; path?: string } = {};

  const run = (args: string[]) => {
    try {
      const child = spawn(taw, args, { stdio: "ignore", detached: true });
      child.on("error", () => {});
      child.unref();
    } catch {
      // taw is gone: nothing to tell.
    }
  };
  const sessionArgs = (): string[] => {
    const args: string[] = [];
    if (session.path) args.push("--agent-session-path", session.path);
    if (session.id) args.push("--agent-session-id", session.id);
    return args;
  };
  const report = (state: string) => {
    const now = `${state} ${session.id || ""} ${session.path || ""}`;
    if (now === said) return;
    said = now;
    seq += 1;
    run(["pane", "report-agent", pane as string, "--source", SOURCE, "--agent", AGENT, "--state", state, "--seq", String(seq), ...sessionArgs()]);
  };
  const settle = () => report(waits > 0 ? "blocked" : running ? "working" : "idle");
  const learn = (ctx: any) => {
    try {
      const manager = ctx && ctx.sessionManager;
      const file = manager && manager.getSessionFile && manager.getSessionFile();
      const id = manager && manager.getSessionId && manager.getSessionId();
      session = {
        path: typeof file === "string" && isAbsolute(file) ? file : undefined,
        id: typeof id === "string" && id ? id : undefined,
      };
    } catch {}
  };
  // A dialog on screen (a question, a confirmation another extension
  // asks) is the agent waiting on its person: each of ctx.ui's dialogs
  // counts as a wait while it is open.
  const watchDialogs = (ctx: any) => {
    const ui = ctx && ctx.ui;
    if (!ui || ui.__tawWatched) return;
    try {
      for (const name of DIALOGS) {
        const original = ui[name];
        if (typeof original !== "function") continue;
        ui[name] = function (...args: any[]) {
          waits += 1;
          settle();
          const done = () => {
            waits = Math.max(0, waits - 1);
            settle();
          };
          try {
            const result = original.apply(this, args);
            if (result && typeof result.then === "function") {
              return result.then(
                (value: any) => {
                  done();
                  return value;
                },
                (error: any) => {
                  done();
                  throw error;
                },
              );
            }
            done();
            return result;
          } catch (error) {
            done();
            throw error;
          }
        };
      }
      ui.__tawWatched = true;
    } catch {}
  };
  const on = (event: string, handler: (event: any, ctx: any) => void) => {
    try {
      pi.on(event, async (e: any, ctx: any) => {
        try {
          watchDialogs(ctx);
          handler(e, ctx);
        } catch {}
      });
    } catch {}
  };

  on("session_start", (event, ctx) => {
    if (ctx && ctx.hasUI === false) return;
    learn(ctx);
    seq += 1;
    const start = event && typeof event.reason === "string" ? event.reason : "startup";
    const known = ["startup", "resume", "clear", "compact", "new", "fork"].includes(start);
    run(["pane", "report-agent-session", pane as string, "--source", SOURCE, "--agent", AGENT, "--seq", String(seq), ...sessionArgs(), ...(known ? ["--session-start-source", start] : [])]);
    settle();
  });
  on("session_switch", (_event, ctx) => {
    learn(ctx);
    settle();
  });
  on("agent_start", (_event, ctx) => {
    learn(ctx);
    running = true;
    settle();
  });
  on("tool_call", () => settle());
  on("agent_end", () => {
    running = false;
    settle();
  });
  for (const name of ["taw:blocked", "herdr:blocked"]) {
    try {
      pi.events.on(name, (data: any) => {
        waits = Math.max(0, waits + (data && data.active === false ? -1 : 1));
        settle();
      });
    } catch {}
  }
}
