#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed corpora for the fuzzers, from real traffic and real files.

Runs a real dlhald and real dl commands against it under strace, and cuts
what crossed the socket into the harnesses' chunk format (fuzz/chunks.h):
the requests dlhald read (fuzz_daemon), the replies and notifications it
sent (fuzz_client). Adds the state file dlhald wrote, the built-in
profiles and dl's tour as seeds for the file parsers.

    fuzz/capture-corpus.py BUILD_DIR      (writes fuzz/corpus/*/)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALL = re.compile(r'^(\d+) +(sendto|recvfrom)\((\d+), "((?:\\x[0-9a-f]{2})*)"')

# Each session is one dl command; its traffic becomes one corpus file per harness.
SESSIONS = [
    "dev show", "port show", "port show eth0", "-j -d port show", "port split eth0 2",
    "port unsplit eth32", "port split pci/0000:03:00.0/5 4", "port split eth0 3",
    "port set pci/0000:01:00.0/1 type eth", "port set ens4 type auto",
    "sim cable pci/0000:01:00.0/2 eth", "sim show pci/0000:03:00.0 pmlp", "sim fail pci/0000:03:00.0 1",
    "port split eth0 2", "port show nosuch",
    # the E810 card: faceplate and card on its devices, ports' module, lane and speed, a staged split, a reset
    "-d port show pci/0000:16:00.1/0", "panel pci/0000:16:00.0", "port split ens16f0 4",
    "dev reload pci/0000:16:00.0 action fw_activate", "-j panel",
]


def chunk(tag, data):
    return bytes([tag, len(data) & 0xff, len(data) >> 8]) + data


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build")
    dl = os.path.join(build, "tools/dl/dl")
    dlhald = os.path.join(build, "tools/dlhald/dlhald")
    tmp = tempfile.mkdtemp(prefix="dlhal-corpus-")
    sock, state, trace = (os.path.join(tmp, n) for n in ("s.sock", "state.json", "trace"))
    out = {n: os.path.join(SRC, "fuzz/corpus", n) for n in ("daemon", "client", "state", "profile", "batch")}
    for d in out.values():
        os.makedirs(d, exist_ok=True)

    daemon = subprocess.Popen(["strace", "-f", "-xx", "-s", "70000", "-e", "trace=sendto,recvfrom", "-o", trace,
                               dlhald, "-f", "-s", sock, "--sim", "cx3-vpi,sn2700,e810-cqda2", "--state", state],
                              stderr=subprocess.DEVNULL)
    while not os.path.exists(sock):
        time.sleep(0.05)
    marks = []
    for i, cmd in enumerate(SESSIONS):
        subprocess.run([dl, "-s", sock] + cmd.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.1)
        marks.append(os.path.getsize(trace))
    shutil.copy(state, os.path.join(out["state"], "written-by-dlhald.json"))
    # strace's child is dlhald: stop it, and strace ends with it.
    subprocess.run(["pkill", "-TERM", "-P", str(daemon.pid)])
    daemon.wait()

    # Cut the trace at the marks: what each session sent and received.
    text = open(trace).read()
    start = 0
    for i, end in enumerate(marks):
        reqs, reps = [], []
        for line in text[start:end].splitlines():
            m = CALL.match(line)
            if not m:
                continue
            data = bytes.fromhex(m.group(4).replace("\\x", ""))
            fd = int(m.group(3))
            (reqs if m.group(2) == "recvfrom" else reps).append((fd, data))
        start = end
        if reqs:
            open(os.path.join(out["daemon"], "session-%02d" % i), "wb").write(
                b"".join(chunk(0, d) for _, d in reqs))
        if reps:
            first = reps[0][0]  # the subscription's connection answers first
            open(os.path.join(out["client"], "session-%02d" % i), "wb").write(
                b"".join(chunk(1 if fd == first else 0, d) for fd, d in reps))
    for name in ("drivers/mlxsw/profiles/sn2700.json", "drivers/mlxsw/profiles/sn5600.json",
                 "drivers/mlx4/profiles/cx3-vpi.json", "drivers/ice/profiles/e810-cqda2.json"):
        shutil.copy(os.path.join(SRC, name), out["profile"])
    shutil.copy(os.path.join(SRC, "tools/dl/tour.dl"), out["batch"])
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
