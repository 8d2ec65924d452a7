// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "wire.h"

static const struct wb_proto_ops *const protocols[] = {
	&wire_wakebench,
	&wire_memcached,
	&wire_redis,
};

const struct wb_proto_ops *wire_find(const char *name)
{
	for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
		if (!strcmp(protocols[i]->name, name))
			return protocols[i];
	return NULL;
}
