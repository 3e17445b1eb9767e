# taw (tmux-agent-wizard) plugin for Hermes Agent: tells taw the session
# the agent in this tmux pane runs, so that taw can resume it. `taw
# integration install hermes` wrote it and writes it again on every
# install; `taw integration uninstall hermes` takes it out.
# TAW_INTEGRATION_ID=@TARGET@
# TAW_INTEGRATION_VERSION=@VERSION@
#
# Outside a tmux pane, or with no taw to be found, it does nothing. It
# hands the session to `taw integration hook hermes session` in the
# background and never waits for it or fails the agent.
import json
import os
import shutil
import subprocess

INSTALLED_BY = @FALLBACK_JSON@
PLATFORMS = ("cli", "tui", "desktop", "acp")
_told = {"session": None}


def _taw():
    env = os.environ
    for candidate in (
        env.get("TAW_BIN_PATH"),
        shutil.which("taw"),
        env.get("HERDR_BIN_PATH") if env.get("HERDR_ENV") == "1" else None,
        INSTALLED_BY,
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _tell(start, session_id=None, platform=None, **_):
    try:
        if platform not in PLATFORMS or not session_id:
            return
        # pre_llm_call comes before every call: tell a session once.
        if start == "resume" and _told["session"] == session_id:
            return
        _told["session"] = session_id
        if not os.environ.get("TMUX_PANE") or not os.environ.get("TMUX"):
            return
        taw = _taw()
        if taw is None:
            return
        child = subprocess.Popen(
            [taw, "integration", "hook", "hermes", "session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        child.stdin.write(json.dumps({"session_id": session_id, "source": start}).encode())
        child.stdin.close()
    except Exception:
        pass


def register(ctx):
    ctx.register_hook("on_session_start", lambda **kw: _tell("startup", **kw))
    ctx.register_hook("on_session_reset", lambda **kw: _tell("new", **kw))
    ctx.register_hook(
        "pre_llm_call",
        lambda **kw: _tell("resume", **kw) if kw.get("platform") == "cli" else None,
    )
