// SPDX-License-Identifier: MIT
/* The server's own small state files (statefile.h). */
#include "core/statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/log.h"

int statefile_random(const char *dir, const char *name, void *buf,
		     size_t len)
{
	long n = statefile_read(dir, name, buf, len);

	if (n == (long)len)
		return 0;
	if (n == -ENAMETOOLONG)
		return -ENAMETOOLONG;
	if (n != -ENOENT)
		log_warn("%s/%s is not %zu bytes: making a new one", dir, name,
			 len);
	if (getrandom(buf, len, 0) != (ssize_t)len)
		return -EIO;
	return statefile_write(dir, name, buf, len);
}

int statefile_write(const char *dir, const char *name, const void *buf,
		    size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	ssize_t n;
	int fd, ret;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
		    (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name) >=
		    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	n = len ? write(fd, buf, len) : 0;
	ret = n == (ssize_t)len && fsync(fd) == 0 ? 0 : -EIO;
	close(fd);
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

long statefile_read(const char *dir, const char *name, void *buf,
		    size_t max)
{
	char path[PATH_MAX], extra;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, max);
	if (n == (ssize_t)max && read(fd, &extra, 1) > 0)
		n = -EFBIG;
	else if (n < 0)
		n = -errno;
	close(fd);
	return (long)n;
}
