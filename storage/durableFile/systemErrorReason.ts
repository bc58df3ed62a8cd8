/** @module Says in one line why a file operation failed: "no space left on device (ENOSPC)". */

/** A failure's system error code and the words an operator acts on. */
export interface SystemErrorReason {
  /** The system error code (ENOSPC, EACCES, EROFS, EIO, …), when the failure was a system error. */
  code: string | undefined;
  /** One line: the failure's words and its code, such as `no space left on device (ENOSPC)`. */
  reason: string;
}

/**
 * Node's system errors read `ENOSPC: no space left on device, open '/x/animals.json.1.ab.tmp'`
 * or `EIO: i/o error, fsync`; this keeps the words and the code and drops the call and its
 * path, which names a temp file of its own at each write, so one failure reads the same
 * every time it happens.
 */
export const systemErrorReason = (error: unknown): SystemErrorReason => {
  const { code } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown };
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return { code: undefined, reason: message };
  const words = (message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message).replace(/, [a-z_0-9]+( '.*)?$/, '');
  return { code, reason: `${words} (${code})` };
};
