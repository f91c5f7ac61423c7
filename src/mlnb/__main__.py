"""``python -m mlnb``: the ``mlnb`` command (:func:`mlnb.cli.main`), the same sub-commands.

``python -m mlnb demo`` is the short demonstration on generated data that this module used
to run (see ``mlnb demo --help``).
"""

from .cli import main

if __name__ == "__main__":
    main(prog_name="mlnb")
