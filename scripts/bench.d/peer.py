#!/usr/bin/env python3
"""A peer side by side, for scripts/bench: claude-tmux-status (PyPI), which
reads a window's screen each time it is run, and taw, whose watchers read a
pane when it prints, on the same panes showing the same recorded screens of
the agents lab.

usage: peer.py <taw> <agent-wizard.tmux> <peer program> <screens folder> <work folder>

Each pane runs a stand-in named after its agent (so taw's process rule
knows it) that draws the screen whose path it reads from its FIFO. Prints:
  - the time from a screen change to each tool's answer: taw's, measured
    (@agent_state written); the peer's, its run time plus half its period
    (p50) or the whole period (worst), since it answers only when run;
  - the CPU of one query over 10 and 50 agent panes (the tool's processes
    and the tmux server's share);
  - the CPU a minute of each tool's always-on setup with 10 idle agents:
    the peer run every PERIOD seconds, taw's watchers left alone;
and the ratio peer / taw of each.
"""
import os
import resource
import statistics
import subprocess
import sys
import time

taw, entry, peer, screens, work = sys.argv[1:6]
# The peer is a command to run, from tmux's status line (#(...)) or a
# loop; its README names no period, so tmux's default status-interval.
PERIOD = 15.0
SOCKET = "taw-bench-peer"
os.makedirs(work, exist_ok=True)
env = dict(os.environ, TMUX_TMPDIR=work)


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCKET, *args], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


HZ = os.sysconf("SC_CLK_TCK")
STAND_IN = r'''#!/usr/bin/env python3
import os, sys
fifo = sys.argv[1]
while True:
    with open(fifo) as control:
        for line in control:
            text = open(line.strip(), encoding="utf-8", errors="replace").read()
            sys.stdout.write("\x1b[H\x1b[2J" + text.replace("\n", "\r\n"))
            sys.stdout.flush()
'''


def stand_in(agent):
    folder = os.path.join(work, "bin-" + agent)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, agent)
    with open(path, "w") as out:
        out.write(STAND_IN)
    os.chmod(path, 0o755)
    return path


def show(index, screen):
    with open(os.path.join(work, f"fifo-{index}"), "w") as control:
        control.write(screen + "\n")


def state(pane):
    return tmux("display-message", "-p", "-t", pane, "#{@agent_state}")


def screen(agent, name):
    return os.path.join(screens, agent, name + ".txt")


# 50 windows of one session, each a pane with a stand-in agent: claude,
# codex and gemini in turn, at their idle screens; the plugin loaded.
AGENTS = ["claude", "codex", "gemini"]
tmux("-f", "/dev/null", "new-session", "-d", "-s", "peer", "-x", "120", "-y", "40")
tmux("set-option", "-g", "@agent-wizard-bin", taw)
tmux("run-shell", entry)
panes = []
for index in range(50):
    agent = AGENTS[index % 3]
    fifo = os.path.join(work, f"fifo-{index}")
    os.mkfifo(fifo)
    pane = tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", f"peer:{index + 1}",
                "-n", f"a{index}", f"exec {stand_in(agent)} {fifo}")
    panes.append((pane, agent))
    show(index, screen(agent, "idle-1"))
server = int(tmux("display-message", "-p", "#{pid}"))
socket_path = tmux("display-message", "-p", "#{socket_path}")
peer_env = dict(env, TMUX=f"{socket_path},{server},0")
deadline = time.time() + 60
while any(state(p) != "idle" for p, _ in panes) and time.time() < deadline:
    time.sleep(0.2)
print(f"peer: {sum(state(p) == 'idle' for p, _ in panes)} of 50 stand-ins read idle by taw", file=sys.stderr)

