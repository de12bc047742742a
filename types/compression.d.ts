// @types/compression types the middleware against express; we use it on plain node:http.
declare module 'compression' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  interface CompressionOptions {
    threshold?: number | string;
    level?: number;
    filter?: (req: IncomingMessage, res: ServerResponse) => boolean;
  }
  export default function compression(
    options?: CompressionOptions,
  ): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
}
