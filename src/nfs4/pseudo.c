// SPDX-License-Identifier: MIT
/*
 * NFSv4 pseudo-filesystem (RFC 8881 §7.3-§7.7): the directories that lead
 * from "/" to the exports. One tree per export table; the tree of the
 * live table is cached and rebuilt when the table is swapped (SIGHUP).
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "core/log.h"
#include "nfs4/pseudo.h"
#include "vfs/vfs.h"

/* Payload of a pseudo handle: a kind byte and the node id. */
#define PSEUDO_FH_KIND 'p'
#define PSEUDO_FH_PAYLOAD 9

struct nfs4_pseudo_node {
	char *name;                 /* component; "" for the root */
	char *path;                 /* absolute pseudo path */
	uint64_t id;                /* hash of path: fileid and handle */
	struct nfs4_pseudo_node *parent;
	struct nfs4_pseudo_node **children; /* sorted by name */
	uint32_t nchildren;
	struct export *export;      /* junction: this export's root */
	struct export **under;      /* exports at or below: visibility */
	uint32_t nunder;
};

struct nfs4_pseudo {
	atomic_int refs;
	struct export_table *table_ref; /* held when cached, else NULL */
	struct export_table *table;
	uint64_t change;
	struct nfs4_pseudo_node *root;
	struct nfs4_pseudo_node **nodes;
	uint32_t nnodes;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nfs4_pseudo *cached;

/* FNV-1a, 64 bit: stable across runs (handles must survive restarts);
 * the MAC, not this hash, is what makes handles unforgeable. */
static uint64_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ULL;
	}
	/* fileids 0..2 look odd to clients; keep clear of them */
	return h < 3 ? h + 3 : h;
}

static void node_free(struct nfs4_pseudo_node *n)
{
	if (!n)
		return;
	free(n->name);
	free(n->path);
	free(n->children);
	free(n->under);
	free(n);
}

static void tree_free(struct nfs4_pseudo *p)
{
	uint32_t i;

	for (i = 0; i < p->nnodes; i++)
		node_free(p->nodes[i]);
	free(p->nodes);
	if (p->table_ref)
		export_table_put(p->table_ref);
	free(p);
}

static struct nfs4_pseudo_node *node_new(struct nfs4_pseudo *p,
					 struct nfs4_pseudo_node *parent,
					 const char *name, size_t len)
{
	struct nfs4_pseudo_node *n, **nodes, **kids;
	size_t plen;
	uint32_t i;

	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->name = strndup(name, len);
	plen = parent ? strlen(parent->path) : 0;
	n->path = malloc(plen + len + 2);
	if (!n->name || !n->path)
		goto out_free;
	if (!parent) {
		memcpy(n->path, "/", sizeof("/"));
	} else {
		memcpy(n->path, parent->path, plen);
		if (plen > 1)
			n->path[plen++] = '/';
		else
			plen = 1;
		memcpy(n->path + plen, name, len);
		n->path[plen + len] = '\0';
	}
	n->id = path_hash(n->path);
	n->parent = parent;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
	nodes = realloc(p->nodes, (p->nnodes + 1) * sizeof(*nodes));
	if (!nodes)
		goto out_free;
	p->nodes = nodes;
	if (parent) {
		size_t nk = parent->nchildren + 1;

		/* NOLINTNEXTLINE(bugprone-sizeof-expression): as above */
		kids = realloc(parent->children, nk * sizeof(*kids));
		if (!kids)
			goto out_free;
		parent->children = kids;
		/* insertion sort keeps READDIR order stable */
		for (i = parent->nchildren; i > 0; i--) {
			if (strcmp(kids[i - 1]->name, n->name) < 0)
				break;
			kids[i] = kids[i - 1];
		}
		kids[i] = n;
		parent->nchildren++;
	}
	p->nodes[p->nnodes++] = n;
	return n;

out_free:
	node_free(n);
	return NULL;
}

static struct nfs4_pseudo_node *node_child(const struct nfs4_pseudo_node *d,
					   const char *name, size_t len)
{
	uint32_t i;

	for (i = 0; i < d->nchildren; i++) {
		const char *cn = d->children[i]->name;

		if (strlen(cn) == len && memcmp(cn, name, len) == 0)
			return d->children[i];
	}
	return NULL;
}

static int node_add_under(struct nfs4_pseudo_node *n, struct export *e)
{
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
	struct export **u = realloc(n->under, (n->nunder + 1) * sizeof(*u));

	if (!u)
		return -ENOMEM;
	n->under = u;
	n->under[n->nunder++] = e;
	return 0;
}