# 1. A screen change to the answer. taw: idle to working and back on the
# first pane, 20 times each way.
pane, agent = panes[0]
latencies = []
for turn in range(40):
    # Back from working, a turn nobody watched ends done.
    target, name = (("working",), "working-1") if turn % 2 == 0 else (("idle", "done"), "idle-1")
    started = time.perf_counter()
    show(0, screen(agent, name))
    while state(pane) not in target:
        if time.perf_counter() - started > 10:
            sys.exit(f"peer: taw did not read {name} of {agent} as {target}: it says {state(pane)!r}")
        time.sleep(0.002)
    latencies.append((time.perf_counter() - started) * 1000)
latencies.sort()
taw_p50 = statistics.median(latencies)
taw_p95 = latencies[int(len(latencies) * 0.95) - 1]


def peer_query(windows):
    """One run of the peer over `windows`: its wall time and the CPU of it
    (its processes) and of the tmux server, in ms."""
    before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    before_server = ticks(server)
    started = time.perf_counter()
    out = subprocess.run([peer, *[f"peer:{w}" for w in windows]], env=peer_env,
                         capture_output=True, text=True, check=True).stdout
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = (after.ru_utime - before_children.ru_utime + after.ru_stime - before_children.ru_stime) * 1000
    server_ms = (ticks(server) - before_server) * 1000 / HZ
    return wall, own + server_ms, out


def taw_query():
    before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    before_server = ticks(server)
    started = time.perf_counter()
    subprocess.run([taw, "-L", SOCKET, "agent", "list"], env=env, capture_output=True, check=True)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = (after.ru_utime - before_children.ru_utime + after.ru_stime - before_children.ru_stime) * 1000
    return wall, own + (ticks(server) - before_server) * 1000 / HZ


runs = [peer_query([1]) for _ in range(10)]
peer_run = statistics.median(r[0] for r in runs)
peer_p50 = PERIOD * 1000 / 2 + peer_run
peer_worst = PERIOD * 1000 + peer_run
print(f"peer: the answer after a screen change: taw p50 {taw_p50:.0f} ms, p95 {taw_p95:.0f} ms; "
      f"claude-tmux-status run every {PERIOD:.0f} s (run {peer_run:.0f} ms) p50 {peer_p50:.0f} ms, "
      f"worst {peer_worst:.0f} ms; peer/taw {peer_p50 / taw_p50:.0f}x at p50")
sample = runs[0][2].strip()

# 2. One query's CPU over 10 and 50 agent panes.
for count in (10, 50):
    peer_cpu = statistics.median(peer_query(range(1, count + 1))[1] for _ in range(5))
    taw_cpu = statistics.median(taw_query()[1] for _ in range(5))
    print(f"peer: CPU of one query over {count} agent panes: claude-tmux-status {peer_cpu:.0f} ms, "
          f"taw agent list {taw_cpu:.0f} ms; peer/taw {peer_cpu / max(taw_cpu, 0.1):.1f}x")

# 3. Always on, 10 idle agents, a minute: the peer's runs; taw's watchers
# (every pane's, idle) and the tmux server, measured over 20 s.
for index in range(10, 50):
    tmux("kill-window", "-t", f"peer:{index + 1}")
time.sleep(1)
peer_minute = (60 / PERIOD) * statistics.median(peer_query(range(1, 11))[1] for _ in range(5))
watchers = [int(w.split()[1]) for w in tmux("list-panes", "-a", "-F", "#{@agent_wizard_watcher}").splitlines()
            if len(w.split()) == 2]
before = sum(ticks(w) for w in watchers) + ticks(server)
time.sleep(20)
taw_minute = (sum(ticks(w) for w in watchers) + ticks(server) - before) * 1000 / HZ * 3
ratio = f"{peer_minute / taw_minute:.0f}x" if taw_minute > 0 else "taw used none it could measure"
print(f"peer: CPU a minute, always on, 10 idle agents: claude-tmux-status every {PERIOD:.0f} s "
      f"{peer_minute:.0f} ms, taw's {len(watchers)} watchers and tmux {taw_minute:.0f} ms; peer/taw {ratio}")
print(f"peer: its answer for window 1: {sample!r}")
tmux("kill-server")
