import { registerSuite } from '../harness/vitest/register.js';
import suite from './idempotency.js';

registerSuite(suite);
