/** The job kinds this process handles. Each area adds its handlers here. */
import type { AppContext } from '../context.js';
import type { JobHandler } from './runner.js';
import { partnerJobHandlers } from './partner.js';

export function jobHandlers(ctx: AppContext): Record<string, JobHandler> {
  return {
    ...partnerJobHandlers(ctx),
  };
}
