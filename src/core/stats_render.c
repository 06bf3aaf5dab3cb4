/* SPDX-License-Identifier: MIT */
/*
 * Statistics as text: a table for people (`nasd stats`), JSON
 * (`nasd stats --json`) and the Prometheus text exposition format 0.0.4
 * (`--metrics`, https://prometheus.io/docs/instrumenting/exposition_formats/).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

/* A growing string; any failure sticks in @oom and the text is dropped. */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

static bool sb_reserve(struct sbuf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

__attribute__((format(printf, 2, 3))) static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!sb_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	/* Cannot fail or truncate: the same format measured n above. */
	(void)vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void sb_putc(struct sbuf *b, char c)
{
	if (!sb_reserve(b, 1))
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* A JSON string (RFC 8259 §7) with its quotes. */
static void sb_json_str(struct sbuf *b, const char *s)
{
	sb_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20)
			sb_printf(b, "\\u%04x", c);
		else
			sb_putc(b, (char)c);
	}
	sb_putc(b, '"');
}

/* A Prometheus label value: backslash, quote and newline escaped. */
static void sb_prom_label(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			sb_printf(b, "\\%c", *s);
		else if (*s == '\n')
			sb_printf(b, "\\n");
		else
			sb_putc(b, *s);
	}
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static double avg_ns(const struct stats_proc_snap *p)
{
	return p->count ? (double)p->sum_ns / (double)p->count : 0;
}

static void render_text(struct sbuf *b, const struct stats_snapshot *s)
{
	unsigned int i, shown = 0;
	char name[3 * STATS_NAME_MAX];

	sb_printf(b,
		  "uptime %.1f s; cpu %.2f s (user %.2f, system %.2f); "
		  "rss %.1f MiB (peak %.1f MiB)\n",
		  s->uptime, s->cpu_user + s->cpu_system, s->cpu_user,
		  s->cpu_system, (double)s->rss_bytes / 1048576.0,
		  (double)s->max_rss_bytes / 1048576.0);
	sb_printf(b,
		  "connections %llu open, %llu total; bytes read %llu, "
		  "written %llu; rejected calls %llu\n",
		  (unsigned long long)s->conns_current,
		  (unsigned long long)s->conns_total,
		  (unsigned long long)s->bytes_read,
		  (unsigned long long)s->bytes_written,
		  (unsigned long long)s->rejected);
	if (s->nloops) {
		sb_printf(b, "connections per event loop:");
		for (i = 0; i < s->nloops; i++)
			sb_printf(b, " %u", (unsigned int)s->loop_conns[i]);
		sb_printf(b, "\n");
	}
	sb_printf(b, "limits hit:");
	for (i = 0; i < STATS_LIMIT_NR; i++)
		sb_printf(b, "%s %s %llu", i ? "," : "",
			  stats_limit_name((enum stats_limit)i),
			  (unsigned long long)s->limit_hits[i]);
	sb_printf(b, "\n");
	for (i = 0; i < s->nvalues; i++)
		sb_printf(b, "%s%s %llu%s", i ? ", " : "", s->values[i].name,
			  (unsigned long long)s->values[i].value,
			  i + 1 == s->nvalues ? "\n" : "");
	sb_printf(b, "\n");
	sb_printf(b, "%-24s %10s %8s %10s %10s %10s %10s\n", "PROCEDURE",
		  "COUNT", "ERRORS", "AVG(us)", "P50(us)", "P99(us)",
		  "MAX(us)");
	for (i = 0; i < s->nprocs; i++) {
		const struct stats_proc_snap *p = &s->procs[i];

		if (!p->count)
			continue;
		shown++;
		/* A display column: a long name is cut, not an error. */
		(void)snprintf(name, sizeof(name), "%s/%u/%s", p->program,
			       p->vers, p->proc);
		sb_printf(b, "%-24s %10llu %8llu %10.1f %10.1f %10.1f %10.1f\n",
			  name, (unsigned long long)p->count,
			  (unsigned long long)p->rpc_errors + p->status_errors,
			  avg_ns(p) / 1e3, us(stats_quantile_ns(p, 0.5)),
			  us(stats_quantile_ns(p, 0.99)), us(p->max_ns));
	}
	if (!shown)
		sb_printf(b, "(no calls yet)\n");
}

