/* SPDX-License-Identifier: MIT */
/*
 * nasd: command line, start-up, signals (SIGTERM/SIGINT stop, SIGHUP
 * reloads the exports), and the hand-over to the transport.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/addr.h"
#include "core/iobuf.h"
#include "core/log.h"
#include "core/stats.h"
#include "core/timer.h"
#include "export/export.h"
#include "nfs3/nfs3.h"
#include "nfs4/nfs4.h"
#include "nlm/nlm.h"
#include "rpc/pmap.h"
#include "rpc/rpc_udp.h"
#include "rpc/rpc.h"
#include "rpc/rpcb_clnt.h"
#include "server/control.h"
#include "server/smb_setup.h"
#include "server/user_cmd.h"
#include "smb2/smb2.h"
#include "state/file_state.h"
#include "transport/transport.h"
#include "vfs/fault.h"
#include "vfs/vfs.h"

#define NFS_PORT 2049
#define MOUNTD_PORT 20048
#define MAX_SPECS 64
/* The default payload budget: per worker, and the least. */
#define PAYLOAD_PER_WORKER (8u << 20)
#define PAYLOAD_BUDGET_MIN (64u << 20)

struct options {
	const char *config;
	const char *exports[MAX_SPECS];
	unsigned int nexports;
	const char *listens[MAX_SPECS];
	unsigned int nlistens;
	long mountd_port;
	const char *state_dir;
	bool foreground;
	bool portmap;
	unsigned int threads;
	unsigned int loops;
	uint32_t max_record;
	uint64_t max_memory;
	uint64_t payload_budget;     /* UINT64_MAX: not given */
	uint64_t cache_budget;       /* bytes; 0 with cache_pct: by share */
	unsigned int cache_pct;
	const char *metrics;
	struct transport_limits lim; /* --max-conns ... --max-sendq */
	uint32_t max_open_files;
	const char *smb_listens[MAX_SPECS]; /* --smb-listen; "0": no SMB */
	unsigned int nsmb_listens;
	const char *shares[MAX_SPECS];      /* --share NAME=PATH[:OPTS] */
	unsigned int nshares;
	long nlm_port;                      /* --nlm-port; 0: the NFS port */
	long statd_port;                    /* --statd-port; 0: the NFS port */
	long callback_rpcbind_port;         /* --callback-rpcbind-port */
};

/* SMB settings (--smb-signing, --smb-encrypt, --smb-2.0.2); the rest at
 * start. */
static struct smb2_config smb_cfg = {
	.signing_required = true,
};

static struct options opt = {
	.mountd_port = MOUNTD_PORT,
	.state_dir = "/var/lib/nasd",
	.payload_budget = UINT64_MAX,
	.cache_pct = 20,
};

static char config_path[PATH_MAX];

enum {
	OPT_MOUNTD_PORT = 256,
	OPT_STATE_DIR,
	OPT_PORTMAP,
	OPT_THREADS,
	OPT_LOOPS,
	OPT_MAX_RECORD,
	OPT_MAX_MEMORY,
	OPT_PAYLOAD_BUDGET,
	OPT_CACHE_BUDGET,
	OPT_LOG_LEVEL,
	OPT_METRICS,
	OPT_LEASE_TIME,
	OPT_GRACE_TIME,
	OPT_V4_DOMAIN,
	OPT_MAX_OPS,
	OPT_NFS4_CLIENT_MEMORY,
	OPT_MAX_CONNS,
	OPT_MAX_CONNS_PER_CLIENT,
	OPT_MAX_INFLIGHT,
	OPT_MAX_INFLIGHT_TOTAL,
	OPT_IDLE_TIMEOUT,
	OPT_RECORD_TIMEOUT,
	OPT_MAX_SENDQ,
	OPT_MAX_OPEN_FILES,
	OPT_SMB_LISTEN,
	OPT_SHARE,
	OPT_SMB_SIGNING,
	OPT_SMB_ENCRYPT,
	OPT_SMB_202,
	OPT_NLM_PORT,
	OPT_STATD_PORT,
	OPT_CALLBACK_RPCBIND_PORT,
};

/* NFSv4 settings (--lease-time, --grace-time, --v4-domain, --max-ops). */
static struct nlm_cfg nlm_cfg;

static struct nfs4_config nfs4_cfg = {
	.lease_time = 90,
	.grace_time = 90,
	.max_ops = 64,
};

/*
 * Program 100003 with versions 3 and 4 on the same port: the RPC layer
 * keeps one entry per program number, so both versions go in one table
 * (filled by nfs_program_init(), as the version rows live in nfs3/nfs4).
 */
static struct rpc_version nfs_versions[2];
static const struct rpc_program nfs_program = {
	.prog = NFS_PROGRAM,
	.name = "nfs",
	.nversions = 2,
	.versions = nfs_versions,
};

static void nfs_program_init(void)
{
	nfs_versions[0] = nfs3_version;
	nfs_versions[1] = nfs4_version;
}

