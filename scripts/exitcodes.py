"""The exit codes of the scripts that run benchmarks or read and compare their results (compare.py,
results.py, plot.py, sweep.py, scaling.py, ab.py), and the plumbing that keeps to them:

    0    ok
    1    regression found (compare.py alone: some variant is slower than the noise allows)
    2    bad input: a bad argument, a file that is missing, unreadable, not JSON or not the kind
         the script reads (a solve JSON given for a bench JSON), an output path that cannot be
         written, or a dslash run that refused the flags passed through to it (dslash exits 2
         for those). One line on stderr, "error: ...", and no traceback
    3    a run failed (sweep.py, scaling.py, ab.py): dslash or mpirun exited non-zero for another
         reason, or wrote no result; the line names the command's own error, not a banner
    4    internal error: a bug in the script; the traceback follows (never 1, which would read as a
         regression)
    130  interrupted (Ctrl-C); 143 terminated (SIGTERM). Temporary files are removed first

Each script's --help ends with the codes that apply to it (epilog()).
"""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import traceback

OK, REGRESSION, BAD_INPUT, RUN_FAILED, INTERNAL_ERROR = 0, 1, 2, 3, 4

_TEXT = {
    OK: "ok",
    REGRESSION: "regression found: some variant is slower than the noise allows",
    BAD_INPUT: "bad input: an argument, or a file missing, unreadable or of the wrong kind (one line on stderr, no traceback)",
    RUN_FAILED: "a run failed: dslash or mpirun exited non-zero (not for its flags) or wrote no result; the line names its error",
}


class BadInput(Exception):
    """Exit 2 with "error: <message>"."""


class RunFailed(Exception):
    """Exit 3 with "error: <message>"."""


class Interrupted(BaseException):
    """A signal that ends the script: raised where the script is, so with-blocks and finally clauses
    (temporary directories) run before it exits 128 + the signal's number."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def epilog(*codes):
    """The exit-code paragraph of a script's --help: 0, the codes given, and the signals."""
    lines = ["exit status:"] + [f"  {c}  {_TEXT[c]}" for c in (OK, *codes)]
    lines.append(f"  {INTERNAL_ERROR}  internal error: a bug in the script (the traceback follows)")
    lines.append("  130 (Ctrl-C) or 143 (SIGTERM): interrupted, temporary files removed")
    return "\n".join(lines)


class Parser(argparse.ArgumentParser):
    """argparse with the scripts' conventions: the module docstring as description, the exit codes
    as epilog, and a usage error as one line on stderr with exit 2."""

    def __init__(self, doc, codes=(), flag_strings=(), **kw):
        super().__init__(description=doc, epilog=epilog(*codes), formatter_class=argparse.RawDescriptionHelpFormatter, **kw)
        self.flag_strings = flag_strings

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an option in flag_strings (one string of flags for another program,
        like --mpirun-flags) takes the next word whatever it starts with: argparse alone refuses
        `--mpirun-flags --allow-run-as-root`, a value that looks like an option."""
        args = list(sys.argv[1:] if args is None else args)
        out, i = [], 0
        while i < len(args):
            if args[i] == "--":
                out += args[i:]
                break
            if args[i] in self.flag_strings and i + 1 < len(args):
                out.append(f"{args[i]}={args[i + 1]}")
                i += 2
                continue
            out.append(args[i])
            i += 1
        return super().parse_args(out, namespace)

    def error(self, message):
        print(f"error: {message} (--help for usage)", file=sys.stderr)
        sys.exit(BAD_INPUT)


def last_error_line(stderr):
    """The line of a failed command's stderr that says what went wrong: the last one that names an
    error (dslash's "dslash: error: ..."), else the first line of the last dashed banner (how Open
    MPI's mpirun writes its messages: a row of dashes, the headline, the details, a row of dashes),
    else the last non-blank line."""
    lines = [l.strip() for l in stderr.splitlines()]
    rule = [not l.strip("-=*") for l in lines]  # blank lines and rows of dashes
    text = [l for l, r in zip(lines, rule) if not r]
    if not text:
        return ""
    named = [l for l in text if "error" in l.lower()]
    if named:
        return named[-1]
    banners = [i for i, l in enumerate(lines) if l and not l.strip("-")]
    if len(banners) >= 2:  # the headline of the last banner that encloses text
        for start, end in reversed(list(zip(banners, banners[1:]))):
            inside = [l for l, r in zip(lines[start + 1:end], rule[start + 1:end]) if not r]
            if inside:
                return inside[0]
    return text[-1]


def check_writable(path, flag):
    """BadInput unless `path` can be written: its directory exists and it is not a directory. Checked
    before the runs, so a bad --out stops the script before the work, not after."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise BadInput(f"{flag} '{path}': it is a directory")
    if not os.path.isdir(folder):
        raise BadInput(f"{flag} '{path}': directory '{folder}' does not exist")
    if not os.access(folder, os.W_OK):
        raise BadInput(f"{flag} '{path}': directory '{folder}' is not writable")


def run_command(command, env=None, stdout=subprocess.DEVNULL):
    """Run a command, its stderr captured: a CompletedProcess. A program that is not there is
    BadInput; if this script is interrupted meanwhile, the command is asked to stop (SIGTERM, which
    mpirun passes to its ranks) and killed if it has not within 5 s, before the interruption goes on."""
    try:
        process = subprocess.Popen(command, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True)
    except FileNotFoundError:
        raise BadInput(f"'{command[0]}': no such program") from None
    except PermissionError:
        raise BadInput(f"'{command[0]}': not executable") from None
    with process:
        try:
            out, err = process.communicate()
        except BaseException:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
            raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def failed_run(what, command, returncode, stderr):
    """The exception for a command that exited non-zero: BadInput where dslash refused its flags
    (its exit 2: they came from this script's arguments), else RunFailed; the message names the
    command's own error line and, after it on the same line, the command."""
    line = last_error_line(stderr) or "no message on stderr"
    text = f"{what} exited {returncode}: {line} (command: {shlex.join(command)})"
    return BadInput(text) if returncode == BAD_INPUT else RunFailed(text)


def run_script(main):
    """Call main() and exit with its status, turning BadInput, RunFailed, signals and bugs into theirs."""
    def raise_interrupted(signum, frame):
        raise Interrupted(signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, raise_interrupted)
    try:
        status = main()
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        status = BAD_INPUT
    except RunFailed as e:
        print(f"error: {e}", file=sys.stderr)
        status = RUN_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        status = 128 + signal.SIGINT
    except Interrupted as e:
        print(f"interrupted by signal {e.signum}", file=sys.stderr)
        status = 128 + e.signum
    except Exception:  # a bug: its traceback, and a status no caller reads as "regression"
        traceback.print_exc()
        status = INTERNAL_ERROR
    sys.exit(status or OK)
