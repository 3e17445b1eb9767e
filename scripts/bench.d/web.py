#!/usr/bin/env python3
"""The web state API's numbers for scripts/bench: GET /api/state (p50 over
50 requests), a screen change to the WebSocket frame that shows it (p50,
p95 over 40 changes), the server's CPU with a page open and nothing
changing, its memory, and `taw pane list` / `agent list` on the same
server. Standard library only: a small WebSocket reader."""
import base64, json, os, socket, subprocess, sys, time, urllib.request

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

sock = socket.create_connection(("127.0.0.1", int(port)))
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall((f"GET /ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
              f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
buffer = b""
while b"\r\n\r\n" not in buffer:
    buffer += sock.recv(65536)
buffer = buffer.split(b"\r\n\r\n", 1)[1]

def read_exact(n):
    global buffer
    while len(buffer) < n:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise EOFError
        buffer += chunk
    out, buffer = buffer[:n], buffer[n:]
    return out

def frame():
    head = read_exact(2)
    length = head[1] & 0x7F
    if length == 126:
        length = int.from_bytes(read_exact(2), "big")
    elif length == 127:
        length = int.from_bytes(read_exact(8), "big")
    return head[0] & 0x0F, read_exact(length)

frame(); frame()  # hello, then the state now
latencies = []
for i in range(40):
    mark = f"bench-web-{i}-{time.time_ns()}"
    started = time.perf_counter()
    subprocess.run(["tmux", "-L", tmux_socket, "send-keys", "-t", pane, "-l", f"echo {mark}"], check=True)
    subprocess.run(["tmux", "-L", tmux_socket, "send-keys", "-t", pane, "Enter"], check=True)
    while True:
        opcode, payload = frame()
        if opcode == 1 and mark.encode() in payload:
            break
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
sock.close()

for verb in (["pane", "list"], ["agent", "list"]):
    runs = []
    for _ in range(20):
        started = time.perf_counter()
        subprocess.run([taw, "-L", tmux_socket, *verb], capture_output=True, check=True)
        runs.append((time.perf_counter() - started) * 1000)
    runs.sort()
    print(f"taw {' '.join(verb)} with {panes} panes: p50 {runs[len(runs) // 2]:.0f} ms")
