/** Kubernetes `Status` failures: what the API test server answers for every error. */

export const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** A Kubernetes Status failure, thrown inside handlers and written as the response. */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason: string = REASONS[code] ?? 'Unknown',
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
  toStatus(): Record<string, unknown> {
    const s: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, code: this.code };
    if (this.details) s.details = this.details;
    return s;
  }
}
