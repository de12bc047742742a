// @polka/send-type ships no types and has no @types package.
declare module '@polka/send-type' {
  import type { ServerResponse } from 'node:http';
  export default function send(
    res: ServerResponse,
    code?: number,
    data?: unknown,
    headers?: Record<string, string | number | readonly string[]>,
  ): void;
}
