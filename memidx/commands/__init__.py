"""The handlers of memidx's subcommands, imported only when their command runs."""
