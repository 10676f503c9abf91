from .cli.main import run

if __name__ == "__main__":  # not when a tool imports the package's modules (the docs build inspects them)
    run()
