#!/usr/bin/env python3
"""Part 11 of scripts/bench: taw at 50, 200 and 500 panes, each figure
beside its floor measured in the same run on the same server.

usage: scale.py <taw> <agent-wizard.tmux> <claude stand-in> <work dir> [sizes...]

For each size: a private tmux server (plain `sh` panes, 10 panes a session
in windows of two), 20 of its panes a Claude-like agent redrawing its
spinner every 100 ms. Rows:
  load        run-shell of the entry script (first load, and a reload)
              against `run-shell true`;
  memory      PSS of the watcher and of every relay tmux started for it,
              against a `cat` a pane (the least a pipe-pane can start);
  tmux CPU    the tmux server's CPU over 10 s with the 20 agents redrawing,
              taw loaded against taw unloaded;
  latency     a screen change to @agent_state written, against the same
              change to tmux's own %output (a control-mode client);
  pane get    `taw pane get %N` against `tmux display -p -t %N`;
  popup       the popup's first frame after its key, on a client attached
              from another server, against a bare `display-popup` whose
              program writes the time as it starts;
  web frame   a screen change to the WebSocket frame that shows it, against
              the same change to tmux's %output;
  idle CPU    the watcher's CPU over 10 s with every pane quiet.
  status      tmux's time to expand the status line once (what each redraw
              costs it: an agent's title, a key table, any option set),
              taw loaded against the same server before the load.
"""
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from wsclient import WebSocket

taw, entry, claude, work = sys.argv[1:5]
sizes = [int(n) for n in sys.argv[5:]] or [50, 200, 500]
AGENTS = 20
CHANGES = int(os.environ.get("SCALE_CHANGES", "30"))
# SCALE_ROWS="web popup" runs only those rows (the load always runs).
ROWS = os.environ.get("SCALE_ROWS", "memory cpu pane-get latency web popup idle status").split()
hz = os.sysconf("SC_CLK_TCK")


def ms():
    return time.monotonic() * 1000


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


