"""The ``uth`` command line. Each subcommand lives in ``pipeline/commands/<name>.py`` and
exposes ``register(subparsers)``; this module only discovers and dispatches them."""

from __future__ import annotations

import argparse
import gc
import importlib
import pkgutil
import re
import sys
from collections.abc import Sequence

from events.localtime import LocalTimeError
from pipeline import commands
from pipeline.terminal import VisibleText


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uth",
        description="Ultimate Texas Hold'em hand history: simulate, ingest, audit, load, show.",
    )
    parser.add_argument("--version", action="version", version=f"uth {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    for command in sub.choices.values():  # the modules' docstrings are read as help
        command.description = _plain(command.description)
        for action in command._actions:
            action.help = _plain(action.help)
    return parser


def _unrecognized(parser: argparse.ArgumentParser, command: str | None,
                  extra: list[str]) -> None:
    """Stop on arguments no option takes, with the command's own usage and the nearest
    option's name (``--tabel``: did you mean ``--table``?)."""
    import difflib

    target = parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            target = action.choices[command]
    options = [o for a in target._actions for o in a.option_strings if o.startswith("--")]
    hints = []
    for word in extra:
        near = difflib.get_close_matches(word.split("=")[0], options, n=1, cutoff=0.6)
        if word.startswith("-") and near:
            hints.append(f"{word}: did you mean {near[0]}?")
    message = f"unrecognized arguments: {' '.join(extra)}"
    target.error(message + (" (" + "; ".join(hints) + ")" if hints else ""))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("uth-floor")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def _plain(text: str | None) -> str | None:
    """Help text as a person reads it in a terminal: ``code`` marks dropped."""
    return re.sub(r"``(.+?)``", r"\1", text, flags=re.S) if text else text


# commands run as a process of their own (``argv`` None) whose exit skips the collector's
# last passes; a command called from Python (tests) keeps its collector as it was
FREEZE_AT_EXIT = frozenset({"load"})


def main(argv: Sequence[str] | None = None) -> int:
    # everything a command prints passes through the guard: text from events is shown,
    # never obeyed, by the terminal (the progress bars' carriage return is the commands')
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleText(out), VisibleText(err, keep="\n\t\r")  # type: ignore[assignment]
    command = ""
    try:
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        command = args.command
        if extra:
            _unrecognized(parser, command, extra)
        if args.command is None:  # `uth` alone: what it can do, not an error
            parser.print_help()
            return 0
        code = int(args.func(args) or 0)
        if argv is None and args.command in FREEZE_AT_EXIT:
            # the process ends now: the interpreter's last collections skip every object
            # made so far (Dagster's, pandas'...), a second of a small load's time on this
            # machine; objects are still freed and files flushed as the process ends
            gc.freeze()
        return code
    except KeyboardInterrupt:
        return 130
    except LocalTimeError as exc:  # UTH_TIMEZONE, UTH_SHIFTS...: a setting, not a bug
        print(f"uth {command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    finally:
        sys.stdout, sys.stderr = out, err


if __name__ == "__main__":
    sys.exit(main())
