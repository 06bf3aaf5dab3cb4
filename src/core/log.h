/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_LOG_H
#define NASD_CORE_LOG_H

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

#define log_err(...) log_msg(LL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LL_INFO, __VA_ARGS__)
#define log_debug(...)                                                         \
	do {                                                                   \
		if (log_level_max >= LL_DEBUG)                                 \
			log_msg(LL_DEBUG, __VA_ARGS__);                        \
	} while (0)

#endif
