import { registerSuite } from '../harness/vitest/register.js';
import suite from './webhook-retry.js';

registerSuite(suite);
