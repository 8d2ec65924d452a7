# tests/ports.sh, sourced by the test library and tests/golden/headers.sh.
# Fixed ports (a sweep's --server-port, the documents' examples) come from below
# the kernel's ephemeral range, which outgoing connections take from at
# any time: a port found free there could be taken before it is bound
# ("Address already in use", or a sweep refusing a held port).
EPH_LO=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
EPH_LO=${EPH_LO:-32768}
PORT_LO=10000
[ "$EPH_LO" -gt $((PORT_LO + 2000)) ] || PORT_LO=$((EPH_LO / 2))
# test_port OFFSET: this process's port number OFFSET (PORT+1 is free to use too)
test_port() { echo $((PORT_LO + ($$ + $1) % (EPH_LO - PORT_LO - 2))); }
