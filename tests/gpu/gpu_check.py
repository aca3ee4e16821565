#!/usr/bin/env python3
"""Checks what scope-bpf recorded of tests/gpu/gpu_check.cu (tools/gpu-check.sh).

  gpu_check.py dump FILE    the CUPTI library's own records (SCOPE_BPF_CUPTI_DUMP),
                            where no tracer can attach: counts, sizes, streams,
                            relative lengths, each piece of GPU work after its launch
  gpu_check.py trace FILE   a recording's Chrome trace (scope-bpf export chrome-trace):
                            the same, plus the regions each piece of work belongs to
                            and its times inside its launching region's span

Prints one line per check and exits 1 when any fails.
"""
import json
import struct
import sys

MIB = 1 << 20
KERNEL, MEMCPY, MEMSET, RUNTIME, DRIVER, SYNC, DROPPED, CLOCK = range(1, 9)
HTOD, DTOH = 1, 2
# struct sb_cuda_rec (bpf/cuda_rec.h), 80 bytes
REC = struct.Struct("<HBBIIIIIIIQQQ3i3i")
HEAD = struct.Struct("<4sIII")

failures = 0


def check(what, ok, detail=""):
    global failures
    print("%-4s %s%s" % ("ok" if ok else "FAIL", what, ": " + detail if detail else ""))
    if not ok:
        failures += 1


def read_dump(path):
    recs, names = [], {}
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at + HEAD.size <= len(data):
        tag, value, size, _ = HEAD.unpack_from(data, at)
        at += HEAD.size
        body = data[at:at + size]
        at += size
        if tag == b"NAME":
            names[value] = body.decode("utf-8", "replace")
        elif tag == b"BTCH":
            for k in range(value):
                f = REC.unpack_from(body, k * REC.size)
                recs.append({"kind": f[0], "copy_kind": f[1], "device": f[3],
                             "stream": f[5], "correlation": f[6], "name_id": f[7],
                             "start": f[10], "end": f[11], "bytes": f[12]})
    check("dump read to its end", at == len(data), "%d of %d bytes" % (at, len(data)))
    return recs, names


def spin_kernels(kernels, name_of):
    return [k for k in kernels if "spin" in name_of(k)]


def check_shape(kernels, copies, memsets, name_of):
    """What gpu_check.cu did, whichever way it was recorded."""
    spins = spin_kernels(kernels, name_of)
    check("15 spin kernels", len(spins) == 15, "%d" % len(spins))
    streams = sorted({k["stream"] for k in spins})
    check("spin kernels on 2 streams", len(streams) == 2, str(streams))
    by_stream = {s: [k["end"] - k["start"] for k in spins if k["stream"] == s] for s in streams}
    counts = sorted(len(v) for v in by_stream.values())
    check("10 short and 5 long", counts == [5, 10], str(counts))
    if len(streams) == 2 and counts == [5, 10]:
        short = [v for v in by_stream.values() if len(v) == 10][0]
        long_ = [v for v in by_stream.values() if len(v) == 5][0]
        ratio = (sum(long_) / 5) / (sum(short) / 10)
        check("long / short kernel time about 4", 3.0 <= ratio <= 5.0, "%.2f" % ratio)
    htod = [c for c in copies if c["copy_kind"] == HTOD]
    dtoh = [c for c in copies if c["copy_kind"] == DTOH]
    check("one 64 MiB host-to-device copy", [c["bytes"] for c in htod] == [64 * MIB],
          str([c["bytes"] for c in htod]))
    check("one 16 MiB device-to-host copy", [c["bytes"] for c in dtoh] == [16 * MIB],
          str([c["bytes"] for c in dtoh]))
    check("one 1 MiB memset", [m["bytes"] for m in memsets] == [MIB],
          str([m["bytes"] for m in memsets]))


