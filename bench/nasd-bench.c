// SPDX-License-Identifier: MIT
/*
 * nasd-bench: command line, the order of phases, find-max, and the reports
 * (a table for people, --json for machines).
 *
 * Exit status: 0 done, 1 the run failed (connection, server error),
 * 2 bad arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nb.h"

#define FIND_MAX_STEPS	24

static const char *const workload_name[] = {
	[NB_SEQ_READ] = "seq-read",
	[NB_SEQ_WRITE] = "seq-write",
	[NB_RAND_READ] = "rand-read",
	[NB_RAND_WRITE] = "rand-write",
	[NB_SWBUILD] = "swbuild",
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: nasd-bench [options] WORKLOAD URL\n"
"  WORKLOAD   seq-read | seq-write | rand-read | rand-write | swbuild\n"
"  URL        nfs://HOST/EXPORT[?version=3&nfsport=P&mountport=P]\n"
"             version=4: NFSv4.0 (libnfs), one client id per job;\n"
"             seq-read and rand-read only, of files an NFSv3 run wrote\n"
"             version=4.1: NFSv4.1 on nasd-bench's own client, one\n"
"             client and session per job, every workload (swbuild: one\n"
"             COMPOUND per operation)\n"
"             smb://[DOMAIN;]USER:PASSWORD@HOST[:PORT]/SHARE: SMB 3.1.1,\n"
"             one logged-on connection per job (swbuild: one compound\n"
"             per operation)\n"
"  -j, --jobs N         connections, one nfs_context each (default 4)\n"
"  -d, --depth N        requests in flight per job (default 16)\n"
"  -b, --bs SIZE        block size (default 1m seq, 4k rand; swbuild:\n"
"                       size of each file, default 16k)\n"
"  -s, --size SIZE      per-job file size (default 256m)\n"
"  -t, --time SEC       run for SEC seconds (default: until each job has\n"
"                       moved --size; swbuild: 10)\n"
"      --threads N      client threads polling the jobs (default 1)\n"
"      --prefix NAME    file names in the export (default nasd-bench)\n"
"      --sync           FILE_SYNC writes (default UNSTABLE + COMMIT;\n"
"                       SMB: WRITE_THROUGH, default a FLUSH at the end)\n"
"      --smb-sign on|off  on (default): the client requires signing; off:\n"
"                       it signs only if the server requires it\n"
"      --cleanup        remove the data files at the end\n"
"  swbuild (SPEC SFS 2014 SWBUILD mix):\n"
"      --rate R         requested ops/s per job (default: as fast as "
"possible)\n"
"      --find-max       step the load up; report the highest load with\n"
"                       achieved >= 99%% of requested\n"
"      --step-time SEC  seconds per find-max step (default 5)\n"
"      --swb-dirs N, --swb-files N, --swb-churn N   tree per job "
"(8, 16, 1024)\n"
"  reporting:\n"
"      --server-pid PID server CPU-s per GiB / per 1000 ops, peak RSS\n"
"      --server-tree    sum CPU and RSS over PID and its descendants\n"
"                       (a server forking per connection: smbd)\n"
"      --json           one JSON object on stdout\n"
"  -q, --quiet          no progress line on stderr\n"
"  -h, --help           this text\n");
}

static void __attribute__((noreturn, format(printf, 1, 2)))
arg_error(const char *fmt, ...)
{
	va_list ap;

	fputs("nasd-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(nasd-bench --help for the options)\n", stderr);
	exit(2);
}

/* "4k", "1m", "2g", "4096": binary suffixes; 0 and overflow refused. */
static uint64_t parse_size(const char *opt, const char *s)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	if (*s == '-' || *s == '\0')
		arg_error("%s: '%s' is not a size", opt, s);
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		arg_error("%s: '%s' is not a size", opt, s);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'b' || *end == 'B')
		end += *end == 'i' && (end[1] == 'B' || end[1] == 'b') ? 2 : 1;
	if (*end)
		arg_error("%s: '%s' is not a size (use k, m, g)", opt, s);
	if (!v)
		arg_error("%s: must be more than 0", opt);
	if (shift && v > (~0ull >> shift))
		arg_error("%s: '%s' is too large", opt, s);
	return (uint64_t)v << shift;
}

