# Sourced by the benchmark scripts: `start_redis DIR` starts redis-server as the Redis comparison's
# comparison needs it: listening only on the Unix socket DIR/redis.sock (port 0, nothing on
# TCP), its files in DIR, appendonly yes with appendfsync always (every write fsynced before
# its reply, as registerd's journal is), no RDB snapshots. It sets `redis_pid`; the caller
# stops it. The caller waits for the socket.
start_redis() {
  local dir=$1
  mkdir -p "$dir"
  cat >"$dir/redis.conf" <<CONF
port 0
unixsocket $dir/redis.sock
unixsocketperm 700
dir $dir
appendonly yes
appendfsync always
save ""
daemonize no
logfile $dir/redis.log
CONF
  redis-server "$dir/redis.conf" &
  redis_pid=$!
}
