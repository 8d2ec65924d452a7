// SPDX-License-Identifier: GPL-2.0
/* trace export/import --format socwatch: being written (issue 17). */
#include <stdio.h>
#include "trace.h"

int trace_export_socwatch(const struct trace_xfer *x)
{
	fprintf(stderr, "%s: export %s: socwatch is not written yet\n", TRACE_PROG,
		x->trace_dir);
	return 1;
}

int trace_import_socwatch(const struct trace_xfer *x)
{
	fprintf(stderr, "%s: import %s: socwatch is not read yet\n", TRACE_PROG,
		x->file);
	return 1;
}
