# swap-leak-early (issue 19, the knob of doc/triggers.md "Earlier, by
# choice"): swap-leak with swap_stall_max = 3s. The swap trigger, not
# the memory line, must end the leak, with swap still to spare, and
# once (nothing more dies in the 3 s after): the leak's kill may free
# RAM more than swap, and the history before it must not fire again
# after it. It once did in bench/swap, killing the idle job 0.3 s after
# the leak; that depends on the victim dying before the next sample, so
# the deterministic test of it is test-daemon-triggers'
# test_history_spent_by_kill (here, the binary before that fix passed
# 2 of 2 runs).
# vm-timeout: 200

SWAP_LEAK_CONF="swap_stall_max = 3s"
SWAP_LEAK_TRIGGER=swap
. /vm/scenarios/swap-leak.sh
