#!/usr/bin/env python3
"""Mutation run (tests/mutation/README.md): each planted change of mutants.py applied to a
scratch copy of the tree, built, and the tests that cover it run; prints killed / survived per
mutant and the score.  Not part of CI (tests/mutation/run.sh is the entry point)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mutants import MUTANTS  # noqa: E402


def say(msg):
    print(msg, flush=True)


def tree_files(top):
    out = subprocess.run(["git", "-C", top, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         check=True, capture_output=True).stdout
    return [f for f in out.decode().split("\0") if f and os.path.isfile(os.path.join(top, f))]


def sync(top, scratch):
    """Copy the tree into scratch, rewriting only files whose bytes differ (so that a build
    directory reused across runs rebuilds only what changed)."""
    n = 0
    for f in tree_files(top):
        src, dst = os.path.join(top, f), os.path.join(scratch, f)
        with open(src, "rb") as fh:
            data = fh.read()
        if os.path.exists(dst):
            with open(dst, "rb") as fh:
                if fh.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        # a fresh modification time, never the source's: a file copied with an older time than
        # the objects built from its previous version would not be rebuilt (stale objects)
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)
        n += 1
    return n


def check_snippets(scratch, selected):
    bad = []
    for i, m in selected:
        path = os.path.join(scratch, m["file"])
        if not os.path.exists(path):
            bad.append("mutant %d (%s): file %s does not exist — update tests/mutation/mutants.py" % (i, m["name"], m["file"]))
            continue
        c = open(path).read().count(m["old"])
        if c != 1:
            bad.append("mutant %d (%s): snippet %s in %s — update tests/mutation/mutants.py\n    snippet: %r"
                       % (i, m["name"], "not found" if c == 0 else "found %d times" % c, m["file"], m["old"]))
    return bad


def run(cmd, log, timeout=None, cwd=None):
    with open(log, "ab") as fh:
        fh.write(("\n$ %s\n" % " ".join(cmd)).encode())
        fh.flush()
        try:
            return subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout, cwd=cwd).returncode
        except subprocess.TimeoutExpired:
            return 124


def ctest(build, regex, jobs, log, timeout):
    """(rc, failed test names)"""
    out = subprocess.run(["ctest", "-R", regex, "-j%d" % jobs, "--timeout", str(timeout), "--output-on-failure"],
                         cwd=build, capture_output=True, text=True)
    with open(log, "a") as fh:
        fh.write("\n$ ctest -R '%s'\n%s%s" % (regex, out.stdout, out.stderr))
    failed = re.findall(r"^\s*\d+ - (\S+) \(", out.stdout, re.M)
    if "No tests were found" in out.stdout + out.stderr:
        return -1, []
    return out.returncode, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="mutants to run (names or numbers; default: all)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--scratch", default=os.environ.get("SR_MUTATION_DIR", "/tmp/sr-mutation-%d" % os.getuid()),
                    help="scratch directory: the copy of the tree, its build in build/ (the same layout as a checkout, so ccache hits)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="build jobs (default 2)")
    ap.add_argument("--test-jobs", type=int, default=1, help="ctest jobs (default 1)")
    ap.add_argument("--timeout", type=int, default=900, help="per-test timeout in seconds (default 900)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the run of the covering tests on the unchanged tree")
    a = ap.parse_args()

    allm = list(enumerate(MUTANTS, 1))
    if a.list:
        for i, m in allm:
            say("%2d %-32s %-16s %-38s %s" % (i, m["name"], m["rule"], m["file"], m["tests"]))
        return 0
    if a.names:
        want = set(a.names)
        selected = [(i, m) for i, m in allm if m["name"] in want or str(i) in want]
        unknown = want - {m["name"] for _, m in selected} - {str(i) for i, _ in selected}
        if unknown:
            say("run.sh: unknown mutant(s) %s; see run.sh --list" % ", ".join(sorted(unknown)))
            return 2
    else:
        selected = allm

    scratch = os.path.abspath(a.scratch)
    src, build = scratch, os.path.join(scratch, "build")
    os.makedirs(src, exist_ok=True)
    log = os.path.join(scratch, "build", "mutation.log")
    os.makedirs(build, exist_ok=True)
    open(log, "w").close()
    say("mutation: %d mutants; scratch tree %s (log %s)" % (len(selected), scratch, log))
    say("mutation: %d files copied into the scratch tree" % sync(TOP, src))
    bad = check_snippets(src, selected)
    if bad:
        for b in bad:
            say(b)
        say("mutation: refused: %d snippet(s) no longer match exactly once; nothing was built" % len(bad))
        return 2

    env_cc = []
    if shutil.which("ccache"):
        env_cc = ["-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        # paths relative to the build directory: the scratch tree then hits the cache of any
        # checkout built the same way
        os.environ["CCACHE_BASEDIR"] = "/"
        os.environ.setdefault("CCACHE_NOHASHDIR", "1")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        if run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"] + env_cc, log):
            say("mutation: configuring the scratch tree failed (see %s)" % log)
            return 3
    if run(["cmake", "--build", build, "-j%d" % a.jobs], log):
        say("mutation: the unchanged scratch tree does not build (see %s)" % log)
        return 3
    if not a.no_baseline:
        # one ctest run over the union (CMake's regular expressions allow few groups: the
        # alternatives of every ^(a|b)$ merged into one group)
        alts = []
        for _, m in selected:
            g = re.fullmatch(r"\^\((.*)\)\$", m["tests"])
            for t in (g.group(1).split("|") if g else [m["tests"]]):
                if t not in alts:
                    alts.append(t)
        rc, failed = ctest(build, "^(%s)$" % "|".join(alts), a.test_jobs, log, a.timeout)
        if rc != 0:
            say("mutation: the covering tests fail on the unchanged tree (%s): the score would mean nothing (see %s)"
                % (", ".join(failed) if failed else "no tests matched" if rc < 0 else "rc %d" % rc, log))
            return 3
        say("mutation: the covering tests pass on the unchanged tree")

    killed, survived, stillborn = [], [], []
    for i, m in selected:
        path = os.path.join(src, m["file"])
        orig = open(path).read()
        t0 = time.time()
        try:
            with open(path, "w") as fh:
                fh.write(orig.replace(m["old"], m["new"], 1))
            if run(["cmake", "--build", build, "-j%d" % a.jobs], log):
                stillborn.append(m["name"])
                say("mutant %2d %-32s %-38s STILLBORN (does not build: fix its NEW snippet) %4.0f s" % (i, m["name"], m["file"], time.time() - t0))
                continue
            rc, failed = ctest(build, m["tests"], a.test_jobs, log, a.timeout)
            if rc < 0:
                stillborn.append(m["name"])
                say("mutant %2d %-32s no test matches %s — update tests/mutation/mutants.py" % (i, m["name"], m["tests"]))
            elif rc != 0:
                killed.append(m["name"])
                say("mutant %2d %-32s %-38s killed   by %s %4.0f s" % (i, m["name"], m["file"], ", ".join(failed) or "rc %d" % rc, time.time() - t0))
            else:
                survived.append(m["name"])
                say("mutant %2d %-32s %-38s SURVIVED (%s pass) %4.0f s" % (i, m["name"], m["file"], m["tests"], time.time() - t0))
        finally:
            with open(path, "w") as fh:
                fh.write(orig)
    n = len(killed) + len(survived)
    say("mutation score: %d of %d killed (%.0f %%)%s%s" % (len(killed), n, 100.0 * len(killed) / n if n else 0.0,
        "; survived: " + ", ".join(survived) if survived else "", "; not run (stillborn): " + ", ".join(stillborn) if stillborn else ""))
    # leave the scratch build matching the tree
    run(["cmake", "--build", build, "-j%d" % a.jobs], log)
    return 0 if n and not survived and not stillborn else 1


if __name__ == "__main__":
    sys.exit(main())
