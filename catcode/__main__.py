"""Allow ``python -m catcode``."""

from catcode.cli import main

if __name__ == "__main__":
    main()
