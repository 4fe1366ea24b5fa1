#!/bin/sh
# redis-cluster.sh: a local Redis Cluster of 3 masters and 3 replicas, made of
# the machine's redis-server processes on free loopback ports, for trying
# relayops on a cluster.
#
#   scripts/redis-cluster.sh start [-dir DIR]   start the 6 nodes and create the cluster
#   scripts/redis-cluster.sh status [-dir DIR]  each node's pid, role and cluster state;
#                                               exit 0 only when all 6 run and the cluster is ok
#   scripts/redis-cluster.sh stop [-dir DIR]    stop the nodes this script started
#
# DIR (default ${TMPDIR:-/tmp}/relayops-cluster) holds one directory per node
# (its redis.conf, AOF, nodes.conf, log and pid file) and `addrs`, the seed
# addresses as one comma-separated host:port list. `start` prints that list
# last, on its own line, so `addrs=$(scripts/redis-cluster.sh start | tail -n 1)`
# captures it. Nodes run with AOF on (appendfsync everysec) and a 2 s
# cluster-node-timeout, so a killed master's replica takes over in seconds.
#
# `stop` signals only the pids in DIR's pid files, and only when that pid is
# still a redis-server: SIGTERM, then SIGKILL after 10 s. `start` on a DIR
# whose nodes run refuses (stop first); otherwise it removes the node
# directories a previous run left there and begins from empty nodes.
#
# Environment: CLUSTER_TIMEOUT, seconds to wait for the cluster (default 60).
# Needs only POSIX sh, redis-server and redis-cli (Debian: redis-server, which
# pulls in redis-tools).
set -eu

NODES=6
TIMEOUT=${CLUSTER_TIMEOUT:-60}

usage() {
	echo "usage: $0 start|stop|status [-dir DIR]" >&2
	exit 2
}

die() {
	echo "redis-cluster: $*" >&2
	exit 1
}

[ $# -ge 1 ] || usage
cmd=$1
shift
DIR=${TMPDIR:-/tmp}/relayops-cluster
while [ $# -gt 0 ]; do
	case $1 in
	-dir)
		[ $# -ge 2 ] || usage
		DIR=$2
		shift 2
		;;
	*) usage ;;
	esac
done

# alive PIDFILE: true when the pid file names a running redis-server.
alive() {
	[ -f "$1" ] || return 1
	pid=$(cat "$1")
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	kill -0 "$pid" 2>/dev/null || return 1
	# A killed node not yet reaped (a zombie) is not running.
	case $(ps -p "$pid" -o stat= 2>/dev/null || true) in *Z*) return 1 ;; esac
	# A reused pid must not be mistaken for our node.
	case $(ps -p "$pid" -o comm= 2>/dev/null || true) in redis-server*) return 0 ;; esac
	return 1
}

# random_base: a port in 20000..44999 (its cluster bus, port+10000, stays
# below 65536), from /dev/urandom.
random_base() {
	n=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	echo $((20000 + n % 25000))
}

