"""The `memdock` command line: one module per command group, each registering its subcommands."""
