#!/usr/bin/env python3
"""The copy-bandwidth ceiling from a transpose_bench log: the fastest copy record (impl
"copy (...)": memcpy, streaming copy, cudaMemcpy) of the dense double case, as one JSON line;
a "n/a" record when the log has none. Standard library only. Usage: pipeline_ceiling.py LOG"""
import json
import sys


def main(log: str) -> int:
    recs = []
    for line in open(log, encoding="utf-8", errors="replace"):
        if line.startswith("{"):
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    copies = [r for r in recs if str(r.get("impl", "")).startswith("copy")
              and r.get("op") in ("dense", "gpu dense double") and r.get("gbps")]
    if copies:
        print(json.dumps(max(copies, key=lambda r: r["gbps"])))
    else:
        print(json.dumps({"status": "n/a", "reason": f"no copy record in {log}"}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
