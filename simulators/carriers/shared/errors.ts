import type { z } from 'zod';

/** A refusal by a simulator control or state machine, with the HTTP status its control route answers. */
export class SimulatorError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** "field.path: problem; …", the readable reason a carrier gives for a request it cannot parse. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`).join('; ');
}
