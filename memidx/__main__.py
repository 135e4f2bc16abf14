from memidx.cli import run_module

run_module()
