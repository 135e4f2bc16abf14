from memidx.cli.main import run_module

run_module()
