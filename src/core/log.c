/* SPDX-License-Identifier: MIT */
#include "core/log.h"

#include <stdarg.h>
#include <stdatomic.h>
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

/* Format and write one line; @suffix (may be "") goes after the text. */
static void log_vmsg(enum log_level lvl, const char *suffix, const char *fmt,
		     va_list ap)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	int n, m;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line),
		     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ nasd %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		     level_names[lvl]);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	if (*suffix) {
		m = snprintf(line + n, sizeof(line) - (size_t)n - 1, "%s",
			     suffix);
		if (m > 0)
			n += m;
		if (n > (int)sizeof(line) - 2)
			n = (int)sizeof(line) - 2;
	}
	line[n++] = '\n';
	/* One write per line keeps lines from different threads whole. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if ((int)lvl > log_level_max)
		return;
	va_start(ap, fmt);
	log_vmsg(lvl, "", fmt, ap);
	va_end(ap);
}

bool log_msg_ratelimited(struct log_ratelimit *rl, enum log_level lvl,
			 const char *fmt, ...)
{
	unsigned long long now, next, dropped;
	struct timespec ts;
	char suffix[64] = "";
	va_list ap;

	if ((int)lvl > log_level_max)
		return false;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (unsigned long long)ts.tv_sec * 1000u +
	      (unsigned long long)ts.tv_nsec / 1000000u + 1;
	next = atomic_load_explicit(&rl->next, memory_order_relaxed);
	/* One thread wins the slot; the others count themselves dropped. */
	if (now < next ||
	    !atomic_compare_exchange_strong(
		    &rl->next, &next, now + LOG_RATELIMIT_SECONDS * 1000u)) {
		atomic_fetch_add_explicit(&rl->suppressed, 1,
					  memory_order_relaxed);
		return false;
	}
	dropped = atomic_exchange_explicit(&rl->suppressed, 0,
					   memory_order_relaxed);
	if (dropped)
		(void)snprintf(suffix, sizeof(suffix),
			       " (%llu similar suppressed)", dropped);
	va_start(ap, fmt);
	log_vmsg(lvl, suffix, fmt, ap);
	va_end(ap);
	return true;
}
