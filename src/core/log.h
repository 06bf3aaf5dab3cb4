/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_LOG_H
#define NASD_CORE_LOG_H

#include <stdbool.h>

enum log_level {
	LL_ERROR,
	LL_WARN,
	LL_INFO,
	LL_DEBUG,
};

/* Lines at or below this level are written; set from the command line. */
extern int log_level_max;

/*
 * log_msg() - write one line "<time> <level> <message>" to stderr.
 * Thread-safe (one write(2) per line). Never pass secrets.
 */
void log_msg(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Rate-limited lines: at most one per this many seconds per call site. */
#define LOG_RATELIMIT_SECONDS 5

/*
 * One rate-limit state; log_ratelimited() keeps one per call site (a
 * static), so each reason is limited on its own.
 */
struct log_ratelimit {
	_Atomic unsigned long long next;       /* monotonic ms, next line due */
	_Atomic unsigned long long suppressed; /* lines dropped since last */
};

/*
 * log_msg_ratelimited() - like log_msg(), but at most one line per
 * LOG_RATELIMIT_SECONDS for @rl; the next line written says how many were
 * dropped in between. Thread-safe and lock-free. Returns true when the
 * line was written.
 */
bool log_msg_ratelimited(struct log_ratelimit *rl, enum log_level lvl,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* log_ratelimited() - a rate-limited line with its own per-site state. */
#define log_ratelimited(lvl, ...)                                              \
	do {                                                                   \
		static struct log_ratelimit log_rl_;                           \
		log_msg_ratelimited(&log_rl_, (lvl), __VA_ARGS__);             \
	} while (0)

#define log_err(...) log_msg(LL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LL_INFO, __VA_ARGS__)
#define log_debug(...)                                                         \
	do {                                                                   \
		if (log_level_max >= LL_DEBUG)                                 \
			log_msg(LL_DEBUG, __VA_ARGS__);                        \
	} while (0)

#endif
