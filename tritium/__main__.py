"""`python -m tritium explain SCRIPT.py ...` (also installed as the `tritium` command)."""
from __future__ import annotations

import sys
from typing import List, Optional

COMMANDS = {"explain": "show a kernel through every compiler stage, linked to its source"}


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        lines = [f"  {k:10s} {v}" for k, v in COMMANDS.items()]
        msg = "usage: tritium COMMAND [ARGS]\n\ncommands:\n" + "\n".join(lines)
        bad = argv and argv[0] not in ("-h", "--help")
        print((f"tritium: unknown command {argv[0]!r}\n" if bad else "") + msg,
              file=sys.stderr if bad or not argv else sys.stdout)
        return 2 if bad or not argv else 0
    from .tools.explain.cli import main as explain_main
    return explain_main(argv[1:], prog="tritium explain")


if __name__ == "__main__":
    sys.exit(main())