static unsigned long parse_uint(const char *opt, const char *s,
				unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (*s == '-' || *s == '\0')
		arg_error("%s: '%s' is not a number", opt, s);
	v = strtoul(s, &end, 10);
	if (errno || *end)
		arg_error("%s: '%s' is not a number", opt, s);
	if (v < min || v > max)
		arg_error("%s: %lu is out of range %lu..%lu", opt, v, min,
			  max);
	return v;
}

/* The NFS version a URL asks for (its version= argument), 3 without. */
/* The URL's version=: 3, 40 (4 or 4.0) or 41 (4.1); 0 when unknown. */
static int url_version(const char *url)
{
	const char *q = strchr(url, '?'), *p;
	char v[8];

	for (p = q; p; p = strchr(p + 1, '&')) {
		if (strncmp(p + 1, "version=", 8))
			continue;
		snprintf(v, sizeof(v), "%.*s", (int)strcspn(p + 9, "&"),
			 p + 9);
		return !strcmp(v, "3") ? 3 :
		       !strcmp(v, "4") || !strcmp(v, "4.0") ? 40 :
		       !strcmp(v, "4.1") ? 41 : 0;
	}
	return 3;
}

static double parse_pos_double(const char *opt, const char *s)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0)
		arg_error("%s: '%s' is not a positive number", opt, s);
	return v;
}

enum {
	OPT_THREADS = 256,
	OPT_PREFIX,
	OPT_SYNC,
	OPT_CLEANUP,
	OPT_RATE,
	OPT_FIND_MAX,
	OPT_STEP_TIME,
	OPT_SWB_DIRS,
	OPT_SWB_FILES,
	OPT_SWB_CHURN,
	OPT_SERVER_PID,
	OPT_SERVER_TREE,
	OPT_SMB_SIGN,
	OPT_JSON,
};

