/**
 * The admission servers' metrics (the HCP namespace's validating webhook and the fleet's mutating
 * one share builder/webhook/server.ts): requests by kind and result, denials by status reason,
 * errors answered before a decision, and the time to decide.
 */
import { METRICS } from './catalogue.js';
import { Metrics } from './registry.js';

export const ADMISSION_METRICS = [METRICS.admissionRequests, METRICS.admissionDenials, METRICS.admissionErrors, METRICS.admissionDuration];

export interface AdmissionTelemetry {
  /** A decision was answered. `kind` is the webhook's kind; `reason` the denial's status reason. */
  decided(kind: string, allowed: boolean, reason: string | undefined, seconds: number): void;
  /** An HTTP error was answered instead of a decision. */
  errored(error: 'BadRequest' | 'TooLarge' | 'Busy' | 'Timeout' | 'Internal', kind?: string): void;
}

export class AdmissionMetrics implements AdmissionTelemetry {
  constructor(readonly metrics: Metrics) {
    metrics.zero(METRICS.admissionErrors);
  }

  decided(kind: string, allowed: boolean, reason: string | undefined, seconds: number): void {
    this.metrics.inc(METRICS.admissionRequests, { webhook: kind, result: allowed ? 'Allowed' : 'Denied' });
    if (!allowed) this.metrics.inc(METRICS.admissionDenials, { webhook: kind, reason });
    this.metrics.observe(METRICS.admissionDuration, seconds, { webhook: kind });
  }

  errored(error: 'BadRequest' | 'TooLarge' | 'Busy' | 'Timeout' | 'Internal', kind?: string): void {
    this.metrics.inc(METRICS.admissionErrors, { error });
    this.metrics.inc(METRICS.admissionRequests, { webhook: kind, result: 'Error' });
  }
}
