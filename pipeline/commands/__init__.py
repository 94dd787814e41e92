"""One module per ``uth`` subcommand; each defines ``register(subparsers)`` that adds its
parser and sets ``func`` to a callable taking the parsed args and returning an exit code.
Modules import heavy dependencies inside ``func`` so ``uth --help`` stays fast."""