class Server:
    def __init__(self, name):
        self.name = name
        self.base = ["tmux", "-L", name]

    def run(self, *args, check=True):
        out = subprocess.run(self.base + list(args), capture_output=True, text=True)
        if check and out.returncode != 0:
            raise SystemExit(f"tmux {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def batch(self, commands):
        # One invocation for many commands, as a script would.
        for start in range(0, len(commands), 200):
            args = []
            for command in commands[start:start + 200]:
                args += command + [";"]
            self.run(*args[:-1])

    def pid(self):
        return int(self.run("display-message", "-p", "#{pid}").strip())

    def panes(self):
        return self.run("list-panes", "-a", "-F", "#{pane_id}").split()


def ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except OSError:
        return 0


def pss_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        ppid = int(text.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            found.append((int(entry), comm))
    return found


def timed(command, runs=9):
    spent = []
    for _ in range(runs):
        started = ms()
        subprocess.run(command, capture_output=True)
        spent.append(ms() - started)
    return statistics.median(spent)


def wait_for(what, test, limit=120):
    deadline = time.time() + limit
    while not test():
        if time.time() > deadline:
            raise SystemExit(f"gave up waiting for {what}")
        time.sleep(0.1)


def make(size):
    server = Server(f"taw-scale-{size}")
    server.run("-f", "/dev/null", "new-session", "-d", "-s", "s0", "-x", "160", "-y", "50", "sh")
    server.run("set-option", "-g", "default-command", "exec sh")
    server.run("set-option", "-g", "@agent-wizard-bin", taw)
    commands = []
    made = 1
    session = 0
    while made < size:
        if made % 10 == 0:
            session += 1
            commands.append(["new-session", "-d", "-s", f"s{session}", "-x", "160", "-y", "50"])
        elif made % 2 == 0:
            commands.append(["new-window", "-d", "-t", f"s{session}:"])
        else:
            commands.append(["split-window", "-d", "-t", f"s{session}:$"])
        made += 1
    server.batch(commands)
    assert len(server.panes()) == size, server.panes()
    return server


def start_agents(server, socket_path):
    panes = server.panes()
    step = max(1, len(panes) // AGENTS)
    chosen = panes[1::step][:AGENTS]
    for pane in chosen:
        server.run("send-keys", "-t", pane,
                   f"exec '{claude}' '{socket_path}' '{pane}' 0 /dev/null spin", "Enter")
    return chosen


def watched(server):
    listed = server.run("list-panes", "-a", "-F", "#{pane_pipe}")
    return listed.split().count("1")


def watcher_pid(server):
    values = server.run("list-panes", "-a", "-F", "#{@agent_wizard_watcher}").split("\n")
    pids = {line.split()[1] for line in values if len(line.split()) >= 2}
    return int(pids.pop()) if len(pids) == 1 else None


def latency(server, socket_path, agents):
    """A change drawn by a stand-in agent: to tmux's %output (a control-mode
    client) and to @agent_state written, both from the moment it drew."""
    pane = [p for p in server.panes() if p not in agents][-1]
    log = f"{work}/latency-{server.name}.log"
    session = server.run("display-message", "-p", "-t", pane, "#{session_name}").strip()
    control = subprocess.Popen(server.base + ["-C", "attach", "-f", "ignore-size,read-only", "-t", session],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, errors="replace")
    outputs = []

    def read():
        for line in control.stdout:
            if line.startswith(f"%output {pane} "):
                outputs.append(time.time() * 1000)
    threading.Thread(target=read, daemon=True).start()
    server.run("send-keys", "-t", pane,
               f"exec '{claude}' '{socket_path}' '{pane}' {CHANGES} '{log}' drawn", "Enter")
    wait_for("the latency run", lambda: os.path.exists(log) and os.path.getsize(log) > 0, 600)
    control.stdin.close()
    control.terminate()
    state, floor = [], []
    with open(log) as lines:
        for line in lines:
            drawn, written = (int(x) for x in line.split())
            after = [t for t in outputs if t >= drawn - 1]
            if after:
                floor.append(after[0] - drawn)
            state.append(written - drawn)
    return state, floor


def wait_file(path, limit=30):
    """Waits for `path` to hold something, a few ms at a time."""
    deadline = time.time() + limit
    while not (os.path.exists(path) and os.path.getsize(path) > 0):
        if time.time() > deadline:
            raise SystemExit(f"gave up waiting for {path}")
        time.sleep(0.003)
    with open(path) as written:
        return int(written.read().split()[0])


def first_read_of(path):
    """Where the popup's first frame came from, as it noted: `listing` (the
    key's) or `read` (a tmux call)."""
    with open(path) as written:
        words = written.read().split()
    return words[1] if len(words) > 1 else "?"


def popup(server, socket_path):
    """The popup's first frame after prefix + a, and a bare display-popup's,
    on a client of another tmux server attached to this one."""
    outer = Server(f"{server.name}-outer")
    outer.run("-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50",
              f"exec env -u TMUX tmux -S '{socket_path}' attach -t s0")
    wait_for("the client", lambda: server.run("list-clients", "-F", "#{client_name}").strip() != "")
    frame = f"{work}/first-frame-{server.name}"
    bare = f"{work}/bare-popup-{server.name}"
    server.run("set-environment", "-g", "TAW_BENCH_FIRST_FRAME", frame)
    server.run("bind-key", "-n", "F9", "display-popup", "-E", f"date +%s%N > '{bare}'; sleep 0.3")
    time.sleep(1)
    taw_times, bare_times, sources = [], [], []
    for _ in range(9):
        for path, keys, close, times in ((frame, ["C-b", "a"], "q", taw_times), (bare, ["F9"], None, bare_times)):
            if os.path.exists(path):
                os.remove(path)
            pressed = time.time_ns()
            outer.run("send-keys", *keys)
            times.append((wait_file(path) - pressed) / 1e6)
            if close:
                sources.append(first_read_of(path))
            time.sleep(0.3)
            if close:
                outer.run("send-keys", close)
            time.sleep(0.5)
    outer.run("kill-server", check=False)
    server.run("set-environment", "-gu", "TAW_BENCH_FIRST_FRAME", check=False)
    listed = sources.count("listing")
    return statistics.median(taw_times), statistics.median(bare_times), f"{listed} of {len(sources)}"


def web_frame(server, agents):
    """A screen change (an echo in a quiet pane) to the WebSocket frame that
    shows it, and to tmux's %output of the same change."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    web = subprocess.Popen([taw, "-L", server.name, "web", "--listen", f"127.0.0.1:{port}"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state_dir = os.environ["TAW_STATE_DIR"]

    def listening():
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return os.path.exists(f"{state_dir}/web/token")
        except OSError:
            return False
    wait_for("the web server", listening)
    with open(f"{state_dir}/web/token") as kept:
        token = kept.read().strip()
    pane = [p for p in server.panes() if p not in agents][-2]
    session = server.run("display-message", "-p", "-t", pane, "#{session_name}").strip()
    control = subprocess.Popen(server.base + ["-C", "attach", "-f", "ignore-size,read-only", "-t", session],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, errors="replace")
    outputs = {}

    def read():
        for line in control.stdout:
            if line.startswith(f"%output {pane} ") and "bench-web-" in line:
                mark = line[line.index("bench-web-"):].split()[0].split("\\")[0]
                outputs.setdefault(mark, time.perf_counter())
    threading.Thread(target=read, daemon=True).start()
    ws = WebSocket(port, token)
    ws.frame()
    ws.frame()  # hello, then the state now
    # Frames are read as they come, as a page does: a reader that stopped
    # between changes would find a backlog of older frames first.
    shown = {}
    marked = re.compile(rb"bench-web-[0-9]+-[0-9]+")

    def read_frames():
        try:
            while True:
                opcode, payload = ws.frame()
                if opcode == 1:
                    now = time.perf_counter()
                    for mark in set(marked.findall(payload)):
                        shown.setdefault(mark.decode(), now)
        except (OSError, EOFError):
            pass
    threading.Thread(target=read_frames, daemon=True).start()
    frames, floor = [], []
    for i in range(40):
        mark = f"bench-web-{i}-{time.time_ns()}"
        started = time.perf_counter()
        server.run("send-keys", "-t", pane, "-l", f"echo {mark}")
        server.run("send-keys", "-t", pane, "Enter")
        wait_for("the frame", lambda: mark in shown, 30)
        frames.append((shown[mark] - started) * 1000)
        time.sleep(0.3)
        if mark in outputs:
            floor.append((outputs[mark] - started) * 1000)
    ws.close()
    control.stdin.close()
    control.terminate()
    web.terminate()
    web.wait()
    return frames, floor


def status_expansion(server):
    """tmux's time for one expansion of the status line's format, as a
    redraw expands it: 20 in one source-file, less 20 that expand nothing,
    the median of 7 such pairs."""
    script = f"{work}/status-{server.name}.conf"
    spent = []
    for _ in range(7):
        pair = []
        for fmt in ("#{T:status-format[0]}", "x"):
            with open(script, "w") as out:
                out.write(f'display-message -p "{fmt}"\n' * 20)
            started = ms()
            server.run("source-file", script)
            pair.append(ms() - started)
        spent.append((pair[0] - pair[1]) / 20)
    return statistics.median(spent)


def one_size(size):
    server = make(size)
    socket_path = server.run("display-message", "-p", "#{socket_path}").strip()
    tmux_pid = server.pid()
    agents = start_agents(server, socket_path)
    time.sleep(2)
    row = {}
    row["run-shell true"] = timed(server.base + ["run-shell", "true"])
    if "status" in ROWS:
        row["status alone"] = status_expansion(server)
    started = ms()
    server.run("run-shell", entry)
    row["load"] = ms() - started
    wait_for("every pane's pipe", lambda: watched(server) == size)
    row["reload"] = timed(server.base + ["run-shell", entry], runs=3)
    wait_for("every pane's pipe", lambda: watched(server) == size)
    watcher = watcher_pid(server)
    time.sleep(3)
    if "memory" in ROWS:
        memory(row, tmux_pid, watcher)
    if "pane-get" in ROWS:
        target = server.panes()[size // 2]
        row["pane get"] = timed([taw, "-L", server.name, "pane", "get", target], runs=15)
        row["display"] = timed(server.base + ["display-message", "-p", "-t", target, "#{pane_id}"], runs=15)
    if "latency" in ROWS:
        row["state"], row["floor"] = latency(server, socket_path, agents)
    if "web" in ROWS:
        row["web frame"], row["web floor"] = web_frame(server, agents)
    if "popup" in ROWS:
        row["popup"], row["bare popup"], row["popup listed"] = popup(server, socket_path)
    if "status" in ROWS:
        row["status"] = status_expansion(server)
    if "idle" in ROWS:
        idle(row, server, agents, watcher)
    if "cpu" in ROWS:
        # tmux with taw, then alone (taw unloaded), back to back with the
        # same agents redrawing: measured apart, the machine's state
        # between the parts of a run moved the ratio by half.
        if "idle" in ROWS:
            agents = start_agents(server, socket_path)
        time.sleep(3)
        cpu(row, tmux_pid, watcher_pid(server))
        subprocess.run([taw, "-L", server.name, "tmux", "unload"], capture_output=True)
        time.sleep(3)
        before = ticks(tmux_pid)
        time.sleep(10)
        row["tmux CPU alone"] = (ticks(tmux_pid) - before) / hz * 100 / 10
    if "memory" in ROWS:
        # The floor of memory: a cat a pane, as many as the relays.
        floor_cats = [subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
                      for _ in range(size)]
        time.sleep(1)
        row["cats MB"] = sum(pss_kb(cat.pid) for cat in floor_cats) / 1024
        for cat in floor_cats:
            cat.stdin.close()
            cat.wait()
    server.run("kill-server", check=False)
    return row


def memory(row, tmux_pid, watcher):
    relays = [pid for pid, comm in children(tmux_pid) if comm == "cat"]
    row["watcher MB"] = pss_kb(watcher) / 1024 if watcher else float("nan")
    row["relays MB"] = sum(pss_kb(pid) for pid in relays) / 1024
    row["relays"] = len(relays)


def cpu(row, tmux_pid, watcher):
    """tmux's CPU with the agents redrawing, taw loaded."""
    before = ticks(tmux_pid)
    taw_before = ticks(watcher) if watcher else 0
    time.sleep(10)
    row["tmux CPU with taw"] = (ticks(tmux_pid) - before) / hz * 100 / 10
    row["watcher CPU"] = ((ticks(watcher) - taw_before) / hz * 100 / 10) if watcher else float("nan")


def idle(row, server, agents, watcher):
    """The watcher's CPU with the agents stopped."""
    for pane in agents:
        server.run("send-keys", "-t", pane, "C-c", check=False)
    time.sleep(3)
    before = ticks(watcher) if watcher else 0
    time.sleep(10)
    row["idle CPU ms/s"] = ((ticks(watcher) - before) * 1000 / hz / 10) if watcher else float("nan")


def report(size, row):
    print(f"-- {size} panes ({AGENTS} agents redrawing every 100 ms)")
    print(f"load (run-shell of the entry script): {row['load']:.0f} ms, a reload {row['reload']:.0f} ms;"
          f" floor run-shell true {row['run-shell true']:.0f} ms")
    if "cats MB" in row:
        total = row["watcher MB"] + row["relays MB"]
        print(f"memory (PSS): watcher {row['watcher MB']:.1f} MB + {row['relays']} relays {row['relays MB']:.1f} MB"
              f" = {total:.1f} MB, {total * 1024 / size:.0f} kB a pane; floor a cat a pane {row['cats MB']:.1f} MB")
    if "tmux CPU alone" in row:
        alone = row["tmux CPU alone"]
        ratio = row["tmux CPU with taw"] / alone if alone else float("nan")
        print(f"tmux server CPU: {row['tmux CPU with taw']:.1f} % of a core with taw, {alone:.1f} % alone"
              f" ({ratio:.2f}x); the watcher {row['watcher CPU']:.1f} %")
    state, floor = row.get("state"), row.get("floor")
    if state and floor:
        print(f"screen change -> @agent_state: p50 {pct(state, .5):.0f}, p95 {pct(state, .95):.0f} ms over {len(state)};"
              f" floor %output p50 {pct(floor, .5):.0f}, p95 {pct(floor, .95):.0f} ms"
              f" (over: p50 {pct(state, .5) - pct(floor, .5):.0f}, p95 {pct(state, .95) - pct(floor, .95):.0f} ms)")
    if "pane get" in row:
        print(f"taw pane get: {row['pane get']:.1f} ms; floor tmux display {row['display']:.1f} ms"
              f" ({row['pane get'] / row['display']:.1f}x)")
    frames, floor = row.get("web frame"), row.get("web floor")
    if frames and floor:
        print(f"screen change -> WebSocket frame: p50 {pct(frames, .5):.0f}, p95 {pct(frames, .95):.0f} ms"
              f" over {len(frames)}; floor %output p50 {pct(floor, .5):.0f}, p95 {pct(floor, .95):.0f} ms")
    if "popup" in row:
        print(f"popup first frame after its key: {row['popup']:.0f} ms; floor a bare display-popup"
              f" {row['bare popup']:.0f} ms (first frames from the key's listing: {row['popup listed']})")
    if "status" in row:
        print(f"status line, one expansion (each redraw): {row['status']:.1f} ms of tmux's time;"
              f" floor the same server before the load {row['status alone']:.1f} ms")
    if "idle CPU ms/s" in row:
        print(f"idle CPU of the watcher: {row['idle CPU ms/s']:.1f} ms a second")
    sys.stdout.flush()


for size in sizes:
    report(size, one_size(size))