static const struct option long_opts[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "depth", required_argument, NULL, 'd' },
	{ "bs", required_argument, NULL, 'b' },
	{ "size", required_argument, NULL, 's' },
	{ "time", required_argument, NULL, 't' },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "sync", no_argument, NULL, OPT_SYNC },
	{ "cleanup", no_argument, NULL, OPT_CLEANUP },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "find-max", no_argument, NULL, OPT_FIND_MAX },
	{ "step-time", required_argument, NULL, OPT_STEP_TIME },
	{ "swb-dirs", required_argument, NULL, OPT_SWB_DIRS },
	{ "swb-files", required_argument, NULL, OPT_SWB_FILES },
	{ "swb-churn", required_argument, NULL, OPT_SWB_CHURN },
	{ "server-pid", required_argument, NULL, OPT_SERVER_PID },
	{ "server-tree", no_argument, NULL, OPT_SERVER_TREE },
	{ "smb-sign", required_argument, NULL, OPT_SMB_SIGN },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void parse_args(int argc, char **argv, struct nb_opts *o)
{
	bool bs_set = false, size_set = false, churn_set = false;
	bool step_set = false;
	unsigned int i;
	int c;

	memset(o, 0, sizeof(*o));
	o->jobs = 4;
	o->depth = 16;
	o->threads = 1;
	o->prefix = "nasd-bench";
	o->step_s = 5;
	o->swb_dirs = 8;
	o->swb_files = 16;
	o->swb_churn = 1024;
	o->server_pid = -1;
	o->smb_sign = true;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:d:b:s:t:qh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'j':
			o->jobs = (unsigned int)parse_uint("--jobs", optarg,
							   1, NB_MAX_JOBS);
			break;
		case 'd':
			o->depth = (unsigned int)parse_uint("--depth", optarg,
							    1, NB_MAX_DEPTH);
			break;
		case 'b':
			o->bs = parse_size("--bs", optarg);
			bs_set = true;
			break;
		case 's':
			o->size = parse_size("--size", optarg);
			size_set = true;
			break;
		case 't':
			o->time_s = parse_pos_double("--time", optarg);
			break;
		case OPT_THREADS:
			o->threads = (unsigned int)parse_uint("--threads",
				optarg, 1, NB_MAX_THREADS);
			break;
		case OPT_PREFIX:
			if (!*optarg || strchr(optarg, '/') ||
			    strlen(optarg) > 200)
				arg_error("--prefix: '%s' must be a plain file "
					  "name", optarg);
			o->prefix = optarg;
			break;
		case OPT_SYNC:
			o->sync = true;
			break;
		case OPT_CLEANUP:
			o->cleanup = true;
			break;
		case OPT_RATE:
			o->rate = parse_pos_double("--rate", optarg);
			break;
		case OPT_FIND_MAX:
			o->find_max = true;
			break;
		case OPT_STEP_TIME:
			o->step_s = parse_pos_double("--step-time", optarg);
			step_set = true;
			break;
		case OPT_SWB_DIRS:
			o->swb_dirs = (unsigned int)parse_uint("--swb-dirs",
				optarg, 1, 4096);
			break;
		case OPT_SWB_FILES:
			o->swb_files = (unsigned int)parse_uint("--swb-files",
				optarg, 1, 4096);
			break;
		case OPT_SWB_CHURN:
			o->swb_churn = (unsigned int)parse_uint("--swb-churn",
				optarg, 1, 1u << 20);
			churn_set = true;
			break;
		case OPT_SERVER_PID:
			o->server_pid = (pid_t)parse_uint("--server-pid",
				optarg, 1, 0x3fffffff);
			break;
		case OPT_SERVER_TREE:
			o->server_tree = true;
			break;
		case OPT_SMB_SIGN:
			if (!strcmp(optarg, "on"))
				o->smb_sign = true;
			else if (!strcmp(optarg, "off"))
				o->smb_sign = false;
			else
				arg_error("--smb-sign: '%s' must be on or off",
					  optarg);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			arg_error("option '%s' needs a value",
				  argv[optind - 1]);
		default:
			arg_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		arg_error("expected WORKLOAD and URL, got %d argument%s",
			  argc - optind, argc - optind == 1 ? "" : "s");
	for (i = 0; i < sizeof(workload_name) / sizeof(workload_name[0]); i++)
		if (!strcmp(argv[optind], workload_name[i]))
			break;
	if (i == sizeof(workload_name) / sizeof(workload_name[0]))
		arg_error("unknown workload '%s' (seq-read, seq-write, "
			  "rand-read, rand-write, swbuild)", argv[optind]);
	o->workload = (enum nb_workload)i;
	o->url = argv[optind + 1];
	o->smb = !strncmp(o->url, "smb://", 6);
	if (!o->smb && (strncmp(o->url, "nfs://", 6) || !o->url[6] ||
			o->url[6] == '/'))
		arg_error("URL '%s' must look like nfs://HOST/EXPORT or "
			  "smb://USER:PASSWORD@HOST[:PORT]/SHARE", o->url);
	switch (o->smb ? 3 : url_version(o->url)) {
	case 3:
		break;
	case 41:
		o->v41 = true;
		break;
	case 40:
		o->nfs4 = true;
		/* libnfs 4.0's NFSv4 WRITE cannot carry more than ~3.9 KiB
		 * nor have two in flight: no write load over it */
		if (o->workload != NB_SEQ_READ && o->workload != NB_RAND_READ)
			arg_error("version=4 runs seq-read and rand-read only "
				  "(libnfs's NFSv4 WRITE is not fit for load)");
		break;
	default:
		arg_error("URL '%s': version must be 3, 4 (4.0) or 4.1",
			  o->url);
	}

	if (!bs_set)
		o->bs = o->workload == NB_SWBUILD ? 16384 :
			o->workload == NB_RAND_READ ||
			o->workload == NB_RAND_WRITE ? 4096 : 1048576;
	if (o->bs > NB_MAX_BS)
		arg_error("--bs: at most %u bytes", NB_MAX_BS);
	if (!size_set)
		o->size = 256ull << 20;
	if (o->size < o->bs)
		arg_error("--size (%llu) is smaller than --bs (%llu)",
			  (unsigned long long)o->size,
			  (unsigned long long)o->bs);
	if (o->workload != NB_SWBUILD) {
		if (o->rate > 0 || o->find_max || step_set)
			arg_error("--rate, --find-max and --step-time are for "
				  "swbuild");
	} else {
		if (o->rate > 0 && o->find_max)
			arg_error("--rate and --find-max exclude each other");
		if (size_set)
			arg_error("--size is not used by swbuild (its files "
				  "are --bs bytes)");
		if (!o->time_s)
			o->time_s = 10;
		if (!churn_set && o->swb_churn < 4 * o->depth)
			o->swb_churn = 4 * o->depth;
		if (o->swb_churn < 2 * o->depth)
			arg_error("--swb-churn must be at least 2 x --depth "
				  "(%u)", 2 * o->depth);
		if ((uint64_t)o->swb_dirs * o->swb_files > 1u << 20)
			arg_error("--swb-dirs x --swb-files: at most %u files "
				  "per job", 1u << 20);
	}
	if (o->threads > o->jobs)
		o->threads = o->jobs;
	if (o->server_pid > 0 && kill(o->server_pid, 0) < 0 &&
	    errno == ESRCH)
		arg_error("--server-pid: no process %d", (int)o->server_pid);
}

