import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root, both from src/ (tsx) and from dist/src/ (compiled). */
export const projectRoot = here.endsWith(join('dist', 'src')) ? join(here, '..', '..') : join(here, '..');
