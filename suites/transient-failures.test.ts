import { registerSuite } from '../harness/vitest/register.js';
import suite from './transient-failures.js';

registerSuite(suite);
