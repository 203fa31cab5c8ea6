import { registerSuite } from '../harness/vitest/register.js';
import suite from './mutual-exclusion.js';

registerSuite(suite);
