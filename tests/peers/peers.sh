# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Sourced by tests/peers/setup and tests/peers/bpftrace-peer: reads peers.list (beside this file)
# into PEERS_DIR, PEERS_MIRROR, PEER_NAMES (in table order), PEER_SUITE[NAME] and
# PEER_VERSION[NAME], so that both read the one table the same way. Bash only, no fork: the
# wrapper runs it on every call.

# The file that marks a chroot complete (setup writes it last) and records what it holds.
PEER_STAMP=.aotrace-peer

peers_read() {
	local list=$1 key a b c
	PEERS_DIR='' PEERS_MIRROR='' PEER_NAMES=()
	declare -gA PEER_SUITE=() PEER_VERSION=()
	while read -r key a b c; do
		case $key in
		'' | '#'*) ;;
		dir) PEERS_DIR=$a ;;
		mirror) PEERS_MIRROR=$a ;;
		peer)
			PEER_NAMES+=("$a")
			PEER_SUITE[$a]=$b
			PEER_VERSION[$a]=$c
			;;
		*)
			echo "$list: unknown line '$key $a $b $c'" >&2
			return 1
			;;
		esac
	done <"$list"
	PEERS_DIR=${AOTRACE_PEERS_DIR:-$PEERS_DIR}
	PEERS_MIRROR=${AOTRACE_PEERS_MIRROR:-$PEERS_MIRROR}
}
