// SPDX-License-Identifier: GPL-2.0
/*
 * wakenet: the namespace and veth pair of `wakebench wake --netns`
 * (wakenet.h), made with ip(8): the commands a reader would type, and
 * their own messages when one fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "errmsg.h"
#include "wakenet.h"

#define NETNS_DIR "/run/netns"

/* Runs ip with args (NULL-terminated); its output into err on failure. */
static int run_ip(char *err, size_t errlen, const char *const *args)
{
	char out[512] = "";
	size_t used = 0;
	int p[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp("ip", (char *const *)args);
		execv("/usr/sbin/ip", (char *const *)args);
		execv("/sbin/ip", (char *const *)args);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], out + used, sizeof(out) - 1 - used)) > 0)
		used += (size_t)n;
	out[used] = 0;
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	if (err) {
		size_t off = 0;

		for (int i = 0; args[i]; i++)
			off += (size_t)snprintf(err + off, off < errlen ? errlen - off : 0,
						"%s%s", i ? " " : "", args[i]);
		if (off < errlen)
			snprintf(err + off, errlen - off, ": %s",
				 WIFEXITED(st) && WEXITSTATUS(st) == 127 ?
				 "ip(8) not found (iproute2)" : used ? out : "failed");
		/* ip ends its message with a newline */
		if ((off = strlen(err)) && err[off - 1] == '\n')
			err[off - 1] = 0;
	}
	return -EIO;
}

#define IP(...) run_ip(err, errlen, (const char *const[]){ "ip", __VA_ARGS__, NULL })

static void addr_text(uint32_t a, int prefix, char *buf, size_t len)
{
	struct in_addr x = { a };
	char t[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &x, t, sizeof(t));
	snprintf(buf, len, "%s/%d", t, prefix);
}

/* The host end's receive queue steered to cpu (RPS). */
static int set_rps(const struct wake_netns *n, int cpu, char *err, size_t errlen)
{
	char path[128], mask[64];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-0/rps_cpus",
		 n->host_if);
	/* the mask in 32-bit groups, the lowest last */
	len = snprintf(mask, sizeof(mask), "%x", 1u << (cpu % 32));
	for (int g = 0; g < cpu / 32 && len < (int)sizeof(mask) - 10; g++)
		len += snprintf(mask + len, sizeof(mask) - (size_t)len, ",00000000");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, mask, (size_t)len) != len)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret)
		errmsg_set(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}

int wake_netns_create(struct wake_netns *n, int rps_cpu, char *err,
		      size_t errlen)
{
	unsigned int pid = (unsigned int)getpid(), base = (pid % 16384) * 4;
	char host[32], peer[32];
	int ret;

	*n = (struct wake_netns){ 0 };
	snprintf(n->name, sizeof(n->name), "wbw%u", pid);
	snprintf(n->host_if, sizeof(n->host_if), "wbw%uh", pid);
	snprintf(n->ns_if, sizeof(n->ns_if), "wbw%un", pid);
	n->host_addr = htonl((10u << 24) | (213u << 16) | (base + 1));
	n->ns_addr = htonl((10u << 24) | (213u << 16) | (base + 2));
	addr_text(n->host_addr, 30, host, sizeof(host));
	addr_text(n->ns_addr, 30, peer, sizeof(peer));
	ret = IP("netns", "add", n->name);
	if (ret)
		return ret;
	n->created = 1;
	ret = IP("link", "add", n->host_if, "type", "veth", "peer", "name",
		 n->ns_if, "netns", n->name);
	if (!ret)
		ret = IP("addr", "add", host, "dev", n->host_if);
	if (!ret)
		ret = IP("link", "set", n->host_if, "up");
	if (!ret)
		ret = IP("-n", n->name, "addr", "add", peer, "dev", n->ns_if);
	if (!ret)
		ret = IP("-n", n->name, "link", "set", n->ns_if, "up");
	if (!ret && rps_cpu >= 0)
		ret = set_rps(n, rps_cpu, err, errlen);
	if (ret)
		wake_netns_remove(n);
	return ret;
}

int wake_netns_socket(const struct wake_netns *n, int *fd, char *err,
		      size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = { n->ns_addr } };
	char path[128];
	int self, ns, s = -1, ret = 0;

	snprintf(path, sizeof(path), NETNS_DIR "/%s", n->name);
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET)) {
		ret = -errno;
		errmsg_set(err, errlen, "cannot enter %s: %s", path, strerror(errno));
		goto out;
	}
	/* a socket belongs to the namespace it was made in, for good */
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a))) {
		ret = -errno;
		errmsg_set(err, errlen, "a UDP socket in %s: %s", n->name, strerror(errno));
	}
	if (setns(self, CLONE_NEWNET) && !ret) {
		ret = -errno;
		errmsg_set(err, errlen, "cannot leave %s: %s", n->name, strerror(errno));
	}
out:
	if (self >= 0)
		close(self);
	if (ns >= 0)
		close(ns);
	if (ret && s >= 0)
		close(s);
	if (!ret)
		*fd = s;
	return ret;
}

int wake_netns_remove(struct wake_netns *n)
{
	int ret;

	if (!n->created)
		return 0;
	/* the pair first, at once: a namespace's devices go only when the
	 * kernel's cleanup gets to it, a moment after the namespace */
	if (n->host_if[0])
		run_ip(NULL, 0, (const char *const[]){ "ip", "link", "del", n->host_if, NULL });
	ret = run_ip(NULL, 0, (const char *const[]){ "ip", "netns", "del", n->name, NULL });
	if (!ret)
		n->created = 0;
	return ret;
}

int wake_netns_stale(char *gone, size_t len)
{
	DIR *d = opendir(NETNS_DIR);
	struct dirent *de;
	size_t used = 0;
	int count = 0;

	if (len)
		gone[0] = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct wake_netns n = { .created = 1 };
		unsigned int pid;
		char tail;

		if (sscanf(de->d_name, "wbw%u%c", &pid, &tail) != 1 || !pid)
			continue;
		if (!kill((pid_t)pid, 0) || errno != ESRCH)
			continue;	/* its run goes on */
		snprintf(n.name, sizeof(n.name), "wbw%u", pid);
		snprintf(n.host_if, sizeof(n.host_if), "wbw%uh", pid);
		if (wake_netns_remove(&n))
			continue;
		count++;
		used += (size_t)snprintf(gone + used, used < len ? len - used : 0,
					 "%s%s", count > 1 ? "," : "", n.name);
	}
	closedir(d);
	return count;
}