static void render_json(struct sbuf *b, const struct stats_snapshot *s)
{
	unsigned int i;

	sb_printf(b,
		  "{\"uptime_seconds\":%.3f,\"start_time_seconds\":%.3f,"
		  "\"process\":{\"cpu_user_seconds\":%.6f,"
		  "\"cpu_system_seconds\":%.6f,\"cpu_seconds\":%.6f,"
		  "\"resident_bytes\":%llu,\"max_resident_bytes\":%llu},",
		  s->uptime, s->start_time, s->cpu_user, s->cpu_system,
		  s->cpu_user + s->cpu_system, (unsigned long long)s->rss_bytes,
		  (unsigned long long)s->max_rss_bytes);
	sb_printf(b,
		  "\"connections\":{\"current\":%llu,\"total\":%llu,"
		  "\"per_loop\":[",
		  (unsigned long long)s->conns_current,
		  (unsigned long long)s->conns_total);
	for (i = 0; i < s->nloops; i++)
		sb_printf(b, "%s%u", i ? "," : "",
			  (unsigned int)s->loop_conns[i]);
	sb_printf(b,
		  "]},"
		  "\"bytes_read\":%llu,\"bytes_written\":%llu,"
		  "\"rejected_calls\":%llu,\"limits\":{",
		  (unsigned long long)s->bytes_read,
		  (unsigned long long)s->bytes_written,
		  (unsigned long long)s->rejected);
	for (i = 0; i < STATS_LIMIT_NR; i++)
		sb_printf(b, "%s\"%s\":%llu", i ? "," : "",
			  stats_limit_name((enum stats_limit)i),
			  (unsigned long long)s->limit_hits[i]);
	sb_printf(b, "},\"values\":{");
	for (i = 0; i < s->nvalues; i++) {
		sb_printf(b, "%s", i ? "," : "");
		sb_json_str(b, s->values[i].name);
		sb_printf(b, ":%llu", (unsigned long long)s->values[i].value);
	}
	sb_printf(b, "},\"procedures\":[");
	for (i = 0; i < s->nprocs; i++) {
		const struct stats_proc_snap *p = &s->procs[i];

		sb_printf(b, "%s\n{\"program\":", i ? "," : "");
		sb_json_str(b, p->program);
		sb_printf(b, ",\"version\":%u,\"procedure\":", p->vers);
		sb_json_str(b, p->proc);
		sb_printf(b,
			  ",\"proc\":%u,\"count\":%llu,\"rpc_errors\":%llu,"
			  "\"status_errors\":%llu,\"latency_us\":{"
			  "\"avg\":%.3f,\"p50\":%.3f,\"p99\":%.3f,"
			  "\"max\":%.3f}}",
			  p->procnum, (unsigned long long)p->count,
			  (unsigned long long)p->rpc_errors,
			  (unsigned long long)p->status_errors, avg_ns(p) / 1e3,
			  us(stats_quantile_ns(p, 0.5)),
			  us(stats_quantile_ns(p, 0.99)), us(p->max_ns));
	}
	sb_printf(b, "]}\n");
}

