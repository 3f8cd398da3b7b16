#!/usr/bin/env python3
"""Samples the memory of a crawler and the browser it started, until the crawler ends.

    peak_memory.py PID OUT

Every half second: the proportional set size (Pss, so pages shared between Chromium's
processes count once) of the crawler process PID plus every process whose command line names
a browser profile of it (`sift-browser-PID/`). Writes the peak, in KiB, and the most browser
processes seen at once, to OUT as "PEAK_KIB PROCESSES".
"""
import os
import sys
import time

pid = sys.argv[1]
out = sys.argv[2]
needle = f"sift-browser-{pid}/".encode()


def pss_kib(p):
    try:
        with open(f"/proc/{p}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def browser_pids():
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if needle in f.read():
                    found.append(p)
        except OSError:
            pass
    return found


peak = 0
most = 0
while os.path.exists(f"/proc/{pid}"):
    browsers = browser_pids()
    total = pss_kib(pid) + sum(pss_kib(p) for p in browsers)
    peak = max(peak, total)
    most = max(most, len(browsers))
    with open(out, "w") as f:
        f.write(f"{peak} {most}\n")
    time.sleep(0.5)
