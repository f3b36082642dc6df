"""How ``RungeKuttaIntegrator.run_loop`` calls a compiled stepping loop again after each
control: ``loop_resume``."""


def loop_resume(run, args):
    """What ``run_loop`` calls the loop ``run`` with again after each control: its compiled
    function itself where the dispatcher holds one signature, the one it has just run on these
    very ``args`` (the arrays keep their types between the calls), skipping the dispatcher's
    typing of the 26-28 arguments (about 2.5 of a Solo12 contact loop's 10 us re-entry); the
    dispatcher otherwise. Omitted trailing arguments (a loop's ``fx=None``) are passed as None."""
    if len(run.overloads) != 1:
        return run
    (signature, compiled), = run.overloads.items()
    entry, missing = compiled.entry_point, len(signature) - len(args)  # (the key: the argument types)
    if missing <= 0:
        return entry
    tail = (None,) * missing
    return lambda *a: entry(*a, *tail)
