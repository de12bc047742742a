/**
 * A listener that cannot open, as one line naming the setting to change: `serve` stops with it,
 * and `hotspot-ctl setup` refuses with the same line before writing what `serve` would refuse.
 */
export interface ListenSettings {
  /** The address setting (HTTP_HOST, RADIUS_HOST) and its value. */
  hostSetting: string;
  host: string;
  /** The port setting (HTTP_PORT, RADIUS_AUTH_PORT…) and its value. */
  portSetting: string;
  port: number;
}

/** The error code of a failed listen or bind (EADDRINUSE…), if it is one. */
export function listenErrorCode(err: unknown): string | undefined {
  const e = err as NodeJS.ErrnoException | null;
  return typeof e?.code === 'string' &&
    (e.syscall === 'listen' || e.syscall === 'bind' || e.syscall === 'getaddrinfo')
    ? e.code
    : undefined;
}

export function listenProblem(where: ListenSettings, code: string): string {
  const { hostSetting, host, portSetting, port } = where;
  const at = `${host}:${String(port)}`;
  if (code === 'EADDRINUSE') return `${portSetting}: ${at} is taken by another program (EADDRINUSE)`;
  if (code === 'EACCES')
    return `${portSetting}: ${at} needs privilege (EACCES): run under the packaged systemd unit, or set ${portSetting} above 1023`;
  if (code === 'EADDRNOTAVAIL')
    return `${hostSetting}: cannot listen on ${host}: it is no address of this box (EADDRNOTAVAIL); ip -brief address lists them`;
  return `${hostSetting}: cannot listen on ${host} (${code})`;
}
