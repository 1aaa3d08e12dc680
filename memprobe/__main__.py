from memprobe.cli.main import main

main()