static const struct option long_opts[] = {
	{ "export", required_argument, NULL, 'e' },
	{ "config", required_argument, NULL, 'c' },
	{ "listen", required_argument, NULL, 'l' },
	{ "mountd-port", required_argument, NULL, OPT_MOUNTD_PORT },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "foreground", no_argument, NULL, 'f' },
	{ "portmap", no_argument, NULL, OPT_PORTMAP },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "loops", required_argument, NULL, OPT_LOOPS },
	{ "max-record", required_argument, NULL, OPT_MAX_RECORD },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "payload-budget", required_argument, NULL, OPT_PAYLOAD_BUDGET },
	{ "cache-budget", required_argument, NULL, OPT_CACHE_BUDGET },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "lease-time", required_argument, NULL, OPT_LEASE_TIME },
	{ "grace-time", required_argument, NULL, OPT_GRACE_TIME },
	{ "v4-domain", required_argument, NULL, OPT_V4_DOMAIN },
	{ "max-ops", required_argument, NULL, OPT_MAX_OPS },
	{ "nfs4-client-memory", required_argument, NULL,
	  OPT_NFS4_CLIENT_MEMORY },
	{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
	{ "max-conns-per-client", required_argument, NULL,
	  OPT_MAX_CONNS_PER_CLIENT },
	{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
	{ "max-inflight-total", required_argument, NULL,
	  OPT_MAX_INFLIGHT_TOTAL },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "record-timeout", required_argument, NULL, OPT_RECORD_TIMEOUT },
	{ "max-sendq", required_argument, NULL, OPT_MAX_SENDQ },
	{ "max-open-files", required_argument, NULL, OPT_MAX_OPEN_FILES },
	{ "smb-listen", required_argument, NULL, OPT_SMB_LISTEN },
	{ "share", required_argument, NULL, OPT_SHARE },
	{ "smb-signing", required_argument, NULL, OPT_SMB_SIGNING },
	{ "smb-encrypt", required_argument, NULL, OPT_SMB_ENCRYPT },
	{ "smb-2.0.2", no_argument, NULL, OPT_SMB_202 },
	{ "nlm-port", required_argument, NULL, OPT_NLM_PORT },
	{ "statd-port", required_argument, NULL, OPT_STATD_PORT },
	{ "callback-rpcbind-port", required_argument, NULL,
	  OPT_CALLBACK_RPCBIND_PORT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nasd [options]\n"
		"  -e, --export PATH[:OPTS]  export PATH to all clients "
		"(repeatable)\n"
		"  -c, --config FILE         exports(5) file, re-read on "
		"SIGHUP\n"
		"  -l, --listen ADDR[:PORT]  NFS+MOUNT listener (repeatable; "
		"default 127.0.0.1:2049)\n"
		"      --mountd-port N       also serve MOUNT on N of each "
		"listen address\n"
		"                            (default 20048, 0 = off)\n"
		"      --state-dir DIR       handle key, sample export "
		"(default /var/lib/nasd)\n"
		"  -f, --foreground          do not daemonize\n"
		"      --portmap             serve a port mapper on 111 when "
		"no rpcbind runs\n"
		"      --threads N           worker threads (default 16)\n"
		"      --loops N             event-loop threads (default: "
		"one per CPU)\n"
		"      --max-record BYTES    largest RPC record (default "
		"1114112)\n"
		"      --max-memory BYTES    ceiling of payload buffers "
		"(suffix K/M/G;\n"
		"                            default 1G; JUKEBOX beyond it)\n"
		"      --payload-budget BYTES  payload in memory before "
		"reading stops\n"
		"                            (default 8M per worker, at least "
		"64M; 0 = 3/4\n"
		"                            of --max-memory)\n"
		"      --cache-budget SIZE|PCT%%  page cache that io=auto's "
		"large I/O\n"
		"                            may fill before it goes O_DIRECT "
		"(default\n"
		"                            20%% of nasd's memory: cgroup "
		"limit or RAM;\n"
		"                            0 = always direct)\n"
		"      --log-level LEVEL     error|warn|info|debug (default "
		"info)\n"
		"      --metrics ADDR:PORT   serve Prometheus metrics at "
		"http://ADDR:PORT/metrics\n"
		"      --lease-time SECONDS  NFSv4 lease (default 90)\n"
		"      --grace-time SECONDS  NFSv4 grace after a restart "
		"(default 90, 0 = none)\n"
		"      --v4-domain DOMAIN    NFSv4 owners as name@DOMAIN "
		"(default: numeric ids)\n"
		"      --max-ops N           operations per NFSv4 COMPOUND "
		"(default 64)\n"
		"      --nfs4-client-memory BYTES  NFSv4 client records and "
		"sessions (default\n"
		"                            1/32 of memory, 32M..1G; min "
		"256K)\n"
		"      --max-conns N         client connections (default "
		"4096)\n"
		"      --max-conns-per-client N  connections from one "
		"address (default 512,\n"
		"                            0 = no limit)\n"
		"      --max-inflight N      calls in flight per connection "
		"(default 128)\n"
		"      --max-inflight-total N  calls in flight in all "
		"(default 4096, 0 = none)\n"
		"      --idle-timeout SECONDS  close idle connections "
		"(default 300, 0 = never)\n"
		"      --record-timeout SECONDS  close a connection whose "
		"record is not\n"
		"                            complete in time (default 30, "
		"0 = never)\n"
		"      --max-sendq BYTES     unread reply bytes per "
		"connection: reading pauses\n"
		"                            above a quarter; a queue over it "
		"that the client\n"
		"                            takes nothing from for "
		"--record-timeout is cut\n"
		"                            off (K/M/G; default 16M, "
		"0 = no limit)\n"
		"      --smb-listen ADDR[:PORT]  SMB2/3 listener (repeatable; "
		"default\n"
		"                            127.0.0.1:445; 0 turns SMB off)\n"
		"      --share NAME=PATH[:OPTS]  export PATH as SMB share NAME "
		"(as\n"
		"                            --export PATH:OPTS,smb=NAME)\n"
		"      --smb-signing required|optional  SMB signing "
		"(default required)\n"
		"      --smb-encrypt auto|required|off  SMB3 encryption: "
		"for\n"
		"                            clients that ask (default), for "
		"all, or none\n"
		"      --smb-2.0.2           also offer the SMB 2.0.2 dialect\n"
		"      --max-open-files N    objects in the open-file cache "
		"(default 65536)\n"
		"      --nlm-port N          also serve NLM (100021) on N of "
		"each listen\n"
		"                            address (default: NFS port only)\n"
		"      --statd-port N        also serve NSM (100024) on N "
		"(default: NFS port)\n"
		"      --callback-rpcbind-port N  port mapper port asked at a "
		"lock client's\n"
		"                            address for its lockd/statd "
		"(default 111)\n"
		"  -h, --help                this text\n"
		"       nasd stats [--state-dir DIR] [--json|--prometheus]\n"
		"                            print a running server's "
		"statistics\n"
		"       nasd user add|del|list [NAME] [--uid N] [--gid N] "
		"[--state-dir DIR]\n"
		"                            keep the SMB users "
		"(STATE_DIR/smbpasswd)\n"
		"Without --export or --config, STATE_DIR/export is created "
		"and exported\nread-write to 127.0.0.1.\n");
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return *s && !*end && !errno && *out <= max && s[0] != '-';
}

