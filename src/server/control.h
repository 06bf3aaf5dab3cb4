/* SPDX-License-Identifier: MIT */
#ifndef NASD_SERVER_CONTROL_H
#define NASD_SERVER_CONTROL_H

/*
 * The control socket (STATE_DIR/control.sock, AF_UNIX stream, mode 0600)
 * and the optional --metrics HTTP listener, served by one small thread of
 * their own with poll(2), never by the RPC loops or workers.
 *
 * Control protocol: the client sends one line, at most
 * CONTROL_REQ_MAX bytes with its '\n':
 *     stats [text|json|prometheus]
 * and reads the reply text until the server closes the connection. A
 * reply starting with "error: " is a refusal.
 *
 * Every client, on either socket, has CONTROL_CLIENT_TIMEOUT seconds to
 * send its request and read the reply; at most CONTROL_MAX_CLIENTS are
 * served at once (others wait in the listen backlog).
 */

#include <stddef.h>

#define CONTROL_SOCK_NAME      "control.sock"
#define CONTROL_REQ_MAX	       256
#define CONTROL_MAX_CLIENTS    16
#define CONTROL_CLIENT_TIMEOUT 5 /* seconds */

/*
 * control_open() - bind STATE_DIR/control.sock (replacing a stale one
 * that nobody answers on) and, if @metrics_addr is not NULL, listen on
 * that ADDR:PORT for HTTP. Call before daemonizing; the sockets are
 * inherited. A control socket that cannot be made (path too long,
 * another live nasd on it) is logged and skipped; a metrics address that
 * cannot be bound is an error. Returns 0 or -errno, with a message in
 * @err.
 */
int control_open(const char *state_dir, const char *metrics_addr, char *err,
		 size_t errlen);

/*
 * control_start() - start the serving thread (after daemonizing, with the
 * signals blocked). Returns 0 or -errno.
 */
int control_start(void);

/*
 * control_stop() - stop and join the thread, close the sockets and remove
 * the control socket file. Safe to call when nothing was opened.
 */
void control_stop(void);

/*
 * control_stats_main() - `nasd stats [--state-dir DIR]
 * [--json|--prometheus|--text]`: ask a running nasd for its statistics
 * over its control socket and print them. @argv[0] is "stats".
 * Returns the process exit status: 0, 1 (no server / refused), 2 (usage).
 */
int control_stats_main(int argc, char **argv);

#endif
