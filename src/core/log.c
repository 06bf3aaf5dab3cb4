/* SPDX-License-Identifier: MIT */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int log_level_max = LL_INFO;

static const char *const level_names[] = {
	[LL_ERROR] = "error",
	[LL_WARN] = "warn",
	[LL_INFO] = "info",
	[LL_DEBUG] = "debug",
};

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n, m;

	if ((int)lvl > log_level_max)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line),
		     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ nasd %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		     level_names[lvl]);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line keeps lines from different threads whole. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