/* Where @e appears: its pseudo= option (export-wide) or its own path. */
static const char *export_pseudo_path(const struct export *e)
{
	return e->wide.pseudo[0] ? e->wide.pseudo : e->path;
}

static int tree_add_export(struct nfs4_pseudo *p, struct export *e)
{
	const char *path = export_pseudo_path(e), *s = path, *end;
	struct nfs4_pseudo_node *n = p->root, *c;

	if (node_add_under(n, e))
		return -ENOMEM;
	for (;;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		end = strchr(s, '/');
		if (!end)
			end = s + strlen(s);
		c = node_child(n, s, (size_t)(end - s));
		if (!c) {
			c = node_new(p, n, s, (size_t)(end - s));
			if (!c)
				return -ENOMEM;
		}
		n = c;
		if (node_add_under(n, e))
			return -ENOMEM;
		s = end;
	}
	if (n->export) {
		log_warn("nfs4: exports %s and %s share pseudo path %s; "
			 "only the first is reachable over NFSv4",
			 n->export->path, e->path, n->path);
		return 0;
	}
	n->export = e;
	return 0;
}

/** nfs4_pseudo_build() - a new tree for @t; see pseudo.h. */
int nfs4_pseudo_build(struct export_table *t, struct nfs4_pseudo **out)
{
	struct nfs4_pseudo *p;
	struct timespec ts;
	uint32_t i;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	atomic_init(&p->refs, 1);
	p->table = t;
	clock_gettime(CLOCK_REALTIME, &ts);
	p->change = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	p->root = node_new(p, NULL, "", 0);
	if (!p->root)
		goto out_free;
	for (i = 0; t && i < t->nexports; i++) {
		if (!t->exports[i].vex)
			continue;
		if (tree_add_export(p, &t->exports[i]))
			goto out_free;
	}
	*out = p;
	return 0;

out_free:
	tree_free(p);
	return -ENOMEM;
}

/** nfs4_pseudo_get() - the (cached) tree of @t; see pseudo.h. */
int nfs4_pseudo_get(struct export_table *t, struct nfs4_pseudo **out)
{
	struct export_table *live;
	struct nfs4_pseudo *p, *old = NULL;
	int err;

	pthread_mutex_lock(&cache_lock);
	if (cached && cached->table == t) {
		atomic_fetch_add(&cached->refs, 1);
		*out = cached;
		pthread_mutex_unlock(&cache_lock);
		return 0;
	}
	pthread_mutex_unlock(&cache_lock);

	err = nfs4_pseudo_build(t, &p);
	if (err)
		return err;
	/* Only the live table's tree is cached; it keeps that table alive
	 * so that the pointer comparison above cannot be fooled by a new
	 * table at a recycled address. */
	live = export_table_current();
	if (live != t) {
		export_table_put(live);
		*out = p;
		return 0;
	}
	p->table_ref = live;
	atomic_fetch_add(&p->refs, 1);
	pthread_mutex_lock(&cache_lock);
	if (cached && cached->table == t) {
		/* another thread won the race: use its tree */
		atomic_fetch_add(&cached->refs, 1);
		*out = cached;
		pthread_mutex_unlock(&cache_lock);
		tree_free(p);
		return 0;
	}
	old = cached;
	cached = p;
	pthread_mutex_unlock(&cache_lock);
	nfs4_pseudo_put(old);
	*out = p;
	return 0;
}

/** nfs4_pseudo_put() - drop a reference; the last one frees the tree. */
void nfs4_pseudo_put(struct nfs4_pseudo *p)
{
	if (p && atomic_fetch_sub(&p->refs, 1) == 1)
		tree_free(p);
}

/** nfs4_pseudo_flush() - forget the cached tree (and its table). */
void nfs4_pseudo_flush(void)
{
	struct nfs4_pseudo *old;

	pthread_mutex_lock(&cache_lock);
	old = cached;
	cached = NULL;
	pthread_mutex_unlock(&cache_lock);
	nfs4_pseudo_put(old);
}

/** nfs4_pseudo_root() - the root node ("/"). */
struct nfs4_pseudo_node *nfs4_pseudo_root(struct nfs4_pseudo *p)
{
	return p->root;
}

/** nfs4_pseudo_export() - the junction's export, or NULL. */
struct export *nfs4_pseudo_export(const struct nfs4_pseudo_node *n)
{
	return n->export;
}

