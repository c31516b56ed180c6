#!/usr/bin/env python3
"""check_cli_size.py: cli/ parses arguments and calls one function
(docs/architecture.md): the joins of a subcommand belong to model/, its
writing to render/. Checked by size: no source file of cli/ holds more than
LIMIT lines. Usage: check_cli_size.py SRC_ROOT. Exit 0 when every file is
within the limit, 1 otherwise (each file over it printed), 2 when cli/ holds
no source file at all (nothing was checked)."""
import os
import sys

LIMIT = 400


def main():
    if len(sys.argv) != 2:
        print("usage: check_cli_size.py SRC_ROOT", file=sys.stderr)
        return 2
    d = os.path.join(sys.argv[1], "cli")
    sizes = {}
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if f.endswith((".c", ".h")):
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                sizes[f] = sum(1 for _ in fh)
    if not sizes:
        print(f"FAIL: no C source in {d}: nothing checked")
        return 2
    over = {f: n for f, n in sizes.items() if n > LIMIT}
    for f, n in over.items():
        print(f"FAIL: cli/{f} holds {n} lines (at most {LIMIT}: move its model to model/, "
              f"its writing to render/)")
    big = max(sizes, key=sizes.get)
    print(f"{len(sizes)} files in cli/, {len(over)} over {LIMIT} lines; "
          f"largest cli/{big} ({sizes[big]})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