def cmd_dump(path):
    recs, names = read_dump(path)
    api = {}
    for r in recs:
        if r["kind"] in (RUNTIME, DRIVER):
            api.setdefault(r["correlation"], r)
    gpu = [r for r in recs if r["kind"] in (KERNEL, MEMCPY, MEMSET)]
    check_shape([r for r in gpu if r["kind"] == KERNEL], [r for r in gpu if r["kind"] == MEMCPY],
                [r for r in gpu if r["kind"] == MEMSET], lambda k: names.get(k["name_id"], ""))
    late = [r for r in gpu if r["correlation"] in api and r["start"] < api[r["correlation"]]["start"]]
    missing = [r for r in gpu if r["correlation"] not in api]
    check("every piece of GPU work has its launching API call", not missing,
          "%d without" % len(missing))
    check("no GPU work starts before its launch", not late, "%d do" % len(late))
    check("synchronizations recorded", any(r["kind"] == SYNC for r in recs))
    dropped = sum(r["bytes"] for r in recs if r["kind"] == DROPPED)
    check("CUPTI dropped nothing", dropped == 0, "%d dropped" % dropped)


def cmd_trace(path):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    regions = {}
    open_calls = {}
    for e in events:
        ph = e.get("ph")
        if ph == "E":
            # A region call is a begin and the end that closes the innermost
            # open begin of its track (a zero-length call: one "X" event).
            b = open_calls[(e["pid"], e["tid"])].pop()
            b["dur"] = e["ts"] - b["ts"]
            continue
        if ph == "B":
            open_calls.setdefault((e["pid"], e["tid"]), []).append(e)
        if e.get("cat") == "region" and ph in ("B", "X"):
            # A region call's own values are in "call": "args" holds only what
            # every call of the region shares, so that speedscope aggregates them.
            regions[(e["pid"], e["call"]["call_id"])] = e
    calls = {}
    for e in regions.values():
        calls[e["name"]] = calls.get(e["name"], 0) + 1
    want = {"setup": 1, "compute": 1, "short": 10, "long": 5, "finish": 1}
    check("region calls", all(calls.get(k) == v for k, v in want.items()), str(calls))

    def work(cat):
        out = []
        for e in events:
            if e.get("cat") == cat and e.get("ph") == "X":
                a = e.get("args", {})
                out.append({"name": e["name"], "stream": a.get("stream"),
                            "start": e["ts"], "end": e["ts"] + e["dur"],
                            "bytes": a.get("bytes"), "copy_kind": a.get("copy_kind"),
                            "pid": e["pid"], "call_id": e.get("call", {}).get("call_id"),
                            "region": a.get("region")})
        return out
    kernels, copies, memsets = work("kernel"), work("memcpy"), work("memset")
    for c in copies:
        c["copy_kind"] = HTOD if "HtoD" in c["name"] else DTOH if "DtoH" in c["name"] else 0
    check_shape(kernels, copies, memsets, lambda k: k["name"])
    spins = spin_kernels(kernels, lambda k: k["name"])
    where = sorted({k["region"] for k in spins})
    check("spin kernels launched in short and long", where == ["long", "short"], str(where))
    copy_regions = sorted((c["region"], c["copy_kind"]) for c in copies)
    check("copies launched in setup (HtoD) and finish (DtoH)",
          copy_regions == sorted([("setup", HTOD), ("finish", DTOH)]), str(copy_regions))
    check("memset launched in setup", [m["region"] for m in memsets] == ["setup"])
    # Work starts after its launching call began; what a region waits for ends inside it.
    synced = {"setup", "compute", "finish"}
    bad = []
    for w in kernels + copies + memsets:
        r = regions.get((w["pid"], w["call_id"]))
        if r is None:
            bad.append("%s: no launching call" % w["name"])
            continue
        if w["start"] < r["ts"]:
            bad.append("%s starts before %s" % (w["name"], r["name"]))
        if r["name"] in synced and w["end"] > r["ts"] + r["dur"] + 1:
            bad.append("%s ends after %s" % (w["name"], r["name"]))
    for w in spins:
        parent = regions.get((w["pid"], w["call_id"]))
        compute = [r for r in regions.values() if r["name"] == "compute"]
        if parent and compute and w["end"] > compute[0]["ts"] + compute[0]["dur"] + 1:
            bad.append("%s ends after compute, which synchronized it" % w["name"])
    check("GPU times inside their host regions' spans", not bad, "; ".join(bad[:5]))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("dump", "trace"):
        sys.exit(__doc__)
    (cmd_dump if sys.argv[1] == "dump" else cmd_trace)(sys.argv[2])
    print("gpu_check: %s" % ("all checks passed" if not failures else "%d FAILED" % failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
