#!/usr/bin/env python3
"""Scores a `labelguard` binary on the corpora of real logs, so that two builds (main's and a
branch's) can be compared side by side: the op of the first finding against the sidecar's truth,
the same way as crates/labelguard-diagnose/tests/real_corpus.rs (the same FNV-1a split of
tests/fixtures/logs/real into tuning and held-out, the same families of ops).

    python3 bench/diagnose_corpus.py --bin target/release/labelguard [--bin OTHER ...]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPORA = ["real", "real-2x", "real-2023/tuning", "real-2023/held-out"]
FAMILY = {"cross_entropy": "nll_loss", "nll_loss": "nll_loss", "embedding": "index_select", "index_select": "index_select"}


def fnv1a(s: str) -> int:
    h = 0xCBF29CE484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def first_finding(binary: str, log: pathlib.Path) -> tuple[str, str]:
    out = subprocess.run([binary, "diagnose", "--format", "json", str(log)], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        return "CRASH", "low"
    report = json.loads(out.stdout)
    report = report[0] if isinstance(report, list) else report
    findings = report.get("findings") or []
    if not findings:
        return "none", "low"
    return findings[0]["op"], findings[0]["confidence"]


def score(binary: str, corpus: str) -> dict[str, list]:
    sets: dict[str, list] = {}
    for sidecar in sorted((ROOT / "tests/fixtures/logs" / corpus).glob("*.toml")):
        truth = tomllib.loads(sidecar.read_text())
        op, confidence = first_finding(binary, sidecar.with_suffix(".log"))
        name = corpus if corpus != "real" else ("held-out" if fnv1a(truth["url"]) % 3 == 0 else "tuning")
        right = FAMILY.get(truth["op"], truth["op"]) == FAMILY.get(op, op)
        sets.setdefault(name, []).append((sidecar.stem, truth.get("counted", True), right, op, confidence))
    return sets


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True)
    ap.add_argument("--misses", action="store_true", help="list the tuning sets' misses (never the held-out ones)")
    a = ap.parse_args()
    for binary in a.bin:
        for corpus in CORPORA:
            for name, rows in score(binary, corpus).items():
                counted = [r for r in rows if r[1]]
                right = sum(r[2] for r in counted)
                unknown = sum(r[3] in ("unknown", "none") for r in counted if not r[2])
                wrong = [r[0] for r in rows if not r[2] and r[3] not in ("unknown", "none") and r[4] != "low"]
                crashes = sum(r[3] == "CRASH" for r in rows)
                # Held-out sets print counts only, so that nobody tunes on their logs.
                shown = [] if "held-out" in name else wrong
                print(f"{binary} {name}: {right}/{len(counted)} right ({100 * right / max(len(counted), 1):.1f}%), "
                      f"{unknown} unknown, {len(wrong)} confident wrong {shown}, {crashes} crashes")
                for r in rows if a.misses and "held-out" not in name else []:
                    if not r[2]:
                        print(f"    miss {r[0]}: {r[3]} ({r[4]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
