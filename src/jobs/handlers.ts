/** The job kinds this process handles. Each area adds its handlers here. */
import type { AppContext } from '../context.js';
import type { JobHandler } from './runner.js';

export function jobHandlers(_ctx: AppContext): Record<string, JobHandler> {
  return {};
}