/* "1073741824", "512M", "1G": bytes, at least IOBUF_MIN_MAX_MEMORY. */
static bool parse_size(const char *s, uint64_t *out);

static bool parse_bytes(const char *s, uint64_t *out)
{
	return parse_size(s, out) && *out >= IOBUF_MIN_MAX_MEMORY;
}

/* "65536", "64K", "16M", "1G": a byte count. */
static bool parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || s[0] == '-' || errno || end == s)
		return false;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* --cache-budget: "N%" (0-90) of nasd's memory, or a size. */
static bool parse_cache_budget(const char *s)
{
	size_t n = strlen(s);
	char num[16];
	char *end;
	unsigned long v;

	if (n && s[n - 1] == '%') {
		if (n - 1 == 0 || n - 1 >= sizeof(num))
			return false;
		memcpy(num, s, n - 1);
		num[n - 1] = '\0';
		errno = 0;
		v = strtoul(num, &end, 10);
		if (errno || *end || num[0] == '-' || v > 90)
			return false;
		opt.cache_budget = 0;
		opt.cache_pct = (unsigned int)v;
		return true;
	}
	if (!parse_size(s, &opt.cache_budget))
		return false;
	opt.cache_pct = 0;
	return true;
}

/* --metrics takes ADDR:PORT with a port (checked before any socket). */
static bool metrics_addr_ok(const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (addr_parse(spec, 0, &ss, &len) < 0)
		return false;
	return addr_port(&ss) != 0;
}