/* ---- reports ---- */

static void fmt_ns(char *buf, size_t size, double ns)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
}

struct figures {
	double mib_s;
	double ops_s;
	double srv_cpu_s;
	double cpu_per_gib;
	double cpu_per_kop;
	bool srv;
};

static struct figures figures_of(const struct nb_result *r)
{
	struct figures f = { 0 };
	double gib = (double)r->bytes / (1024.0 * 1024.0 * 1024.0);

	if (r->elapsed_s > 0) {
		f.mib_s = (double)r->bytes / 1048576.0 / r->elapsed_s;
		f.ops_s = (double)r->ops / r->elapsed_s;
	}
	f.srv = r->srv_before.ok && r->srv_after.ok;
	if (f.srv) {
		f.srv_cpu_s = r->srv_after.cpu_s - r->srv_before.cpu_s;
		f.cpu_per_gib = gib > 0 ? f.srv_cpu_s / gib : 0;
		f.cpu_per_kop = r->ops ? f.srv_cpu_s * 1000.0 /
					 (double)r->ops : 0;
	}
	return f;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static void json_result(FILE *f, const struct nb_run *run,
			const struct nb_result *r)
{
	struct figures fg = figures_of(r);
	unsigned int k;

	fprintf(f, "\"elapsed_s\": %.6f, \"ops\": %llu, \"bytes\": %llu, "
		"\"errors\": %llu, \"short\": %llu, \"mib_s\": %.3f, "
		"\"ops_s\": %.3f, ", r->elapsed_s,
		(unsigned long long)r->ops, (unsigned long long)r->bytes,
		(unsigned long long)r->errors,
		(unsigned long long)r->short_io, fg.mib_s, fg.ops_s);
	fprintf(f, "\"lat_us\": {\"p50\": %.1f, \"p99\": %.1f, "
		"\"max\": %.1f, \"avg\": %.1f}, ",
		us(nb_hist_percentile(&r->hist, 50)),
		us(nb_hist_percentile(&r->hist, 99)), us(r->hist.max_ns),
		nb_hist_avg_ns(&r->hist) / 1e3);
	fprintf(f, "\"client_cpu_s\": %.3f, \"timeline_mib_s\": [",
		r->client_cpu_s);
	for (k = 0; k < r->ntimeline; k++)
		fprintf(f, "%s%.1f", k ? ", " : "", (double)r->timeline[k]);
	fprintf(f, "], ");
	if (fg.srv)
		fprintf(f, "\"server\": {\"pid\": %d, \"cpu_s\": %.3f, "
			"\"cpu_s_per_gib\": %.4f, \"cpu_s_per_kop\": %.5f, "
			"\"vm_hwm_kib\": %llu, \"rss_peak_kib\": %llu, "
			"\"vm_rss_kib\": %llu, \"processes\": %u}",
			(int)run->o.server_pid, fg.srv_cpu_s, fg.cpu_per_gib,
			fg.cpu_per_kop,
			(unsigned long long)r->srv_after.vm_hwm_kib,
			(unsigned long long)r->srv_rss_peak_kib,
			(unsigned long long)r->srv_after.vm_rss_kib,
			r->srv_after.nproc);
	else
		fprintf(f, "\"server\": null");
	if (run->o.workload != NB_SWBUILD)
		return;
	fprintf(f, ", \"requested_ops_s\": %.3f, \"achieved_ops_s\": %.3f, "
		"\"unlink_noent\": %llu, \"op_types\": {",
		r->requested_ops_s, fg.ops_s,
		(unsigned long long)r->swb_noent);
	for (k = 0; k < NB_SWB_NOPS; k++) {
		double share = (double)nb_swb_op_weight[k];
		unsigned int t, total = 0;

		for (t = 0; t < NB_SWB_NOPS; t++)
			total += nb_swb_op_weight[t];
		share /= total;
		fprintf(f, "%s\"%s\": {\"count\": %llu, \"errors\": %llu, "
			"\"requested_ops_s\": %.3f, \"achieved_ops_s\": %.3f, "
			"\"avg_us\": %.1f, \"p99_us\": %.1f}",
			k ? ", " : "", nb_swb_op_name[k],
			(unsigned long long)r->swb_count[k],
			(unsigned long long)r->swb_errors[k],
			r->requested_ops_s * share,
			r->elapsed_s > 0 ? (double)r->swb_count[k] /
					   r->elapsed_s : 0,
			nb_hist_avg_ns(&r->swb_hist[k]) / 1e3,
			us(nb_hist_percentile(&r->swb_hist[k], 99)));
	}
	fputc('}', f);
}

static void json_header(FILE *f, const struct nb_run *run)
{
	const struct nb_opts *o = &run->o;

	fprintf(f, "{\"tool\": \"nasd-bench\", \"version\": 1, "
		"\"workload\": \"%s\", \"url\": \"",
		workload_name[o->workload]);
	for (const char *p = o->url; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		if ((unsigned char)*p >= 0x20)
			fputc(*p, f);
	}
	fprintf(f, "\", \"jobs\": %u, \"depth\": %u, \"threads\": %u, "
		"\"bs\": %llu, \"size\": %llu, \"time_s\": %.3f, "
		"\"sync\": %s, \"readmax\": %llu, \"writemax\": %llu, ",
		o->jobs, o->depth, o->threads, (unsigned long long)o->bs,
		(unsigned long long)o->size, o->time_s,
		o->sync ? "true" : "false",
		(unsigned long long)run->readmax,
		(unsigned long long)run->writemax);
	fprintf(f, "\"protocol\": \"%s\", ", o->smb ? "smb3.1.1" :
		o->nfs4 ? "nfs4.0" : o->v41 ? "nfs4.1" : "nfs3");
	if (o->smb && run->jobs[0].smb)
		fprintf(f, "\"signing\": %s, \"sign_alg\": %u, ",
			nb_smb2_signing(run->jobs[0].smb) ? "true" : "false",
			nb_smb2_sign_alg(run->jobs[0].smb));
}

static void table_result(const struct nb_run *run, const struct nb_result *r)
{
	struct figures fg = figures_of(r);
	char p50[32], p99[32], mx[32], avg[32];
	unsigned int k;

	fmt_ns(p50, sizeof(p50), (double)nb_hist_percentile(&r->hist, 50));
	fmt_ns(p99, sizeof(p99), (double)nb_hist_percentile(&r->hist, 99));
	fmt_ns(mx, sizeof(mx), (double)r->hist.max_ns);
	fmt_ns(avg, sizeof(avg), nb_hist_avg_ns(&r->hist));
	printf("elapsed     %.2f s\n", r->elapsed_s);
	printf("moved       %.1f MiB in %llu ops (%llu errors, %llu short)\n",
	       (double)r->bytes / 1048576.0, (unsigned long long)r->ops,
	       (unsigned long long)r->errors,
	       (unsigned long long)r->short_io);
	printf("throughput  %.1f MiB/s, %.0f ops/s\n", fg.mib_s, fg.ops_s);
	printf("latency     p50 %s, p99 %s, max %s, avg %s\n", p50, p99, mx,
	       avg);
	if (fg.srv)
		printf("server      pid %d: %.2f CPU-s, %.3f CPU-s/GiB, %.4f "
		       "CPU-s/1000 ops, RSS peak %.1f MiB (VmHWM %.1f MiB)\n",
		       (int)run->o.server_pid, fg.srv_cpu_s, fg.cpu_per_gib,
		       fg.cpu_per_kop, (double)r->srv_rss_peak_kib / 1024.0,
		       (double)r->srv_after.vm_hwm_kib / 1024.0);
	printf("client      %.2f CPU-s\n", r->client_cpu_s);
	if (run->o.workload != NB_SWBUILD)
		return;
	printf("\n%-11s %12s %12s %10s %7s %10s %10s\n", "op",
	       "requested/s", "achieved/s", "count", "errors", "avg", "p99");
	for (k = 0; k < NB_SWB_NOPS; k++) {
		unsigned int t, total = 0;
		char req[32];

		for (t = 0; t < NB_SWB_NOPS; t++)
			total += nb_swb_op_weight[t];
		if (r->requested_ops_s > 0)
			snprintf(req, sizeof(req), "%.1f", r->requested_ops_s *
				 nb_swb_op_weight[k] / total);
		else
			snprintf(req, sizeof(req), "max");
		fmt_ns(avg, sizeof(avg), nb_hist_avg_ns(&r->swb_hist[k]));
		fmt_ns(p99, sizeof(p99),
		       (double)nb_hist_percentile(&r->swb_hist[k], 99));
		printf("%-11s %12s %12.1f %10llu %7llu %10s %10s\n",
		       nb_swb_op_name[k], req, r->elapsed_s > 0 ?
		       (double)r->swb_count[k] / r->elapsed_s : 0, (unsigned
		       long long)r->swb_count[k],
		       (unsigned long long)r->swb_errors[k], avg, p99);
	}
	if (r->requested_ops_s > 0)
		snprintf(p99, sizeof(p99), "%.1f", r->requested_ops_s);
	else
		snprintf(p99, sizeof(p99), "max");
	printf("%-11s %12s %12.1f %10llu %7llu\n", "total", p99, fg.ops_s,
	       (unsigned long long)r->ops, (unsigned long long)r->errors);
	if (r->requested_ops_s > 0)
		printf("requested   %.1f ops/s, achieved %.1f ops/s "
		       "(%.1f %%)\n",
		       r->requested_ops_s, fg.ops_s,
		       100.0 * fg.ops_s / r->requested_ops_s);
	if (r->swb_noent)
		printf("note        %llu unlinks found no file (churn "
		       "directory drained)\n",
		       (unsigned long long)r->swb_noent);
}

static void table_header(const struct nb_run *run)
{
	const struct nb_opts *o = &run->o;

	printf("workload    %s on %s\n", workload_name[o->workload], o->url);
	printf("shape       %u jobs x %u in flight, bs %llu", o->jobs,
	       o->depth, (unsigned long long)o->bs);
	if (o->workload != NB_SWBUILD)
		printf(", %llu MiB per job%s", (unsigned long long)(o->size >>
		       20), o->time_s > 0 ? " (time-based)" : "");
	printf(", %u client thread%s\n", o->threads,
	       o->threads == 1 ? "" : "s");
	printf("server max  read %llu, write %llu bytes\n",
	       (unsigned long long)run->readmax,
	       (unsigned long long)run->writemax);
	if (o->smb && run->jobs[0].smb)
		printf("smb         3.1.1, signing %s\n",
		       nb_smb2_signing(run->jobs[0].smb) ? "on" : "off");
}

/* ---- find-max ---- */

struct step {
	double requested;
	double achieved;
	uint64_t p99_ns;
	double avg_ns;
	bool ok;
};

static int run_swb_phase(struct nb_run *run, double total_rate,
			 const char *label, struct nb_result *res)
{
	int ret;

	if (nb_swb_refill(run) < 0)
		return -1;
	nb_swb_configure(run, total_rate > 0 ? total_rate / run->o.jobs : 0);
	ret = nb_phase_run(run, run->proto->swb_ops, label, true, res);
	res->requested_ops_s = total_rate;
	if (ret < 0)
		fprintf(stderr, "nasd-bench: %s: %s\n", label,
			res->first_error);
	return ret;
}

/*
 * Calibrate with an unthrottled run, then request 50 %, 60 %, ... of that
 * until a step achieves less than 99 % of what it requested; if 50 % fails,
 * step down instead. A missed step is run once more before it counts (the
 * machines this runs on are often shared); both attempts are reported.
 * *best gets the result of the highest passing step.
 */
static int find_max(struct nb_run *run, struct nb_result *best,
		    struct step *steps, unsigned int *nsteps,
		    double *calibrated, int *best_idx)
{
	struct nb_result *res = calloc(1, sizeof(*res));
	double time_s = run->o.time_s, f = 0.5, df = 0.1;
	bool retried = false;
	char label[64];
	int ret = 0;

	*nsteps = 0;
	*best_idx = -1;
	if (!res)
		return -1;
	run->o.time_s = run->o.step_s;
	if (run_swb_phase(run, 0, "calibrate", res) < 0) {
		ret = -1;
		goto out;
	}
	*calibrated = res->elapsed_s > 0 ? (double)res->ops / res->elapsed_s :
		      0;
	if (*calibrated <= 0) {
		fprintf(stderr, "nasd-bench: find-max: no operation "
			"completed\n");
		ret = -1;
		goto out;
	}
	while (*nsteps < FIND_MAX_STEPS && f > 0.05 && f < 2.05) {
		struct step *s = &steps[*nsteps];

		s->requested = *calibrated * f;
		snprintf(label, sizeof(label), "step %.0f ops/s",
			 s->requested);
		if (run_swb_phase(run, s->requested, label, res) < 0) {
			ret = -1;
			goto out;
		}
		s->achieved = res->elapsed_s > 0 ?
			      (double)res->ops / res->elapsed_s : 0;
		s->p99_ns = nb_hist_percentile(&res->hist, 99);
		s->avg_ns = nb_hist_avg_ns(&res->hist);
		s->ok = s->achieved >= 0.99 * s->requested && !res->errors;
		(*nsteps)++;
		if (!s->ok && !retried) {
			retried = true;
			continue;
		}
		retried = false;
		if (s->ok && (*best_idx < 0 ||
			      s->requested > steps[*best_idx].requested)) {
			*best_idx = (int)(*nsteps - 1);
			memcpy(best, res, sizeof(*res));
		}
		if (df > 0 && !s->ok) {
			if (*best_idx >= 0)
				break;
			df = -0.1;	/* 50 % failed: go down */
		} else if (df < 0 && s->ok) {
			break;
		}
		f += df;
	}
out:
	run->o.time_s = time_s;
	free(res);
	return ret;
}

static void report_find_max(const struct nb_run *run, const struct step *st,
			    unsigned int n, double calibrated, int best)
{
	char p99[32], avg[32];
	unsigned int i;

	if (run->o.json) {
		printf("\"find_max\": {\"step_s\": %.3f, "
		       "\"calibration_ops_s\": %.3f, \"steps\": [",
		       run->o.step_s, calibrated);
		for (i = 0; i < n; i++)
			printf("%s{\"requested_ops_s\": %.3f, "
			       "\"achieved_ops_s\": %.3f, \"p99_us\": %.1f, "
			       "\"avg_us\": %.1f, \"ok\": %s}", i ? ", " : "",
			       st[i].requested, st[i].achieved,
			       us(st[i].p99_ns), st[i].avg_ns / 1e3,
			       st[i].ok ? "true" : "false");
		printf("], \"max_ops_s\": %.3f, \"p99_us\": %.1f, "
		       "\"avg_us\": %.1f}",
		       best >= 0 ? st[best].requested : 0.0,
		       best >= 0 ? us(st[best].p99_ns) : 0.0,
		       best >= 0 ? st[best].avg_ns / 1e3 : 0.0);
		return;
	}
	printf("find-max    unthrottled %.1f ops/s; steps of %.1f s:\n",
	       calibrated, run->o.step_s);
	printf("  %12s %12s %10s %10s\n", "requested/s", "achieved/s", "avg",
	       "p99");
	for (i = 0; i < n; i++) {
		fmt_ns(avg, sizeof(avg), st[i].avg_ns);
		fmt_ns(p99, sizeof(p99), (double)st[i].p99_ns);
		printf("  %12.1f %12.1f %10s %10s %s\n", st[i].requested,
		       st[i].achieved, avg, p99, st[i].ok ? "ok" : "MISSED");
	}
	if (best >= 0) {
		fmt_ns(p99, sizeof(p99), (double)st[best].p99_ns);
		printf("max load    %.1f ops/s (%.1f per job) with p99 %s\n",
		       st[best].requested, st[best].requested / run->o.jobs,
		       p99);
	} else {
		printf("max load    none: no step achieved 99 %% of its "
		       "request\n");
	}
}

static const struct nb_proto proto_nfs = {
	.connect = nb_jobs_connect,
	.data_prepare = nb_data_prepare,
	.data_cleanup = nb_data_cleanup,
	.data_ops = &nb_data_ops,
	.swb_prepare = nb_swb_prepare,
	.swb_ops = &nb_swb_ops,
	.swb_refill_ops = &nb_swb_refill_ops,
};

static const struct nb_proto proto_v41 = {
	.connect = nb_v41_jobs_connect,
	.data_prepare = nb_v41_data_prepare,
	.data_cleanup = nb_v41_data_cleanup,
	.data_ops = &nb_v41_data_ops,
	.swb_prepare = nb_v41_swb_prepare,
	.swb_ops = &nb_v41_swb_ops,
	.swb_refill_ops = &nb_v41_swb_refill_ops,
};

static const struct nb_proto proto_smb = {
	.connect = nb_smb_jobs_connect,
	.data_prepare = nb_smb_data_prepare,
	.data_cleanup = nb_smb_data_cleanup,
	.data_ops = &nb_smb_data_ops,
	.swb_prepare = nb_smb_swb_prepare,
	.swb_ops = &nb_smb_swb_ops,
	.swb_refill_ops = &nb_smb_swb_refill_ops,
};

int main(int argc, char **argv)
{
	struct nb_run run = { 0 };
	struct nb_result *res;
	struct step steps[FIND_MAX_STEPS];
	unsigned int nsteps = 0;
	double calibrated = 0;
	int best = -1, ret = 1;
	uint64_t seed = 0x243F6A8885A308D3ull;
	uint64_t i;

	parse_args(argc, argv, &run.o);
	signal(SIGPIPE, SIG_IGN);
	run.proto = run.o.smb ? &proto_smb : run.o.v41 ? &proto_v41 :
		    &proto_nfs;
	if (run.o.v41 &&
	    nb_nfs41_parse_url(run.o.url, &run.v41, &run.v41_url_buf) < 0) {
		fprintf(stderr, "nasd-bench: URL '%s' must look like "
			"nfs://HOST[:PORT]/EXPORT?version=4.1\n", run.o.url);
		return 2;
	}
	if (run.o.smb &&
	    nb_smb2_parse_url(run.o.url, &run.smb, &run.smb_url_buf) < 0) {
		fprintf(stderr, "nasd-bench: URL '%s' must look like "
			"smb://[DOMAIN;]USER:PASSWORD@HOST[:PORT]/SHARE\n",
			run.o.url);
		return 2;
	}
	res = calloc(1, sizeof(*res));
	run.jobs = calloc(run.o.jobs, sizeof(*run.jobs));
	run.wbuf = malloc(run.o.bs);
	if (!res || !run.jobs || !run.wbuf) {
		fprintf(stderr, "nasd-bench: out of memory\n");
		return 1;
	}
	/* Incompressible payload, so no layer can shortcut it. */
	for (i = 0; i < run.o.bs; i++)
		run.wbuf[i] = (char)(nb_rand(&seed) >> 56);

	if (run.proto->connect(&run) < 0)
		goto out;
	if (run.o.workload == NB_SWBUILD) {
		if (run.proto->swb_prepare(&run) < 0)
			goto out;
		if (run.o.find_max) {
			if (find_max(&run, res, steps, &nsteps, &calibrated,
				     &best) < 0)
				goto out;
		} else if (run_swb_phase(&run, run.o.rate > 0 ?
					 run.o.rate * run.o.jobs : 0,
					 "swbuild", res) < 0) {
			goto out;
		}
	} else {
		if (run.proto->data_prepare(&run) < 0)
			goto out;
		nb_data_configure(&run, false);
		if (nb_phase_run(&run, run.proto->data_ops,
				 workload_name[run.o.workload], true,
				 res) < 0) {
			fprintf(stderr, "nasd-bench: %s\n", res->first_error);
			goto out;
		}
	}

	if (run.o.json) {
		json_header(stdout, &run);
		json_result(stdout, &run, res);
		if (run.o.find_max) {
			printf(", ");
			report_find_max(&run, steps, nsteps, calibrated, best);
		}
		printf("}\n");
	} else {
		table_header(&run);
		if (!run.o.find_max || best >= 0)
			table_result(&run, res);
		if (run.o.find_max)
			report_find_max(&run, steps, nsteps, calibrated, best);
	}
	fflush(stdout);
	ret = 0;
	if (run.o.cleanup && run.o.workload != NB_SWBUILD &&
	    run.proto->data_cleanup(&run) < 0)
		ret = 1;
out:
	nb_jobs_destroy(&run);
	free(run.wbuf);
	free(run.server);
	free(run.export);
	free(run.smb_url_buf);
	free(run.v41_url_buf);
	free(res);
	return ret;
}
