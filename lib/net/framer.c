// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "framer.h"

void framer_init(struct framer *f, uint32_t payload_cap)
{
	memset(f, 0, sizeof(*f));
	f->payload_cap = payload_cap;
}

int framer_feed(struct framer *f, const uint8_t *buf, size_t len,
		framer_fn fn, void *arg)
{
	while (len) {
		if (f->skip) {
			size_t n = len < f->skip ? len : (size_t)f->skip;

			f->skip -= n;
			buf += n;
			len -= n;
			if (!f->skip) {
				int ret = fn(&f->msg, arg);

				if (ret)
					return ret;
			}
			continue;
		}
		size_t n = PROTO_HDR_LEN - f->have;

		if (n > len)
			n = len;
		memcpy(f->hdr + f->have, buf, n);
		f->have += n;
		buf += n;
		len -= n;
		if (f->have < PROTO_HDR_LEN)
			continue;
		int err = proto_decode(f->hdr, PROTO_HDR_LEN, f->payload_cap,
				       &f->msg);
		if (err)
			return err;
		f->have = 0;
		f->skip = f->msg.payload_len;
		if (!f->skip) {
			int ret = fn(&f->msg, arg);

			if (ret)
				return ret;
		}
	}
	return 0;
}