static int parse_args(int argc, char **argv)
{
	unsigned long v;
	uint64_t b;
	int c, idx = 0;

	transport_limits_default(&opt.lim);
	while ((c = getopt_long(argc, argv, "e:c:l:fh", long_opts, &idx)) !=
	       -1) {
		switch (c) {
		case 'e':
			if (opt.nexports == MAX_SPECS)
				goto too_many;
			opt.exports[opt.nexports++] = optarg;
			break;
		case 'c':
			opt.config = optarg;
			break;
		case 'l':
			if (opt.nlistens == MAX_SPECS)
				goto too_many;
			opt.listens[opt.nlistens++] = optarg;
			break;
		case OPT_MOUNTD_PORT:
			if (!parse_ulong(optarg, 65535, &v))
				goto bad;
			opt.mountd_port = (long)v;
			break;
		case OPT_STATE_DIR:
			opt.state_dir = optarg;
			break;
		case OPT_NLM_PORT:
			if (!parse_ulong(optarg, 65535, &v))
				goto bad;
			opt.nlm_port = (long)v;
			break;
		case OPT_STATD_PORT:
			if (!parse_ulong(optarg, 65535, &v))
				goto bad;
			opt.statd_port = (long)v;
			break;
		case OPT_CALLBACK_RPCBIND_PORT:
			if (!parse_ulong(optarg, 65535, &v) || v == 0)
				goto bad;
			opt.callback_rpcbind_port = (long)v;
			break;
		case 'f':
			opt.foreground = true;
			break;
		case OPT_PORTMAP:
			opt.portmap = true;
			break;
		case OPT_THREADS:
			if (!parse_ulong(optarg, 1024, &v) || !v)
				goto bad;
			opt.threads = (unsigned int)v;
			break;
		case OPT_LOOPS:
			if (!parse_ulong(optarg, 256, &v) || !v)
				goto bad;
			opt.loops = (unsigned int)v;
			break;
		case OPT_MAX_RECORD:
			if (!parse_ulong(optarg, 0x7fffffff, &v) || v < 1024)
				goto bad;
			opt.max_record = (uint32_t)v;
			break;
		case OPT_MAX_MEMORY:
			if (!parse_bytes(optarg, &opt.max_memory))
				goto bad;
			break;
		case OPT_PAYLOAD_BUDGET:
			if (!parse_size(optarg, &opt.payload_budget) ||
			    opt.payload_budget == UINT64_MAX)
				goto bad;
			break;
		case OPT_CACHE_BUDGET:
			if (!parse_cache_budget(optarg))
				goto bad;
			break;
		case OPT_LOG_LEVEL:
			if (!strcmp(optarg, "error"))
				log_level_max = LL_ERROR;
			else if (!strcmp(optarg, "warn"))
				log_level_max = LL_WARN;
			else if (!strcmp(optarg, "info"))
				log_level_max = LL_INFO;
			else if (!strcmp(optarg, "debug"))
				log_level_max = LL_DEBUG;
			else
				goto bad;
			break;
		case OPT_METRICS:
			if (!metrics_addr_ok(optarg))
				goto bad;
			opt.metrics = optarg;
			break;
		case OPT_LEASE_TIME:
			if (!parse_ulong(optarg, 3600, &v) || v < 10)
				goto bad;
			nfs4_cfg.lease_time = (uint32_t)v;
			break;
		case OPT_GRACE_TIME:
			if (!parse_ulong(optarg, 3600, &v))
				goto bad;
			nfs4_cfg.grace_time = (uint32_t)v;
			break;
		case OPT_V4_DOMAIN:
			nfs4_cfg.domain = optarg;
			break;
		case OPT_NFS4_CLIENT_MEMORY:
			if (!parse_size(optarg, &nfs4_cfg.client_memory) ||
			    nfs4_cfg.client_memory < (256u << 10))
				goto bad;
			break;
		case OPT_MAX_OPS:
			if (!parse_ulong(optarg, 1024, &v) || v < 2)
				goto bad;
			nfs4_cfg.max_ops = (uint32_t)v;
			break;
		case OPT_MAX_CONNS:
			if (!parse_ulong(optarg, 1u << 20, &v) || !v)
				goto bad;
			opt.lim.max_conns = (uint32_t)v;
			break;
		case OPT_MAX_CONNS_PER_CLIENT:
			if (!parse_ulong(optarg, 1u << 20, &v))
				goto bad;
			opt.lim.max_conns_per_client = (uint32_t)v;
			break;
		case OPT_MAX_INFLIGHT:
			if (!parse_ulong(optarg, 65536, &v) || !v)
				goto bad;
			opt.lim.max_inflight = (uint32_t)v;
			break;
		case OPT_MAX_INFLIGHT_TOTAL:
			if (!parse_ulong(optarg, 1u << 24, &v))
				goto bad;
			opt.lim.max_inflight_total = (uint32_t)v;
			break;
		case OPT_IDLE_TIMEOUT:
			if (!parse_ulong(optarg, 86400 * 7, &v))
				goto bad;
			opt.lim.idle_timeout = (uint32_t)v;
			break;
		case OPT_RECORD_TIMEOUT:
			if (!parse_ulong(optarg, 86400, &v))
				goto bad;
			opt.lim.record_timeout = (uint32_t)v;
			break;
		case OPT_MAX_SENDQ:
			if (!parse_size(optarg, &b) || b > UINT32_MAX ||
			    (b && b < TRANSPORT_MIN_MAX_SENDQ))
				goto bad;
			opt.lim.max_sendq = (uint32_t)b;
			break;
		case OPT_SMB_LISTEN:
			if (opt.nsmb_listens == MAX_SPECS)
				goto too_many;
			opt.smb_listens[opt.nsmb_listens++] = optarg;
			break;
		case OPT_SHARE:
			if (opt.nshares == MAX_SPECS ||
			    opt.nexports == MAX_SPECS)
				goto too_many;
			if (!strchr(optarg, '='))
				goto bad;
			opt.shares[opt.nshares++] = optarg;
			break;
		case OPT_SMB_SIGNING:
			if (!strcmp(optarg, "required"))
				smb_cfg.signing_required = true;
			else if (!strcmp(optarg, "optional"))
				smb_cfg.signing_required = false;
			else
				goto bad;
			break;
		case OPT_SMB_ENCRYPT:
			if (!strcmp(optarg, "auto"))
				smb_cfg.encrypt = SMB2_ENCRYPT_AUTO;
			else if (!strcmp(optarg, "required"))
				smb_cfg.encrypt = SMB2_ENCRYPT_REQUIRED;
			else if (!strcmp(optarg, "off"))
				smb_cfg.encrypt = SMB2_ENCRYPT_OFF;
			else
				goto bad;
			break;
		case OPT_SMB_202:
			smb_cfg.allow_smb202 = true;
			break;
		case OPT_MAX_OPEN_FILES:
			if (!parse_ulong(optarg, 1u << 24, &v) || v < 256)
				goto bad;
			opt.max_open_files = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nasd: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;

bad:
	fprintf(stderr, "nasd: bad value '%s' for --%s\n", optarg,
		long_opts[idx].name);
	return -EINVAL;
too_many:
	fprintf(stderr, "nasd: too many --export/--listen (max %d)\n",
		MAX_SPECS);
	return -EINVAL;
}

/* Create the sample export (first run) and describe it in exports(5). */
static int default_export_file(char *file, size_t len, int *memfd)
{
	static const char readme[] =
		"This is the nasd sample export.\n\n"
		"nasd serves this directory when started without --export "
		"or --config.\nIt is exported read-write to 127.0.0.1 only "
		"(root_squash), over NFS and as the SMB share \"export\".\n";
	char dir[PATH_MAX], path[PATH_MAX + 16], line[PATH_MAX + 64];
	int fd, n;

	n = snprintf(dir, sizeof(dir), "%s/export", opt.state_dir);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0777) == 0) {
		/* umask would narrow it; the sample is meant to be open. */
		if (chmod(dir, 0777) < 0)
			return -errno;
	} else if (errno != EEXIST) {
		return -errno;
	}
	(void)snprintf(path, sizeof(path), "%s/README.txt", dir); /* fits */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, readme, sizeof(readme) - 1) < 0)
			log_warn("cannot write %s: %s", path, strerror(errno));
		close(fd);
	}
	n = snprintf(line, sizeof(line),
		     "%s 127.0.0.1/32(rw,root_squash,smb=export)\n", dir);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	fd = memfd_create("nasd-default-exports", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, (size_t)n) != n) {
		close(fd);
		return -EIO;
	}
	*memfd = fd;
	(void)snprintf(file, len, "/proc/self/fd/%d", fd);
	return 0;
}

