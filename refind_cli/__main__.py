from refind_cli.frontends.cli import main

main()
