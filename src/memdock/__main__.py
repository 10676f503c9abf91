import sys

from .cli.main import main

if __name__ == "__main__":  # not when a tool imports the package's modules (the docs build inspects them)
    sys.exit(main())