/** nfs4_pseudo_parent() - the parent, NULL for the root. */
struct nfs4_pseudo_node *nfs4_pseudo_parent(const struct nfs4_pseudo_node *n)
{
	return n->parent;
}

/** nfs4_pseudo_path() - the absolute pseudo path. */
const char *nfs4_pseudo_path(const struct nfs4_pseudo_node *n)
{
	return n->path;
}

/** nfs4_pseudo_name() - the last component ("" for the root). */
const char *nfs4_pseudo_name(const struct nfs4_pseudo_node *n)
{
	return n->name;
}

/** nfs4_pseudo_fileid() - the node's stable fileid. */
uint64_t nfs4_pseudo_fileid(const struct nfs4_pseudo_node *n)
{
	return n->id;
}

/** nfs4_pseudo_change() - the tree's change attribute. */
uint64_t nfs4_pseudo_change(const struct nfs4_pseudo *p)
{
	return p->change;
}

/** nfs4_pseudo_visible() - @peer may use an export at or below @n. */
bool nfs4_pseudo_visible(const struct nfs4_pseudo_node *n,
			 const struct sockaddr *peer)
{
	uint32_t i;

	for (i = 0; i < n->nunder; i++)
		if (export_match_client(n->under[i], peer))
			return true;
	return false;
}

/** nfs4_pseudo_nchildren() - number of children of @n. */
uint32_t nfs4_pseudo_nchildren(const struct nfs4_pseudo_node *n)
{
	return n->nchildren;
}

/** nfs4_pseudo_child() - child @i of @n, NULL past the end. */
struct nfs4_pseudo_node *nfs4_pseudo_child(const struct nfs4_pseudo_node *n,
					   uint32_t i)
{
	return i < n->nchildren ? n->children[i] : NULL;
}

/** nfs4_pseudo_lookup() - a visible child by name; see pseudo.h. */
int nfs4_pseudo_lookup(const struct nfs4_pseudo_node *dir, const char *name,
		       size_t len, const struct sockaddr *peer,
		       struct nfs4_pseudo_node **out)
{
	struct nfs4_pseudo_node *c = node_child(dir, name, len);

	if (!c || !nfs4_pseudo_visible(c, peer))
		return -ENOENT;
	*out = c;
	return 0;
}

/** nfs4_pseudo_of_export() - the junction node of @e, or NULL. */
struct nfs4_pseudo_node *nfs4_pseudo_of_export(struct nfs4_pseudo *p,
					       const struct export *e)
{
	uint32_t i;

	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i]->export == e)
			return p->nodes[i];
	return NULL;
}

/** nfs4_pseudo_fh() - mint the node's handle. */
int nfs4_pseudo_fh(const struct nfs4_pseudo_node *n, struct nfs_fh4 *fh)
{
	uint8_t pl[PSEUDO_FH_PAYLOAD];
	int len, i;

	pl[0] = PSEUDO_FH_KIND;
	for (i = 0; i < 8; i++)
		pl[1 + i] = (uint8_t)(n->id >> (56 - 8 * i));
	len = vfs_fh_mint_opaque(pl, sizeof(pl), fh->data, NFS4_FHSIZE);
	if (len < 0)
		return len;
	fh->len = (uint32_t)len;
	return 0;
}

static int fh_node_id(const void *fh, size_t len, uint64_t *id)
{
	uint8_t pl[VFS_FH_OPAQUE_MAX];
	int n, i;

	n = vfs_fh_verify_opaque(fh, len, pl, sizeof(pl));
	if (n != PSEUDO_FH_PAYLOAD || pl[0] != PSEUDO_FH_KIND)
		return -EBADHANDLE;
	*id = 0;
	for (i = 0; i < 8; i++)
		*id = *id << 8 | pl[1 + i];
	return 0;
}

/** nfs4_pseudo_is_fh() - @fh is a genuine pseudo handle. */
bool nfs4_pseudo_is_fh(const void *fh, size_t len)
{
	uint64_t id;

	return fh_node_id(fh, len, &id) == 0;
}

/** nfs4_pseudo_from_fh() - the node of a pseudo handle; see pseudo.h. */
int nfs4_pseudo_from_fh(struct nfs4_pseudo *p, const void *fh, size_t len,
			struct nfs4_pseudo_node **out)
{
	uint64_t id;
	uint32_t i;
	int err;

	err = fh_node_id(fh, len, &id);
	if (err)
		return err;
	for (i = 0; i < p->nnodes; i++) {
		if (p->nodes[i]->id == id) {
			*out = p->nodes[i];
			return 0;
		}
	}
	return -ESTALE;
}