/*
 * --share NAME=PATH[:OPTS]: the export PATH:OPTS published as SMB share
 * NAME (the smb= option, validated by the export parser).
 */
static int share_spec(struct export_table *t, const char *share, char *err,
		      size_t errlen)
{
	const char *eq = strchr(share, '='), *path = eq + 1;
	const char *colon = strchr(path, ':');
	const char *sep = !colon ? ":" : colon[1] ? "," : "";
	char spec[PATH_MAX + 256];
	int n;

	n = snprintf(spec, sizeof(spec), "%s%ssmb=%.*s", path, sep,
		     (int)(eq - share), share);
	if (n < 0 || (size_t)n >= sizeof(spec)) {
		(void)snprintf(err, errlen, "--share %s: too long", share);
		return -ENAMETOOLONG;
	}
	return export_parse_spec(t, spec, err, errlen);
}

/* Build and open the export table from the options; NULL on error. */
static struct export_table *load_exports(char *err, size_t errlen)
{
	struct export_table *t = NULL;
	char file[64];
	unsigned int i;
	int memfd = -1, ret;

	err[0] = '\0';
	if (opt.config) {
		ret = export_parse_file(config_path, &t, err, errlen);
	} else if (opt.nexports || opt.nshares) {
		t = export_table_new();
		ret = t ? 0 : -ENOMEM;
	} else {
		ret = default_export_file(file, sizeof(file), &memfd);
		if (ret < 0)
			(void)snprintf(err, errlen, "sample export in %s: %s",
				       opt.state_dir, strerror(-ret));
		else
			ret = export_parse_file(file, &t, err, errlen);
		if (memfd >= 0)
			close(memfd);
	}
	if (ret < 0)
		goto out_err;
	for (i = 0; i < opt.nexports; i++) {
		ret = export_parse_spec(t, opt.exports[i], err, errlen);
		if (ret < 0)
			goto out_free;
	}
	for (i = 0; i < opt.nshares; i++) {
		ret = share_spec(t, opt.shares[i], err, errlen);
		if (ret < 0)
			goto out_free;
	}
	ret = export_table_open(t, err, errlen);
	if (ret < 0)
		goto out_free;
	return t;

out_free:
	export_table_free(t);
out_err:
	if (!err[0])
		(void)snprintf(err, errlen, "%s", strerror(-ret));
	return NULL;
}

static void log_exports(const struct export_table *t)
{
	uint32_t i, j;

	for (i = 0; i < t->nexports; i++) {
		const struct export *e = &t->exports[i];
		char clients[256] = "";
		size_t n = 0;

		for (j = 0; j < e->nclients && n < sizeof(clients); j++)
			n += (size_t)snprintf(clients + n, sizeof(clients) - n,
					      "%s%s(%s)", j ? " " : "",
					      e->clients[j].spec,
					      e->clients[j].opts.rw ? "rw"
								    : "ro");
		log_info("export %s (id %u) to %s", e->path, e->id, clients);
	}
}

/* @ss with its port replaced by @port, as a listen spec. */
static void with_port(const struct sockaddr_storage *ss, uint16_t port,
		      char *buf, size_t len)
{
	struct sockaddr_storage c = *ss;

	addr_set_port(&c, port);
	addr_format(&c, buf, len);
}

/*
 * ONC RPC over TCP with record marking (RFC 5531 §11), the protocol of
 * every NFS, MOUNT and port mapper listener: the transport's table wired
 * to the RPC layer. Its message limit is set from --max-record at start.
 */
static struct transport_proto rpc_tcp = {
	.name = "rpc",
	.hdr_len = RPC_RM_HDR_LEN,
	.frame_parse = rpc_rm_parse,
	.frame_build = rpc_rm_build,
	.frame_max = RPC_RM_LEN_MASK,
	.align = rpc_record_align,
	.may_inline = rpc_record_inline,
	.process = rpc_process,
	.conn_close = rpc_conn_close,
};

static int listen_one(const char *spec, uint16_t def_port,
		      struct sockaddr_storage *bound)
{
	char s[96];
	socklen_t len;
	int ret = transport_listen(spec, def_port, &rpc_tcp, bound, &len);

	if (ret < 0) {
		fprintf(stderr, "nasd: cannot listen on %s: %s\n", spec,
			strerror(-ret));
		return ret;
	}
	addr_format(bound, s, sizeof(s));
	log_info("listening on %s", s);
	return 0;
}

/*
 * NLM or NSM (@p) also on @port of every listen address (every RPC
 * listener serves every program; the port mapper points at these first,
 * so portmap v2 clients are told this port). Nothing when @port is 0 or
 * the NFS port.
 */
static int open_extra(const struct sockaddr_storage *nfs, unsigned int n,
		      long port, const struct rpc_program *p)
{
	struct sockaddr_storage b;
	char spec[96];
	unsigned int i;
	int ret;

	for (i = 0; port && i < n; i++) {
		if (addr_port(&nfs[i]) == port)
			continue;
		with_port(&nfs[i], (uint16_t)port, spec, sizeof(spec));
		ret = listen_one(spec, 0, &b);
		if (ret < 0)
			return ret;
		pmap_add_program(p, IPPROTO_TCP_PMAP, &b);
	}
	return 0;
}

