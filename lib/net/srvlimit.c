// SPDX-License-Identifier: GPL-2.0
#include "srvlimit.h"

int srv_fd_budget(uint64_t max_conns, uint64_t soft, uint64_t hard,
		  struct srv_fd_budget *out)
{
	uint64_t need = max_conns + SRV_FD_RESERVE;

	if (soft > hard)
		soft = hard;
	out->soft = soft;
	out->max_conns = max_conns;
	if (soft >= need)
		return 0;
	out->soft = hard < need ? hard : need;
	if (out->soft >= need)
		return 0;
	out->max_conns = out->soft > SRV_FD_RESERVE ?
			 out->soft - SRV_FD_RESERVE : 1;
	return 1;
}
