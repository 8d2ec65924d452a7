// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "opt.h"
#include "wbinst.h"

pid_t wbinst_pid(const char *name)
{
	static const char prefix[] = "wakebench-";
	uint64_t pid;

	if (strncmp(name, prefix, sizeof(prefix) - 1) ||
	    opt_u64(name + sizeof(prefix) - 1, 1, 4194304, &pid))
		return -1;
	return (pid_t)pid;
}

int wbinst_stale(const char *name, const char *proc, pid_t self)
{
	char path[256], comm[64] = "";
	pid_t pid = wbinst_pid(name);
	FILE *f;

	if (pid < 0)
		return 0;
	if (pid == self)
		return 1;
	snprintf(path, sizeof(path), "%s/%d/comm", proc, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, WBINST_OWNER_COMM) != 0;
}