/*
 * NLM and NSM over UDP (rpc/rpc_udp.h) on @port of every listen address
 * (0: the address's own port; nothing for an address whose port @port
 * is, which the call with 0 covers), in the port map as @p (NULL: both
 * programs). sm-notify sends SM_NOTIFY over UDP only; some lockds call
 * over UDP. A port UDP cannot have is logged and left: locking over TCP
 * does not need it.
 */
static void open_udp(const struct sockaddr_storage *nfs, unsigned int n,
		     long port, const struct rpc_program *p)
{
	const uint32_t progs[] = { nlm_program.prog, nsm_program.prog };
	struct sockaddr_storage b;
	char spec[96];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (port && addr_port(&nfs[i]) == port)
			continue;
		if (!port && p)
			continue;
		with_port(&nfs[i], port ? (uint16_t)port : addr_port(&nfs[i]),
			  spec, sizeof(spec));
		ret = rpc_udp_open(spec, 0, progs, 2, &b);
		if (ret < 0) {
			log_warn("no NLM/NSM over udp %s: %s", spec,
				 strerror(-ret));
			continue;
		}
		log_info("listening on udp %s (NLM, NSM)", spec);
		if (!p || p == &nlm_program)
			pmap_add_program(&nlm_program, IPPROTO_UDP_PMAP, &b);
		if (!p || p == &nsm_program)
			pmap_add_program(&nsm_program, IPPROTO_UDP_PMAP, &b);
	}
}

/*
 * NFS and MOUNT on every listen address, MOUNT also on the mountd port.
 * MOUNT's mountd-port entries go into the port map first, so that
 * portmap v2 (one port per program/version) points at them.
 */
static int open_listeners(struct sockaddr_storage *nfs, unsigned int *nnfs)
{
	struct sockaddr_storage m[MAX_SPECS];
	char spec[96];
	unsigned int i, nm = 0;
	int ret;

	if (!opt.nlistens)
		opt.listens[opt.nlistens++] = "127.0.0.1";
	for (i = 0; i < opt.nlistens; i++) {
		ret = listen_one(opt.listens[i], NFS_PORT, &nfs[i]);
		if (ret < 0)
			return ret;
	}
	*nnfs = opt.nlistens;
	for (i = 0; opt.mountd_port && i < opt.nlistens; i++) {
		if (addr_port(&nfs[i]) == opt.mountd_port)
			continue;
		with_port(&nfs[i], (uint16_t)opt.mountd_port, spec,
			  sizeof(spec));
		ret = listen_one(spec, 0, &m[nm]);
		if (ret < 0)
			return ret;
		nm++;
	}
	for (i = 0; i < nm; i++)
		pmap_add_program(&mount3_program, IPPROTO_TCP_PMAP, &m[i]);
	ret = open_extra(nfs, *nnfs, opt.nlm_port, &nlm_program);
	if (ret < 0)
		return ret;
	ret = open_extra(nfs, *nnfs, opt.statd_port, &nsm_program);
	if (ret < 0)
		return ret;
	for (i = 0; i < *nnfs; i++) {
		pmap_add_program(&nfs_program, IPPROTO_TCP_PMAP, &nfs[i]);
		pmap_add_program(&mount3_program, IPPROTO_TCP_PMAP, &nfs[i]);
		pmap_add_program(&nlm_program, IPPROTO_TCP_PMAP, &nfs[i]);
		pmap_add_program(&nsm_program, IPPROTO_TCP_PMAP, &nfs[i]);
	}
	/* over UDP too, the extra ports first in the port map */
	open_udp(nfs, *nnfs, opt.nlm_port, &nlm_program);
	if (opt.statd_port != opt.nlm_port)
		open_udp(nfs, *nnfs, opt.statd_port, &nsm_program);
	open_udp(nfs, *nnfs, 0, NULL);
	return 0;
}

/* Serve program 100000 on port 111 of each listen address (TCP, and UDP
 * once rpc_udp_start() runs). */
static int start_portmapper(const struct sockaddr_storage *nfs,
			    unsigned int n)
{
	const uint32_t prog = PMAP_PROGRAM;
	char spec[96], done[MAX_SPECS][96];
	struct sockaddr_storage b;
	unsigned int i, j, ndone = 0;
	int ret;

	rpc_register_program(&pmap_program);
	for (i = 0; i < n; i++) {
		with_port(&nfs[i], PMAP_PORT, spec, sizeof(spec));
		for (j = 0; j < ndone; j++)
			if (!strcmp(done[j], spec))
				break;
		if (j < ndone)
			continue;
		ret = listen_one(spec, 0, &b);
		if (ret < 0)
			return ret;
		memcpy(done[ndone++], spec, sizeof(spec));
		pmap_add_program(&pmap_program, IPPROTO_TCP_PMAP, &b);
		ret = rpc_udp_open(spec, 0, &prog, 1, &b);
		if (ret < 0)
			log_warn("port mapper on udp %s: %s", spec,
				 strerror(-ret));
		else
			pmap_add_program(&pmap_program, IPPROTO_UDP_PMAP, &b);
	}
	return 0;
}

static void daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0) {
		perror("nasd: fork");
		exit(1);
	}
	if (pid > 0)
		_exit(0);
	setsid();
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

