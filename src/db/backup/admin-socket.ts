import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';

/**
 * The embedded server's admin socket: a Unix socket at DATA_DIR/admin.sock, mode 0600, through
 * which the operator's CLI asks the running server (which holds DATA_DIR's lock, decision 0021) to
 * take a backup (`tributary backup`) or to run one of its store commands (`merchants create`,
 * `keys create|list|roll|revoke`, …: src/cli/admin-commands.ts), which it could not run itself while
 * the server holds the directory. Who may connect is decided by the filesystem: the owner of the
 * server process (and root). Nothing listens on the network, so there is no token to issue, leak or
 * rotate (docs/backups.md). One JSON request line in, one JSON reply line out.
 */
export const ADMIN_SOCKET = 'admin.sock';
/** sun_path holds 108 bytes with its terminating NUL on Linux. */
const MAX_SOCKET_PATH_BYTES = 107;
const MAX_REQUEST_BYTES = 16 * 1024;

export type AdminRequest =
  | {
      op: 'backup';
      /** Absolute path of the backup file to write. */
      path: string;
    }
  | {
      /** One operator command; its fields are checked by the handler (src/cli/admin-commands.ts). */
      op: 'command';
      command: string;
      arg: string | null;
      options: Record<string, string>;
    };

export type AdminReply = { ok: true; value: unknown } | { ok: false; error: string };

export class NoServerError extends Error {
  override name = 'NoServerError';
}

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, ADMIN_SOCKET);
}

/**
 * Listens on DATA_DIR/admin.sock. The caller holds the data directory's lock, so a socket file
 * left by a killed predecessor is stale and removed first. Returns undefined (and says why through
 * `warn`) when the path is too long for a Unix socket: backups then run only on schedule.
 */
export async function serveAdminSocket(
  dataDir: string,
  handle: (request: AdminRequest) => Promise<unknown>,
  warn: (message: string) => void,
): Promise<{ close(): Promise<void> } | undefined> {
  const path = adminSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    warn(`DATA_DIR path is too long for the admin socket (${path}); \`tributary backup\` cannot reach this server`);
    return undefined;
  }
  if (existsSync(path)) unlinkSync(path);
  const server: Server = createServer({ allowHalfOpen: false }, (socket) => {
    let buffered = '';
    const reply = (answer: AdminReply) => socket.end(`${JSON.stringify(answer)}\n`);
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REQUEST_BYTES) {
        reply({ ok: false, error: 'request too long' });
        return;
      }
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      socket.removeAllListeners('data');
      let request: unknown;
      try {
        request = JSON.parse(buffered.slice(0, newline)) as unknown;
      } catch {
        reply({ ok: false, error: 'request is not JSON' });
        return;
      }
      if (!isAdminRequest(request)) {
        reply({
          ok: false,
          error:
            'unknown request (expected {"op":"backup","path":"/absolute/path"} or {"op":"command","command":…,"arg":…,"options":{…}})',
        });
        return;
      }
      handle(request).then(
        (value) => reply({ ok: true, value }),
        (error: unknown) => reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  // Only the owner may connect (a connect needs write permission on the socket). Before this line
  // the umask already kept others from writing (0755 under the usual 022).
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (existsSync(path)) unlinkSync(path);
      }),
  };
}

function isAdminRequest(request: unknown): request is AdminRequest {
  if (typeof request !== 'object' || request === null) return false;
  const r = request as Record<string, unknown>;
  if (r['op'] === 'backup') return typeof r['path'] === 'string' && r['path'].startsWith('/');
  return (
    r['op'] === 'command' &&
    typeof r['command'] === 'string' &&
    (r['arg'] === null || typeof r['arg'] === 'string') &&
    typeof r['options'] === 'object' &&
    r['options'] !== null &&
    !Array.isArray(r['options'])
  );
}

/** Sends one request to the server holding `dataDir`; NoServerError when none listens there. */
export async function requestAdmin(dataDir: string, request: AdminRequest, timeoutMs: number): Promise<unknown> {
  const path = adminSocketPath(dataDir);
  return new Promise((resolve, reject) => {
    let answer = '';
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const socket = createConnection(path);
    const timer = setTimeout(() => {
      socket.destroy();
      finish(() => reject(new Error(`the server did not answer on ${path} within ${timeoutMs} ms`)));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      finish(() =>
        reject(
          error.code === 'ENOENT' || error.code === 'ECONNREFUSED'
            ? new NoServerError(`no server answers on ${path}`)
            : new Error(`admin socket ${path}: ${error.message}`),
        ),
      );
    });
    socket.on('end', () => {
      finish(() => {
        let reply: AdminReply;
        try {
          reply = JSON.parse(answer) as AdminReply;
        } catch {
          reject(new Error(`the server's answer on ${path} is not JSON: ${answer.slice(0, 200)}`));
          return;
        }
        if (reply.ok) resolve(reply.value);
        else reject(new AdminRequestFailed(reply.error));
      });
    });
  });
}

/** The server answered, with a refusal or a failure (its message is for the operator). */
export class AdminRequestFailed extends Error {
  override name = 'AdminRequestFailed';
}
