#!/usr/bin/env python3
"""The web state API's numbers for scripts/bench: GET /api/state (p50 over
50 requests), a screen change to the WebSocket frame that shows it (p50,
p95 over 40 changes), the server's CPU with a page open and nothing
changing, its memory, and `taw pane list` / `agent list` on the same
server. Standard library only: a small WebSocket reader."""
import json, os, subprocess, sys, time, urllib.request
from wsclient import WebSocket

port, token, tmux_socket, pane, web_pid, taw = sys.argv[1:7]
base = f"http://127.0.0.1:{port}"

def get_state():
    request = urllib.request.Request(base + "/api/state", headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)

times = []
panes = len(get_state()["panes"])
for _ in range(50):
    started = time.perf_counter()
    get_state()
    times.append((time.perf_counter() - started) * 1000)
times.sort()
print(f"web: GET /api/state with {panes} panes: p50 {times[len(times) // 2]:.0f} ms, max {times[-1]:.0f} ms")

ws = WebSocket(port, token)
ws.frame(); ws.frame()  # hello, then the state now
latencies = []
for i in range(40):
    mark = f"bench-web-{i}-{time.time_ns()}"
    started = time.perf_counter()
    subprocess.run(["tmux", "-L", tmux_socket, "send-keys", "-t", pane, "-l", f"echo {mark}"], check=True)
    subprocess.run(["tmux", "-L", tmux_socket, "send-keys", "-t", pane, "Enter"], check=True)
    ws.wait_for(mark.encode())
    latencies.append((time.perf_counter() - started) * 1000)
    time.sleep(0.2)
latencies.sort()
print(f"web: screen change to its WebSocket frame, over {len(latencies)} changes: "
      f"p50 {latencies[len(latencies) // 2]:.0f} ms, p95 {latencies[int(len(latencies) * 0.95) - 1]:.0f} ms")

# With the socket still open and nothing changing: what the server costs.
def ticks():
    fields = open(f"/proc/{web_pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])
time.sleep(3)
before = ticks()
time.sleep(10)
hz = os.sysconf("SC_CLK_TCK")
print(f"web: CPU with a page open and nothing changing: {(ticks() - before) * 1000 / hz / 10:.0f} ms a second")
rss = [l.split()[1] for l in open(f"/proc/{web_pid}/status") if l.startswith("VmRSS")][0]
print(f"web: RSS {int(rss) / 1024:.0f} MB")
ws.close()

for verb in (["pane", "list"], ["agent", "list"]):
    runs = []
    for _ in range(20):
        started = time.perf_counter()
        subprocess.run([taw, "-L", tmux_socket, *verb], capture_output=True, check=True)
        runs.append((time.perf_counter() - started) * 1000)
    runs.sort()
    print(f"taw {' '.join(verb)} with {panes} panes: p50 {runs[len(runs) // 2]:.0f} ms")
