from refind_cli.frontends.cli import run

run()