static void reload_exports(void)
{
	struct export_table *t;
	char err[512];

	smb_setup_reload();
	if (!opt.config && !opt.nexports && !opt.nshares) {
		log_info("SIGHUP: no --config or --export, no exports to "
			 "reload");
		return;
	}
	t = load_exports(err, sizeof(err));
	if (!t) {
		log_err("SIGHUP: keeping the current exports: %s", err);
		return;
	}
	export_table_install(t);
	log_info("SIGHUP: exports reloaded");
	log_exports(t);
}

/* Signals arrive here, blocked in every other thread. */
static void *signal_main(void *arg)
{
	sigset_t *set = arg;
	int sig;

	for (;;) {
		sig = sigwaitinfo(set, NULL);
		if (sig < 0)
			continue;
		if (sig == SIGHUP) {
			reload_exports();
			continue;
		}
		log_info("signal %d: stopping", sig);
		transport_stop();
		return NULL;
	}
}

/* `nasd stats`: one getter per figure, as stats_value_add() takes them,
 * of a struct @T that the function of the same name fills. */
#define STRUCT_STAT(fn, T, field)                                              \
	static uint64_t fn(void)                                               \
	{                                                                      \
		struct T st;                                                   \
                                                                               \
		T(&st);                                                        \
		return st.field;                                               \
	}
/* payload buffers: in use, peak, cached, where reading stops */
STRUCT_STAT(payload_in_use, iobuf_stats, in_use)
STRUCT_STAT(payload_peak, iobuf_stats, peak)
STRUCT_STAT(payload_cached, iobuf_stats, cached)
STRUCT_STAT(payload_high_mark, iobuf_stats, high_mark)
/* io=auto's view of memory (vfs.h, adaptive io=auto) */
STRUCT_STAT(auto_buffered, vfs_auto_stats, buffered)
STRUCT_STAT(auto_cached, vfs_auto_stats, cached)
STRUCT_STAT(auto_budget, vfs_auto_stats, budget)
STRUCT_STAT(auto_switches, vfs_auto_stats, switches)
STRUCT_STAT(auto_pressure, vfs_auto_stats, pressure_x100)
STRUCT_STAT(auto_dirty, vfs_auto_stats, dirty)

static struct timer auto_timer;

static void auto_fire(struct timer *t)
{
	vfs_auto_sample();
	(void)timer_arm(t, VFS_AUTO_SAMPLE_MS, auto_fire, NULL);
}

/* Every POOL_TRIM_MS the payload buffers cached beyond what the last
 * period used go back to the system (iobuf_periodic_trim): RSS falls within
 * seconds of a burst of large I/O, idle or busy with other work. */
#define POOL_TRIM_MS 5000
static struct timer pool_trim;

