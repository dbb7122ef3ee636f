#!/usr/bin/env python3
"""After a ctest run (scripts/test.sh): what was skipped and why, and the slowest tests.

Reads ctest's JUnit report (--output-junit) for the tests that exited 77
(ctest: skipped) and the last "skipped:" line of their output, and
BUILD/Testing/skipped/*.skipped for the doctest cases that were skipped
inside tests that ran (tests/support/requirements.h). A test that cannot run
is reported here, never counted as passed.

usage: test-summary.py BUILD_DIR
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def reason_of(output: str) -> str:
    lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
    for line in reversed(lines):
        low = line.lower()
        if "skipped" in low or "skip" in low or "no gpu" in low:
            return line
    return lines[-1] if lines else "(no output)"


def main() -> int:
    build = Path(sys.argv[1] if len(sys.argv) > 1 else "build")
    junit = build / "Testing" / "junit.xml"
    tests = []
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            out = case.findtext("system-out") or ""
            status = case.get("status", "")
            skipped = status == "notrun" or case.find("skipped") is not None
            tests.append((case.get("name", "?"), float(case.get("time", "0") or 0), skipped, out))
    ran = [t for t in tests if not t[2]]
    skipped = [t for t in tests if t[2]]
    print(f"\n== {len(tests)} tests: {len(ran)} ran, {len(skipped)} skipped (exit 77)")
    for name, _, _, out in sorted(skipped):
        print(f"  skipped {name}: {reason_of(out)}")

    cases = []
    for f in sorted((build / "Testing" / "skipped").glob("*.skipped")):
        for line in f.read_text(errors="replace").splitlines():
            name, _, why = line.partition("\t")
            cases.append((f.stem, name, why))
    print(f"== {len(cases)} test cases skipped inside tests that ran")
    for exe, name, why in cases:
        print(f"  skipped {exe}: {name} ({why})")

    if ran:
        print("== slowest tests")
        for name, seconds, _, _ in sorted(ran, key=lambda t: -t[1])[:10]:
            print(f"  {seconds:8.1f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
