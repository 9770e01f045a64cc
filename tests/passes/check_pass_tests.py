#!/usr/bin/env python3
"""Checks a pass test file (tests/passes/*.ge) with ge-opt.

A test file is text IR with its expectations in comments:

    // RUN: --passes cse --verify-each
    // What the first case shows.
    graph main (opset ""=17) { ... }
    // EXPECT: graph main (opset ""=17) {
    // EXPECT:   input %x : float32[4]
    // EXPECT: ...
    // -----
    // A case with its own options (they replace the file's RUN line).
    // RUN: -O2 --check-passes
    graph main ... { ... }
    // EXPECT-ERROR: names the pass

A case expects one of:
- `// EXPECT:` lines: the whole printed output, one line each;
- `// EXPECT-INFERRED:` lines: IR that ge-opt prints, with no passes, as the output (the
  expected graph written without the types that inference adds, as a person writes it);
- `// EXPECT-UNCHANGED`: the output is the input as ge-opt prints it with no passes;
- `// EXPECT-ERROR:` lines: the case fails with a message that contains each text.
Cases are separated by `// -----`; ge-opt runs once per distinct RUN line with
--split-input-file, so a case's line numbers in errors are its own.

Usage: check_pass_tests.py GE_OPT FILE.ge [--update]
--update rewrites the EXPECT lines of the cases that expect an output with what ge-opt
printed (review the diff: the point of a test is that someone checked its expectation).
"""

import difflib
import shlex
import subprocess
import sys

SPLIT = "// -----"
RUN = "// RUN:"
EXPECT = "// EXPECT:"
EXPECT_ERROR = "// EXPECT-ERROR:"
EXPECT_INFERRED = "// EXPECT-INFERRED:"
UNCHANGED = "// EXPECT-UNCHANGED"


class Case:
    def __init__(self, index, lines, first_line):
        self.index = index
        self.first_line = first_line
        self.lines = lines
        self.run = None
        self.expected = []
        self.errors = []
        self.unchanged = False
        self.inferred = []
        for line in lines:
            stripped = line.strip()
            if stripped.startswith(RUN):
                self.run = stripped[len(RUN):].strip()
            elif stripped.startswith(EXPECT_ERROR):
                self.errors.append(stripped[len(EXPECT_ERROR):].strip())
            elif stripped.startswith(EXPECT_INFERRED):
                self.inferred.append(comment_text(line, EXPECT_INFERRED))
            elif stripped.startswith(EXPECT):
                self.expected.append(comment_text(line, EXPECT))
            elif stripped == UNCHANGED:
                self.unchanged = True

    def kinds(self):
        return sum([bool(self.expected), bool(self.errors), self.unchanged, bool(self.inferred)])

    def input_text(self):
        return "".join(line for line in self.lines if not line.strip().startswith("// EXPECT"))

    def reference_text(self):
        """What ge-opt with no passes prints as the expected output, or None."""
        if self.unchanged:
            return self.input_text()
        if self.inferred:
            return "".join(line + "\n" for line in self.inferred)
        return None


def comment_text(line, prefix):
    text = line.lstrip()[len(prefix):].rstrip("\n")
    return text[1:] if text.startswith(" ") else text


def read_cases(path):
    with open(path, encoding="utf-8") as handle:
        all_lines = handle.readlines()
    cases, current, start = [], [], 1
    for number, line in enumerate(all_lines, 1):
        if line.rstrip() == SPLIT:
            cases.append(Case(len(cases), current, start))
            current, start = [], number + 1
        else:
            current.append(line)
    cases.append(Case(len(cases), current, start))
    return all_lines, cases


def run_ge_opt(ge_opt, args, texts):
    """ge-opt with `args` over `texts` (one graph each); one printed part per text."""
    text = ("\n" + SPLIT + "\n").join(texts)
    command = [ge_opt, "--split-input-file", *args, "-"]
    result = subprocess.run(command, input=text, capture_output=True, text=True, timeout=600)
    if result.returncode not in (0, 1):
        sys.exit(f"{shlex.join(command)}: exit status {result.returncode}\n{result.stderr}")
    parts = [[]]
    for line in result.stdout.splitlines():
        if line.rstrip() == SPLIT:
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) != len(texts):
        sys.exit(f"{shlex.join(command)}: printed {len(parts)} parts for {len(texts)} cases\n"
                 f"{result.stdout}\n{result.stderr}")
    return parts


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        sys.exit("usage: check_pass_tests.py GE_OPT FILE.ge [--update]")
    ge_opt, path, update = sys.argv[1], sys.argv[2], len(sys.argv) == 4
    all_lines, cases = read_cases(path)
    file_run = cases[0].run
    failures = []
    for case in cases:
        if case.run is None:
            case.run = file_run
        if case.run is None:
            failures.append(f"{path}:{case.first_line}: case {case.index} has no RUN line (nor has the file)")
        elif case.kinds() != 1 and not (update and case.kinds() == 0):
            failures.append(f"{path}:{case.first_line}: case {case.index} needs exactly one of EXPECT lines, "
                            "EXPECT-UNCHANGED or EXPECT-ERROR")
    if failures:
        sys.exit("\n".join(failures))

    outputs = {}
    for run in dict.fromkeys(case.run for case in cases):
        group = [case for case in cases if case.run == run]
        for case, part in zip(group, run_ge_opt(ge_opt, shlex.split(run), [case.input_text() for case in group])):
            outputs[case.index] = part
    referenced = [case for case in cases if case.reference_text() is not None]
    baseline = {}
    if referenced:
        printed = run_ge_opt(ge_opt, [], [case.reference_text() for case in referenced])
        baseline = dict(zip((case.index for case in referenced), printed))

    updated = {}
    for case in cases:
        got = outputs[case.index]
        where = f"{path}:{case.first_line}: case {case.index} ({case.run})"
        is_error = bool(got) and got[0].startswith("// error")
        if case.errors:
            message = "\n".join(got)
            missing = [text for text in case.errors if text not in message]
            if not is_error:
                failures.append(f"{where}: expected an error, got:\n{message}")
            elif missing:
                failures.append(f"{where}: the error does not contain {missing}:\n{message}")
            continue
        if is_error:
            failures.append(f"{where}: {got[0]}")
            continue
        want = baseline.get(case.index, case.expected)
        if case.index in baseline and want and want[0].startswith("// error"):
            failures.append(f"{where}: the expected IR does not print: {want[0]}")
            continue
        if update and case.index not in baseline:
            updated[case.index] = got
        elif got != want:
            diff = "\n".join(difflib.unified_diff(want, got, "expected", "ge-opt", lineterm=""))
            failures.append(f"{where}: output differs\n{diff}")

    if update:
        write_updated(path, all_lines, cases, updated)
    if failures:
        print("\n\n".join(failures))
        print(f"{path}: {len(failures)} of {len(cases)} cases failed")
        sys.exit(1)
    print(f"{path}: {len(cases)} cases passed")


def write_updated(path, all_lines, cases, updated):
    out = []
    for case in cases:
        if case.index > 0:
            out.append(SPLIT + "\n")
        kept = [line for line in case.lines if not line.strip().startswith(EXPECT)]
        while kept and not kept[-1].strip():
            kept.pop()
        out.extend(kept)
        if case.index in updated:
            out.extend((EXPECT + " " + line).rstrip() + "\n" for line in updated[case.index])
        else:
            out.extend(line for line in case.lines if line.strip().startswith(EXPECT))
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(out)


if __name__ == "__main__":
    main()
