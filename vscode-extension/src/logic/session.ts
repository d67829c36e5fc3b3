// A client of a running fslens session over its Unix socket, as `fslens mcp` and the CLI join
// one: in Ionide mode the session is the fslens that Ionide started as its `dotnet`, and the
// extension's commands run in it (so they see Ionide's unsaved buffers, and
// `workspace/applyEdit` goes to Ionide's client). No `vscode` import: Node's test runner drives
// it against a live fslens.

import { execFile } from "child_process";
import * as net from "net";
import { pathToFileURL } from "url";
import {
  CancellationToken,
  createMessageConnection,
  MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";

/** How long `fslens session-path` and the session's `initialize` may take. */
export const SESSION_TIMEOUT_MS = 10_000;

/**
 * The socket of the session serving `workspace`, as fslens computes it (a private runtime
 * directory and a digest of the canonical root): `<fslens> session-path --workspace DIR`.
 */
export function sessionSocketPath(fslens: string, workspace: string, environment?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      fslens,
      ["session-path", "--workspace", workspace],
      { env: environment ?? process.env, timeout: SESSION_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const socket = stdout.trim();
        if (error || socket === "") {
          reject(new Error(`${fslens} session-path failed: ${stderr.trim() || error?.message || "no output"}`));
        } else {
          resolve(socket);
        }
      },
    );
  });
}

export interface SessionStatusNotification {
  state?: string;
  reason?: string | null;
  [key: string]: unknown;
}

/** One connection to a session: `initialize`d, then commands and `fslens/status` notifications. */
export class SessionConnection {
  private closed = false;
  private readonly closeHandlers: (() => void)[] = [];

  private constructor(
    private readonly socket: net.Socket,
    private readonly connection: MessageConnection,
  ) {
    connection.onClose(() => this.markClosed());
    socket.on("close", () => this.markClosed());
  }

  private markClosed() {
    if (!this.closed) {
      this.closed = true;
      for (const handler of this.closeHandlers) {
        handler();
      }
    }
  }

  /**
   * Connects to the socket at `socketPath` and initializes the session for `workspace`. Rejects
   * when no session listens there (`ENOENT`, `ECONNREFUSED`) or it does not answer in time.
   */
  static async open(
    socketPath: string,
    workspace: string,
    onStatus: (status: SessionStatusNotification) => void,
  ): Promise<SessionConnection> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const candidate = net.createConnection(socketPath);
      candidate.once("connect", () => {
        candidate.removeListener("error", reject);
        resolve(candidate);
      });
      candidate.once("error", reject);
    });
    socket.on("error", () => socket.destroy());
    const connection = createMessageConnection(new StreamMessageReader(socket), new StreamMessageWriter(socket));
    connection.onNotification("fslens/status", (params: SessionStatusNotification) => onStatus(params));
    // The session sends no requests to its clients; answer any with null rather than hang.
    connection.onRequest(() => null);
    connection.listen();
    const session = new SessionConnection(socket, connection);
    const initialize = connection.sendRequest("initialize", {
      processId: process.pid,
      clientInfo: { name: "fslens-vscode" },
      rootUri: pathToFileURL(workspace).href,
      capabilities: {},
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the session at ${socketPath} did not answer initialize in ${SESSION_TIMEOUT_MS / 1000} s`)),
        SESSION_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([initialize, timeout]);
    } catch (error) {
      session.dispose();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    connection.sendNotification("initialized", {});
    return session;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  onClose(handler: () => void) {
    this.closeHandlers.push(handler);
  }

  /** Runs an fslens command in the session (`workspace/executeCommand`). */
  execute<T>(command: string, argument: Record<string, unknown>, token?: CancellationToken): Promise<T> {
    if (this.closed) {
      return Promise.reject(new Error("the fslens session closed the connection"));
    }
    const params = { command, arguments: [argument] };
    // vscode-jsonrpc takes a trailing token only when there is one (an undefined would be sent
    // as a second parameter).
    return (
      token
        ? this.connection.sendRequest("workspace/executeCommand", params, token)
        : this.connection.sendRequest("workspace/executeCommand", params)
    ) as Promise<T>;
  }

  dispose() {
    this.markClosed();
    this.connection.dispose();
    this.socket.destroy();
  }
}