static void pool_trim_fire(struct timer *t)
{
	iobuf_periodic_trim();
	(void)timer_arm(t, POOL_TRIM_MS, pool_trim_fire, NULL);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage nfs[MAX_SPECS];
	struct transport_limits lim;
	struct export_table *t;
	unsigned int nnfs = 0;
	pthread_t sig_thread;
	static sigset_t set;
	char err[512];
	int ret;

	if (argc > 1 && !strcmp(argv[1], "stats"))
		return control_stats_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "user"))
		return user_cmd_main(argc - 1, argv + 1);
	stats_init();
	state_grant_stats_init();
	if (parse_args(argc, argv) < 0)
		return 2;
	(void)signal(SIGPIPE, SIG_IGN); /* fails only for a bad signal */
	if (opt.config && !realpath(opt.config, config_path)) {
		fprintf(stderr, "nasd: %s: %s\n", opt.config, strerror(errno));
		return 1;
	}
	vfs_set_max_open_files(opt.max_open_files);
	ret = vfs_secret_init(opt.state_dir);
	if (ret < 0) {
		fprintf(stderr, "nasd: state dir %s: %s\n", opt.state_dir,
			strerror(-ret));
		return 1;
	}
	/* Test builds and the fault suite: NASD_FAULTS (vfs/fault.h). */
	if (vfs_fault_init_env() < 0) {
		fprintf(stderr, "nasd: bad NASD_FAULTS (see the log)\n");
		return 1;
	}
	t = load_exports(err, sizeof(err));
	if (!t) {
		fprintf(stderr, "nasd: exports: %s\n", err);
		return 1;
	}
	export_table_install(t);

	nfs_program_init();
	rpc_register_program(&nfs_program);
	rpc_register_program(&mount3_program);
	rpc_register_program(&nlm_program);
	rpc_register_program(&nsm_program);
	iobuf_set_max_memory(opt.max_memory);
	/* Payload worth holding: what the workers can have in hand (8 MiB,
	 * SMB's largest request, each), not what clients queue up; the rest
	 * waits in their TCP streams (issue 12 §3). */
	if (opt.payload_budget == UINT64_MAX)
		opt.payload_budget = (uint64_t)PAYLOAD_PER_WORKER *
				     (opt.threads ? opt.threads
						  : TRANSPORT_DEFAULT_WORKERS);
	if (opt.payload_budget && opt.payload_budget < PAYLOAD_BUDGET_MIN)
		opt.payload_budget = PAYLOAD_BUDGET_MIN;
	iobuf_set_budget(opt.payload_budget);
	vfs_auto_configure(opt.cache_budget, opt.cache_pct);
	vfs_auto_sample();
	(void)stats_value_add("io_auto_buffered", "1 while io=auto sends large "
			      "I/O through the page cache, 0 while it goes "
			      "O_DIRECT (--cache-budget).", false,
			      auto_buffered);
	(void)stats_value_add("io_auto_cache_bytes", "Page cache charged to "
			      "nasd's memory (its cgroup, else the machine), "
			      "as io=auto last saw it.", false, auto_cached);
	(void)stats_value_add("io_auto_cache_budget_bytes", "Page cache "
			      "io=auto's large I/O may fill (--cache-budget).",
			      false, auto_budget);
	(void)stats_value_add("io_auto_dirty_bytes", "Of that cache, bytes "
			      "dirty or under writeback, as io=auto last saw "
			      "it.", false, auto_dirty);
	(void)stats_value_add("io_auto_switches_total", "Times io=auto "
			      "switched between buffered and direct.", true,
			      auto_switches);
	(void)stats_value_add("memory_pressure_avg10_x100", "PSI memory "
			      "'some avg10' (hundredths of a percent) as "
			      "io=auto last saw it.", false, auto_pressure);
	(void)stats_value_add("payload_bytes", "Payload buffer bytes in use "
			      "(requests and replies being handled).", false,
			      payload_in_use);
	(void)stats_value_add("payload_peak_bytes", "The most payload "
			      "buffer bytes in use at once since the start.",
			      false, payload_peak);
	(void)stats_value_add("payload_cached_bytes", "Payload buffers "
			      "freed and kept for reuse (given back to the "
			      "system when idle).", false, payload_cached);
	(void)stats_value_add("payload_high_mark_bytes", "Payload bytes in "
			      "use above which no new request is read "
			      "(--payload-budget).", false, payload_high_mark);
	lim = opt.lim;
	if (opt.max_record)
		lim.max_record = opt.max_record;
	rpc_tcp.max_msg = lim.max_record < RPC_RM_LEN_MASK ? lim.max_record
							   : RPC_RM_LEN_MASK;
	ret = transport_init(opt.loops, opt.threads, &lim);
	if (ret < 0) {
		fprintf(stderr, "nasd: transport: %s\n", strerror(-ret));
		return 1;
	}
	if (open_listeners(nfs, &nnfs) < 0)
		return 1;
	smb_cfg.state_dir = opt.state_dir;
	if (smb_setup_start(&smb_cfg, opt.smb_listens, opt.nsmb_listens) < 0)
		return 1;

	/* rpcb_register() logs what it registered and what it left. */
	ret = rpcb_register();
	if (ret < 0 && opt.portmap &&
	    (ret == -ECONNREFUSED || ret == -ENOENT || ret == -ETIMEDOUT)) {
		if (start_portmapper(nfs, nnfs) < 0)
			return 1;
		log_info("serving the port mapper (100000) on port 111");
	} else if (ret < 0) {
		log_warn("no port mapper registration (%s)%s", strerror(-ret),
			 opt.portmap ? "" : "; --portmap serves one");
	}

	if (control_open(opt.state_dir, opt.metrics, err, sizeof(err)) < 0) {
		fprintf(stderr, "nasd: %s\n", err);
		return 1;
	}
	if (!opt.foreground)
		daemonize();

	/* Block the signals before any thread starts, so all inherit it. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&sig_thread, NULL, signal_main, &set)) {
		log_err("cannot start the signal thread");
		return 1;
	}
	/* The timer thread too: after daemonize() (a fork keeps no thread)
	 * and the mask. */
	if (timer_arm(&pool_trim, POOL_TRIM_MS, pool_trim_fire, NULL) < 0)
		log_warn("no idle trim of the buffer pool (no timer thread)");
	if (timer_arm(&auto_timer, VFS_AUTO_SAMPLE_MS, auto_fire, NULL) < 0)
		log_warn("io=auto cannot watch memory (no timer thread): "
			 "large I/O stays as it started");
	/* NFSv4 state starts threads: after daemonize() and the mask. */
	nfs4_cfg.state_dir = opt.state_dir;
	/* one grace period for locks: each protocol waits for the other's
	 * reclaims (NLM's opens once nlm_init() has read its records) */
	nfs4_cfg.other_grace = nlm_own_grace;
	ret = nfs4_init(&nfs4_cfg);
	if (ret < 0) {
		log_err("nfsv4 state in %s: %s", opt.state_dir, strerror(-ret));
		return 1;
	}
	nlm_cfg.state_dir = opt.state_dir;
	nlm_cfg.grace_time = nfs4_cfg.grace_time;
	nlm_cfg.client_rpcbind_port = (uint16_t)opt.callback_rpcbind_port;
	nlm_cfg.other_grace = nfs4_in_grace;
	ret = nlm_init(&nlm_cfg);
	if (ret < 0) {
		log_err("nlm state in %s: %s", opt.state_dir, strerror(-ret));
		return 1;
	}
	if (control_start() < 0)
		log_warn("cannot start the control thread; no statistics");
	ret = rpc_udp_start();
	if (ret < 0)
		log_warn("rpc over udp: %s", strerror(-ret));
	log_info("nasd %s started (pid %d)", "0.1.0", (int)getpid());
	log_exports(t);

	ret = transport_run();
	control_stop();
	smb2_shutdown();
	nlm_shutdown();
	nfs4_shutdown();
	rpcb_unregister();
	/* The exports' storage let go of: a CephFS mount ends its session
	 * now, or another gateway waits for it to time out. */
	export_table_install(NULL);
	if (ret < 0) {
		log_err("transport: %s", strerror(-ret));
		return 1;
	}
	pthread_join(sig_thread, NULL);
	log_info("stopped");
	return 0;
}
