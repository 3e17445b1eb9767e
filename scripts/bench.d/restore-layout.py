#!/usr/bin/env python3
"""Writes the saved layout part 8 of scripts/bench restores: 20 sessions of
3 windows of 2 panes, no agents, every pane in the bench's folder."""
import json, sys

path, work = sys.argv[1:]
sessions = []
for s in range(20):
    windows = []
    for w in range(3):
        panes = [{"index": p, "cwd": work, "active": p == 0} for p in range(2)]
        windows.append({"index": w, "name": f"w{w}", "layout": "", "active": w == 0, "panes": panes})
    sessions.append({"name": f"r{s}", "path": work, "windows": windows})
json.dump({"version": 1, "taken_unix": 1, "sessions": sessions}, open(path, "w"))
