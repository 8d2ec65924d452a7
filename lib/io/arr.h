/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arr: growing an array that is appended to (capacity doubled, from
 * first when empty), the one helper the list-keeping modules share.
 */
#ifndef WB_ARR_H
#define WB_ARR_H

#include <errno.h>
#include <stdlib.h>

/* Room for need elements of size bytes in *arr (capacity *cap): 0, or
 * -ENOMEM with *arr and *cap unchanged. */
static inline int arr_grow(void **arr, size_t *cap, size_t need, size_t size,
			   size_t first)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	while (ncap < need)
		ncap *= 2;
	if (ncap > (size_t)-1 / size)
		return -ENOMEM;
	n = realloc(*arr, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

#endif