# start_node I PORT: runs node I on PORT in the background; true once it
# answers (INFO, from its own pid), false (and nothing left running) when it exits first, e.g.
# because the port is taken.
start_node() {
	i=$1
	port=$2
	nd=$DIR/node$i
	mkdir -p "$nd"
	cat >"$nd/redis.conf" <<EOF
port $port
bind 127.0.0.1
protected-mode no
dir $nd
daemonize no
save ""
appendonly yes
appendfsync everysec
cluster-enabled yes
cluster-config-file nodes.conf
cluster-node-timeout 2000
repl-diskless-sync-delay 0
EOF
	nohup redis-server "$nd/redis.conf" </dev/null >>"$nd/redis.log" 2>&1 &
	echo $! >"$nd/pid"
	deadline=$(($(date +%s) + 15))
	while :; do
		# The answer must come from this node's own process: another server
		# already on the port (another test's, say) answers too, and this
		# one then exits with a bind error.
		answered=$(redis-cli -h 127.0.0.1 -p "$port" info server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p' || true)
		if [ -n "$answered" ] && [ "$answered" = "$(cat "$nd/pid")" ]; then
			echo "$port" >"$nd/port"
			return 0
		fi
		if ! alive "$nd/pid"; then
			rm -f "$nd/pid"
			return 1
		fi
		if [ "$(date +%s)" -gt "$deadline" ]; then
			kill -9 "$(cat "$nd/pid")" 2>/dev/null || true
			rm -f "$nd/pid"
			die "node$i on port $port did not answer PING within 15 s; see $nd/redis.log"
		fi
		sleep 0.1
	done
}

node_ports() {
	i=1
	while [ "$i" -le "$NODES" ]; do
		[ -f "$DIR/node$i/port" ] && cat "$DIR/node$i/port"
		i=$((i + 1))
	done
}

# cluster_ok: every node says cluster_state:ok with all 16384 slots assigned
# and ok, and every replica's link to its master is up (synced, so it can
# take over).
cluster_ok() {
	for port in $(node_ports); do
		info=$(redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | tr -d '\r') || return 1
		echo "$info" | grep -qx 'cluster_state:ok' || return 1
		echo "$info" | grep -qx 'cluster_slots_assigned:16384' || return 1
		echo "$info" | grep -qx 'cluster_slots_ok:16384' || return 1
		repl=$(redis-cli -h 127.0.0.1 -p "$port" info replication 2>/dev/null | tr -d '\r') || return 1
		if echo "$repl" | grep -qx 'role:slave'; then
			echo "$repl" | grep -qx 'master_link_status:up' || return 1
		fi
	done
}

do_start() {
	command -v redis-server >/dev/null 2>&1 || die "redis-server not found on PATH (apt-get install -y redis-server)"
	command -v redis-cli >/dev/null 2>&1 || die "redis-cli not found on PATH (apt-get install -y redis-tools)"
	i=1
	while [ "$i" -le "$NODES" ]; do
		alive "$DIR/node$i/pid" && die "node$i (pid $(cat "$DIR/node$i/pid")) of $DIR is running; run '$0 stop -dir $DIR' first"
		i=$((i + 1))
	done
	i=1
	while [ "$i" -le "$NODES" ]; do
		rm -rf "$DIR/node$i"
		i=$((i + 1))
	done
	rm -f "$DIR/addrs" "$DIR/create.log"
	mkdir -p "$DIR"
	started=$(date +%s)
	port=$(random_base)
	i=1
	while [ "$i" -le "$NODES" ]; do
		tries=0
		until start_node "$i" "$port"; do
			tries=$((tries + 1))
			[ "$tries" -lt 20 ] || die "node$i: no free port after 20 tries; see $DIR/node$i/redis.log"
			port=$(random_base)
		done
		echo "redis-cluster: node$i listening on 127.0.0.1:$port (pid $(cat "$DIR/node$i/pid"))"
		port=$((port + 1))
		i=$((i + 1))
	done
	addrs=""
	for p in $(node_ports); do addrs="$addrs 127.0.0.1:$p"; done
	echo "redis-cluster: creating the cluster (3 masters, 3 replicas)"
	# shellcheck disable=SC2086 # addrs is a list of host:port words
	if ! redis-cli --cluster create $addrs --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1; then
		cat "$DIR/create.log" >&2
		do_stop
		die "redis-cli --cluster create failed; nodes stopped"
	fi
	deadline=$((started + TIMEOUT))
	until cluster_ok; do
		if [ "$(date +%s)" -gt "$deadline" ]; then
			do_status >&2 || true
			do_stop
			die "cluster not ok within ${TIMEOUT} s; nodes stopped"
		fi
		echo "redis-cluster: waiting for cluster_state:ok on every node ($(($(date +%s) - started)) s)"
		sleep 0.5
	done
	list=$(echo "$addrs" | sed 's/^ //; s/ /,/g')
	echo "$list" >"$DIR/addrs"
	echo "redis-cluster: ok in $(($(date +%s) - started)) s; all 16384 slots covered; state in $DIR"
	echo "redis-cluster: seed addresses (also in $DIR/addrs):"
	echo "$list"
}

do_stop() {
	stopped=0
	i=1
	while [ "$i" -le "$NODES" ]; do
		pf=$DIR/node$i/pid
		if alive "$pf"; then
			kill -TERM "$(cat "$pf")" 2>/dev/null || true
			stopped=$((stopped + 1))
		fi
		i=$((i + 1))
	done
	deadline=$(($(date +%s) + 10))
	i=1
	while [ "$i" -le "$NODES" ]; do
		pf=$DIR/node$i/pid
		while alive "$pf"; do
			if [ "$(date +%s)" -gt "$deadline" ]; then
				echo "redis-cluster: node$i ignored SIGTERM for 10 s; killing it" >&2
				kill -KILL "$(cat "$pf")" 2>/dev/null || true
			fi
			sleep 0.1
		done
		rm -f "$pf"
		i=$((i + 1))
	done
	echo "redis-cluster: stopped $stopped node(s) of $DIR"
}

do_status() {
	[ -d "$DIR" ] || die "no cluster state in $DIR"
	running=0
	i=1
	while [ "$i" -le "$NODES" ]; do
		nd=$DIR/node$i
		port=$(cat "$nd/port" 2>/dev/null || echo "?")
		if alive "$nd/pid"; then
			running=$((running + 1))
			role=$(redis-cli -h 127.0.0.1 -p "$port" role 2>/dev/null | head -n 1 || true)
			state=$(redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_state://p' || true)
			echo "node$i 127.0.0.1:$port pid $(cat "$nd/pid") ${role:-?} cluster_state:${state:-?}"
		else
			echo "node$i 127.0.0.1:$port not running"
		fi
		i=$((i + 1))
	done
	[ -f "$DIR/addrs" ] && echo "seed addresses: $(cat "$DIR/addrs")"
	[ "$running" -eq "$NODES" ] && cluster_ok
}

case $cmd in
start) do_start ;;
stop) do_stop ;;
status) do_status ;;
*) usage ;;
esac
