#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# probe_order.sh PROBE KEY [FILTER]: the program of probe_order.test. Four probes on PROBE each
# append their digit to @s[KEY]; the fourth prints the last four digits and exits, so probes run
# in script order print 1234 and in any other order another number.
for i in 1 2 3; do
	printf '%s %s { @s[%s] = @s[%s] * 10 + %s; }\n' "$1" "$3" "$2" "$2" $i
done
printf '%s %s { $v = (@s[%s] * 10 + 4) %% 10000; @s[%s] = 0; ' "$1" "$3" "$2" "$2"
printf 'if ($v >= 1000) { printf("%%d\\n", $v); exit(); } }\n'
printf 'END { clear(@s); }\n'
