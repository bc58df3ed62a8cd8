/** @module The Error body every failure answers with. */
import * as v from 'valibot';

/** The fixed set of error codes, each with the HTTP status it always travels with. */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_conflict: 409,
  sync_conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  storage_unavailable: 503,
  service_unavailable: 503,
} as const;

/** A machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** One validation problem: which field or query parameter, and what is wrong with it. */
export const ErrorDetail = v.object({
  path: v.string(),
  message: v.string(),
});

/** An error detail. */
export type ErrorDetail = v.InferOutput<typeof ErrorDetail>;

/** Validates an Error body: `{code, message, status}`, plus `details` on a validation 400. */
export const ErrorBody = v.object({
  code: v.picklist(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
  message: v.string(),
  status: v.pipe(v.number(), v.integer()),
  details: v.optional(v.array(ErrorDetail)),
});

/** An Error body. */
export type ErrorBody = v.InferOutput<typeof ErrorBody>;