static void prom_head(struct sbuf *b, const char *name, const char *type,
		      const char *help)
{
	sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom_labels(struct sbuf *b, const struct stats_proc_snap *p)
{
	sb_printf(b, "program=\"");
	sb_prom_label(b, p->program);
	sb_printf(b, "\",version=\"%u\",proc=\"", p->vers);
	sb_prom_label(b, p->proc);
	sb_putc(b, '"');
}

/* One counter per procedure; @field picks it. */
static void prom_proc_counter(struct sbuf *b, const struct stats_snapshot *s,
			      const char *name, const char *help, size_t field)
{
	unsigned int i;

	prom_head(b, name, "counter", help);
	for (i = 0; i < s->nprocs; i++) {
		const struct stats_proc_snap *p = &s->procs[i];
		uint64_t v;

		memcpy(&v, (const char *)p + field, sizeof(v));
		sb_printf(b, "%s{", name);
		prom_labels(b, p);
		sb_printf(b, "} %llu\n", (unsigned long long)v);
	}
}

/*
 * The histogram with one le bound per power of two of nanoseconds (every
 * STATS_HIST_SUB-th bucket boundary, so each bound is exact).
 */
static void prom_histogram(struct sbuf *b, const struct stats_snapshot *s)
{
	const char *n = "nasd_rpc_latency_seconds";
	unsigned int i, bkt, e;
	uint64_t cum;

	prom_head(b, n, "histogram",
		  "Time from dispatch to reply built, by procedure.");
	for (i = 0; i < s->nprocs; i++) {
		const struct stats_proc_snap *p = &s->procs[i];

		if (!p->count)
			continue;
		cum = p->buckets[0];
		bkt = 0;
		for (e = STATS_HIST_MIN_SHIFT; e <= STATS_HIST_MAX_SHIFT; e++) {
			while (bkt + 1 < STATS_NBUCKETS - 1 &&
			       stats_bucket_upper(bkt + 1) <=
				       (UINT64_C(1) << e))
				cum += p->buckets[++bkt];
			sb_printf(b, "%s_bucket{", n);
			prom_labels(b, p);
			sb_printf(b, ",le=\"%.9g\"} %llu\n",
				  (double)(UINT64_C(1) << e) / 1e9,
				  (unsigned long long)cum);
		}
		sb_printf(b, "%s_bucket{", n);
		prom_labels(b, p);
		sb_printf(b, ",le=\"+Inf\"} %llu\n",
			  (unsigned long long)p->count);
		sb_printf(b, "%s_sum{", n);
		prom_labels(b, p);
		sb_printf(b, "} %.9f\n", (double)p->sum_ns / 1e9);
		sb_printf(b, "%s_count{", n);
		prom_labels(b, p);
		sb_printf(b, "} %llu\n", (unsigned long long)p->count);
	}
}

static void prom_scalar(struct sbuf *b, const char *name, const char *type,
			const char *help, unsigned long long v)
{
	prom_head(b, name, type, help);
	sb_printf(b, "%s %llu\n", name, v);
}

static void render_prom(struct sbuf *b, const struct stats_snapshot *s)
{
	unsigned int i;

	prom_proc_counter(b, s, "nasd_rpc_requests_total",
			  "RPC calls answered, by procedure.",
			  offsetof(struct stats_proc_snap, count));
	prom_proc_counter(b, s, "nasd_rpc_errors_total",
			  "Calls answered with an RPC accept_stat other than "
			  "SUCCESS.",
			  offsetof(struct stats_proc_snap, rpc_errors));
	prom_proc_counter(b, s, "nasd_rpc_status_errors_total",
			  "Calls answered with a protocol status other than "
			  "OK.",
			  offsetof(struct stats_proc_snap, status_errors));
	prom_histogram(b, s);
	prom_scalar(b, "nasd_rpc_rejected_total", "counter",
		    "Calls for no served procedure or with a bad credential.",
		    (unsigned long long)s->rejected);
	prom_head(b, "nasd_limit_hits_total", "counter",
		  "Times a resource bound was hit, by bound.");
	for (i = 0; i < STATS_LIMIT_NR; i++)
		sb_printf(b, "nasd_limit_hits_total{limit=\"%s\"} %llu\n",
			  stats_limit_name((enum stats_limit)i),
			  (unsigned long long)s->limit_hits[i]);
	prom_scalar(b, "nasd_bytes_read_total", "counter",
		    "File data bytes sent to clients.",
		    (unsigned long long)s->bytes_read);
	prom_scalar(b, "nasd_bytes_written_total", "counter",
		    "File data bytes written for clients.",
		    (unsigned long long)s->bytes_written);
	prom_scalar(b, "nasd_connections", "gauge",
		    "Client connections open now.",
		    (unsigned long long)s->conns_current);
	prom_scalar(b, "nasd_connections_total", "counter",
		    "Client connections accepted.",
		    (unsigned long long)s->conns_total);
	if (s->nloops) {
		prom_head(b, "nasd_loop_connections", "gauge",
			  "Client connections open now, by event loop.");
		for (i = 0; i < s->nloops; i++)
			sb_printf(b, "nasd_loop_connections{loop=\"%u\"} %u\n",
				  i, (unsigned int)s->loop_conns[i]);
	}
	for (i = 0; i < s->nvalues; i++) {
		char name[STATS_NAME_MAX + 8];

		(void)snprintf(name, sizeof(name), "nasd_%s",
			       s->values[i].name); /* fits */
		prom_scalar(b, name, s->values[i].counter ? "counter" : "gauge",
			    s->values[i].help,
			    (unsigned long long)s->values[i].value);
	}
	prom_head(b, "nasd_uptime_seconds", "gauge",
		  "Seconds since the server started.");
	sb_printf(b, "nasd_uptime_seconds %.3f\n", s->uptime);
	prom_head(b, "process_cpu_seconds_total", "counter",
		  "Total user and system CPU time spent in seconds.");
	sb_printf(b, "process_cpu_seconds_total %.6f\n",
		  s->cpu_user + s->cpu_system);
	prom_scalar(b, "process_resident_memory_bytes", "gauge",
		    "Resident memory size in bytes.",
		    (unsigned long long)s->rss_bytes);
	prom_head(b, "process_start_time_seconds", "gauge",
		  "Start time of the process since unix epoch in seconds.");
	sb_printf(b, "process_start_time_seconds %.3f\n", s->start_time);
}

int stats_render(const struct stats_snapshot *s, enum stats_format fmt,
		 char **out, size_t *len)
{
	struct sbuf b = {0};

	*out = NULL;
	*len = 0;
	switch (fmt) {
	case STATS_TEXT:
		render_text(&b, s);
		break;
	case STATS_JSON:
		render_json(&b, s);
		break;
	case STATS_PROMETHEUS:
		render_prom(&b, s);
		break;
	default:
		return -EINVAL;
	}
	if (b.oom || !b.p) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

int stats_format_parse(const char *name, enum stats_format *fmt)
{
	if (!strcmp(name, "text") || !strcmp(name, "table"))
		*fmt = STATS_TEXT;
	else if (!strcmp(name, "json"))
		*fmt = STATS_JSON;
	else if (!strcmp(name, "prometheus") || !strcmp(name, "prom"))
		*fmt = STATS_PROMETHEUS;
	else
		return -EINVAL;
	return 0;
}
